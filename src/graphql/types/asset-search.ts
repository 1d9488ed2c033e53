import type { AssetItem } from '../../core/assets/search/search.schemas.ts';
import { SearchAssetsRequest } from '../../core/assets/search/search.schemas.ts';
import { countedAs, LIST_BOUNDS, listCost, PAGE_ITEMS_COST, sizeOf } from '../costs.ts';
import { builder } from '../builder.ts';
import { describedBy } from '../schema-descriptions.ts';
import { AssetItemRef } from './asset-item.ts';
import { LibraryFolderRef } from './library-folder.ts';

const fromSearch = describedBy(SearchAssetsRequest);

const AssetSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; total: number; folders?: Array<{ id: number }>; folderCount?: number }>('AssetSearchResult')
  .implement({
    description: 'What searchAssets answers (spec 4.6).',
    fields: (t) => ({
      assets: t.field({ type: [AssetItemRef], description: 'The page of matching assets (searchAssets counts its page size in the query cost).', complexity: PAGE_ITEMS_COST, resolve: (r) => r.assets }),
      total: t.exposeFloat('total', { description: 'Exact number of matching assets.' }),
      folders: t.field({
        type: [LibraryFolderRef],
        nullable: true,
        description: `With needChildren. ${countedAs(LIST_BOUNDS.childFolders, 'an estimate: a folder has no fixed maximum of child folders')}`,
        complexity: listCost(LIST_BOUNDS.childFolders),
        resolve: (r) => r.folders?.map((f) => f.id) ?? null,
      }),
      folderCount: t.exposeInt('folderCount', { nullable: true, description: 'With needChildren: how many folders `folders` holds; null otherwise.' }),
    }),
  });

const SortNameEnum = builder.enumType('AssetSortName', {
  description: 'Sort key of search-assets; ties break on the asset id in the same direction.',
  values: {
    CREATE_TIME: { description: 'When the file was imported.' },
    UPDATE_TIME: { description: 'When the file last changed.' },
    NAME: { description: 'File name.' },
    DURATION: { description: 'Audio or video duration (files without one sort as 0).' },
    SIZE: { description: 'Bytes.' },
    SCORE: { description: 'Rating 0-5 (files without one sort as 0).' },
  } as const,
});
const SortTypeEnum = builder.enumType('SortType', {
  description: 'Sort direction.',
  values: { ASC: { description: 'Ascending.' }, DESC: { description: 'Descending (the default).' } } as const,
});
const KeywordSearchTypeEnum = builder.enumType('KeywordSearchType', {
  description: 'How keywords match (docs/search.md).',
  values: {
    DEEP: { description: 'Substring of the name, description, tags and analysis text (the default).' },
    DEFAULT: { description: 'Substring of the file name.' },
    PRECISE: { description: 'The whole file name without its extension.' },
    DEEP_AND_PRECISE: { description: 'Whole words in the name, description, tags and analysis text.' },
  } as const,
});

const SortConditionInput = builder.inputType('AssetSortInput', {
  description: 'spec 4.6 SortConditionVO.',
  fields: (t) => ({ sortName: t.field({ type: SortNameEnum, required: true, description: 'The sort key.' }), sortType: t.field({ type: SortTypeEnum, description: 'Default DESC.' }) }),
});

const SearchAssetsInput = builder.inputType('SearchAssetsInput', {
  description: 'EnterpriseSearchReqVO (spec 4.6); the same rules as POST /open/search-assets. Large numbers (bytes, epoch ms) are Float.',
  fields: (t) => ({
    parentId: t.int(fromSearch('parentId')),
    needChildren: t.boolean(fromSearch('needChildren')),
    extensions: t.stringList(fromSearch('extensions')),
    color: t.string(fromSearch('color')),
    areaThreshold: t.int(fromSearch('areaThreshold')),
    colorThreshold: t.int(fromSearch('colorThreshold')),
    minLength: t.float(fromSearch('minLength')),
    maxLength: t.float(fromSearch('maxLength')),
    minSize: t.float(fromSearch('minSize')),
    maxSize: t.float(fromSearch('maxSize')),
    minHeight: t.int(fromSearch('minHeight')),
    maxHeight: t.int(fromSearch('maxHeight')),
    minWidth: t.int(fromSearch('minWidth')),
    maxWidth: t.int(fromSearch('maxWidth')),
    startTime: t.float(fromSearch('startTime')),
    endTime: t.float(fromSearch('endTime')),
    keywords: t.stringList(fromSearch('keywords')),
    keywordSearchType: t.field({ type: KeywordSearchTypeEnum, ...fromSearch('keywordSearchType') }),
    tags: t.intList(fromSearch('tags')),
    tagOrAnd: t.boolean(fromSearch('tagOrAnd')),
    createUsers: t.intList(fromSearch('createUsers')),
    ratings: t.intList(fromSearch('ratings')),
    hasLink: t.boolean(fromSearch('hasLink')),
    hasDesc: t.boolean(fromSearch('hasDesc')),
    link: t.string(fromSearch('link')),
    desc: t.string(fromSearch('desc')),
    sort: t.field({ type: SortConditionInput, ...fromSearch('sort') }),
    startPoint: t.int(fromSearch('startPoint')),
    endPoint: t.int(fromSearch('endPoint')),
    region: t.floatList(fromSearch('region')),
    customFieldTemplateIds: t.intList(fromSearch('customFieldTemplateIds')),
    customFieldId: t.int(fromSearch('customFieldId')),
    currentUserId: t.int(fromSearch('currentUserId')),
    w: t.int(fromSearch('w')),
    h: t.int(fromSearch('h')),
    mode: t.string({ description: 'fit (default) or crop.' }),
    q: t.int(fromSearch('q')),
    f: t.string({ description: 'jpg, png or webp.' }),
    bg: t.string({ description: 'Hex RRGGBB without #.' }),
  }),
});

/** A search page: endPoint - startPoint results (spec 4.6), each counted with what is selected of it. */
export function searchPageCost(input: { startPoint?: number | null; endPoint?: number | null } | null | undefined, fallback: number) {
  const start = sizeOf(input?.startPoint, 0, Number.MAX_SAFE_INTEGER);
  const end = input?.endPoint == null ? start + fallback : sizeOf(input.endPoint, start + fallback, Number.MAX_SAFE_INTEGER);
  return { field: 1, multiplier: Math.min(Math.max(end - start, 0), LIST_BOUNDS.searchPage) };
}

builder.queryFields((t) => ({
  searchAssets: t.field({
    type: AssetSearchResultRef,
    description: 'search-assets (spec 4.6): any role of the team may search. Query cost: the result counts endPoint - startPoint times (default 10, at most 100).',
    args: { input: t.arg({ type: SearchAssetsInput, description: 'The filters; omitted: every file, newest first.' }) },
    complexity: (args) => searchPageCost(args.input, LIST_BOUNDS.searchAssetsDefault),
    resolve: (_root, args, gql) => gql.core.assets.assetSearch.search(gql.ctx, args.input ?? {}, { includeTags: false }),
  }),
}));
