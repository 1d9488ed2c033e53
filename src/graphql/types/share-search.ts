import { type AssetItem, SearchShareRequest } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost, PAGE_ITEMS_COST } from '../costs.ts';
import { describedBy } from '../schema-descriptions.ts';
import { AssetItemRef } from './asset-item.ts';
import { searchPageCost } from './asset-search.ts';
import { LibraryFolderRef } from './library-folder.ts';

const fromShare = describedBy(SearchShareRequest);

const ShareSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; totalCount: number; folders: Array<{ id: number; name: string }>; folderCount: number }>('ShareSearchResult')
  .implement({
    description: 'What searchShare answers (spec 4.6).',
    fields: (t) => ({
      assets: t.field({
        type: [AssetItemRef],
        description: 'The page of matching assets inside the shared folder (searchShare counts its page size in the query cost).',
        complexity: PAGE_ITEMS_COST,
        resolve: (r) => r.assets,
      }),
      totalCount: t.exposeFloat('totalCount', { description: 'Exact number of matching assets.' }),
      folders: t.field({
        type: [LibraryFolderRef],
        description: `With needChildren: the listed folder's child folders. ${countedAs(LIST_BOUNDS.childFolders, 'an estimate: a folder has no fixed maximum of child folders')}`,
        complexity: listCost(LIST_BOUNDS.childFolders),
        resolve: (r) => r.folders.map((f) => f.id),
      }),
      folderCount: t.exposeInt('folderCount', { description: 'How many folders `folders` holds.' }),
    }),
  });

const SearchShareInput = builder.inputType('SearchShareInput', {
  description: 'SearchShareReqVO (spec 4.6); the same rules as POST /open/search-share.',
  fields: (t) => ({
    linkToken: t.string({ required: true, ...fromShare('linkToken') }),
    password: t.string(fromShare('password')),
    folderId: t.int(fromShare('folderId')),
    needChildren: t.boolean(fromShare('needChildren')),
    isRoot: t.boolean(fromShare('isRoot')),
    keyword: t.string(fromShare('keyword')),
    startPoint: t.int(fromShare('startPoint')),
    endPoint: t.int(fromShare('endPoint')),
  }),
});

builder.queryFields((t) => ({
  searchShare: t.field({
    type: ShareSearchResultRef,
    description: 'search-share (spec 4.6). Query cost: the result counts endPoint - startPoint times (default 40, at most 100).',
    args: { input: t.arg({ type: SearchShareInput, required: true, description: 'The share token, its password and the filters.' }) },
    complexity: (args) => searchPageCost(args.input, LIST_BOUNDS.searchShareDefault),
    resolve: (_root, args, gql) => gql.core.assets.shares.search(gql.ctx, args.input),
  }),
}));
