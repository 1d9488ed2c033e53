import { DERIVATIVE_FORMATS, DERIVATIVE_MODES } from '../../core/assets/delivery/derivatives.ts';
import { FACET_LIMITS, type FacetResult } from '../../core/assets/search/facets.ts';
import { type AssetItem, KEYWORD_SEARCH_TYPES, SearchAssetsRequest, SORT_NAMES, SORT_TYPES } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost, PAGE_ITEMS_COST, sizeOf } from '../costs.ts';
import { enumFromCore } from '../enums.ts';
import { describedBy } from '../schema-descriptions.ts';
import { AssetItemRef } from './asset-item.ts';
import { LibraryFolderRef } from './library-folder.ts';
import { SearchFacetRef } from './search-facet.ts';

const fromSearch = describedBy(SearchAssetsRequest);

const ImageModeEnum = enumFromCore('ImageResizeMode', {
  description: 'How a processed image (publicUrl) fits w x h.',
  values: DERIVATIVE_MODES,
  describe: { fit: 'Inside w x h, keeping the aspect ratio (the default).', crop: 'Covers w x h, cropped around the centre.' },
});

const ImageFormatEnum = enumFromCore('ImageFormat', {
  description: 'The output format of a processed image (publicUrl).',
  values: DERIVATIVE_FORMATS,
  describe: { jpg: 'JPEG (quality q).', png: 'PNG (lossless).', webp: 'WebP (quality q).' },
});

const AssetSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; total: number; folders?: Array<{ id: number }>; folderCount?: number; facets?: FacetResult[] }>('AssetSearchResult')
  .implement({
    description: 'What searchAssets answers (spec 4.6).',
    fields: (t) => ({
      assets: t.field({
        type: [AssetItemRef],
        description: 'The page of matching assets (searchAssets counts its page size in the query cost).',
        complexity: PAGE_ITEMS_COST,
        resolve: (r) => r.assets,
      }),
      total: t.exposeFloat('total', { description: 'Exact number of matching assets.' }),
      folders: t.field({
        type: [LibraryFolderRef],
        nullable: true,
        description: `With needChildren. ${countedAs(LIST_BOUNDS.childFolders, 'an estimate: a folder has no fixed maximum of child folders')}`,
        complexity: listCost(LIST_BOUNDS.childFolders),
        resolve: (r) => r.folders?.map((f) => f.id) ?? null,
      }),
      folderCount: t.exposeInt('folderCount', { nullable: true, description: 'With needChildren: how many folders `folders` holds; null otherwise.' }),
      facets: t.field({
        type: [SearchFacetRef],
        nullable: true,
        description: `With input.facets: one entry per facet, in the order asked; null otherwise. ${countedAs(FACET_LIMITS.facets, 'at most 8 facets a search')}`,
        complexity: listCost(FACET_LIMITS.facets),
        resolve: (r) => r.facets ?? null,
      }),
    }),
  });

const SortNameEnum = enumFromCore('AssetSortName', {
  description: 'Sort key of search-assets; ties break on the asset id in the same direction.',
  values: SORT_NAMES,
  describe: {
    CREATE_TIME: 'When the file was imported.',
    UPDATE_TIME: 'When the file last changed.',
    NAME: 'File name.',
    DURATION: 'Audio or video duration (files without one sort as 0).',
    SIZE: 'Bytes.',
    SCORE: 'Rating 0-5 (files without one sort as 0).',
  },
});
const SortTypeEnum = enumFromCore('SortType', {
  description: 'Sort direction.',
  values: SORT_TYPES,
  describe: { ASC: 'Ascending.', DESC: 'Descending (the default).' },
});
const KeywordSearchTypeEnum = enumFromCore('KeywordSearchType', {
  description: 'How keywords match (docs/search.md).',
  values: KEYWORD_SEARCH_TYPES,
  describe: {
    DEEP: 'Substring of the name, description, tags and analysis text (the default).',
    DEFAULT: 'Substring of the file name.',
    PRECISE: 'The whole file name without its extension.',
    DEEP_AND_PRECISE: 'Whole words in the name, description, tags and analysis text.',
  },
});

const SortConditionInput = builder.inputType('AssetSortInput', {
  description: 'spec 4.6 SortConditionVO.',
  fields: (t) => ({
    sortName: t.field({ type: SortNameEnum, required: true, description: 'The sort key.' }),
    sortType: t.field({ type: SortTypeEnum, description: 'Default DESC.' }),
  }),
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
    facets: t.stringList(fromSearch('facets')),
    facetLimit: t.int(fromSearch('facetLimit')),
    w: t.int(fromSearch('w')),
    h: t.int(fromSearch('h')),
    mode: t.field({ type: ImageModeEnum, description: 'Default FIT.' }),
    q: t.int(fromSearch('q')),
    f: t.field({ type: ImageFormatEnum, description: "Default: the original's format when JPG, PNG or WEBP, else WEBP." }),
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
    description:
      'search-assets (spec 4.6): any role of the team may search. Query cost: the result counts endPoint - startPoint times (default 10, at most 100).',
    args: { input: t.arg({ type: SearchAssetsInput, description: 'The filters; omitted: every file, newest first.' }) },
    complexity: (args) => searchPageCost(args.input, LIST_BOUNDS.searchAssetsDefault),
    resolve: (_root, args, gql) => gql.core.assets.assetSearch.search(gql.ctx, args.input ?? {}),
  }),
}));
