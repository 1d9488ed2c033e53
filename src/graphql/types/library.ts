import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import type { FileValidityView } from '../../core/assets/file-validity.ts';
import type { FolderView } from '../../core/assets/library.schemas.ts';
import type { AssetItem, TagDTO } from '../../core/assets/search/search.schemas.ts';
import { FACET_LIMITS, type FacetResult } from '../../core/assets/search/facets.ts';
import { countedAs, LIST_BOUNDS, listCost, PAGE_ITEMS_COST, sizeOf } from '../costs.ts';
import { builder } from '../builder.ts';
import { describedBy } from '../schema-descriptions.ts';
import { RFC3339_MICROS } from '../shapes.ts';
import { AssetItem as AssetItemSchema, SearchAssetsRequest, SearchFacet, SearchFacetValue, SearchShareRequest } from '../../core/assets/search/search.schemas.ts';

const fromSearch = describedBy(SearchAssetsRequest);
const fromShare = describedBy(SearchShareRequest);
const fromItem = describedBy(AssetItemSchema);
const fromFacet = describedBy(SearchFacet);
const fromFacetValue = describedBy(SearchFacetValue);
import type { GqlContext } from '../context.ts';

/** Any JSON value (e.g. aiDetailedDescription, a JSON array); the core validates its content. */
export const JsonRef = builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => {
    if (ast.kind === Kind.VARIABLE && !variables) throw new GraphQLError('JSON variable without variables');
    return valueFromASTUntyped(ast, variables);
  },
});

/** A library folder, loaded in batches per request (AssetItem.folders, search folders, parents). */
export const LibraryFolderRef = builder.loadableObject('LibraryFolder', {
  description: 'A folder of the team library (a tree per team; docs/library.md).',
  load: (ids: number[], gql: GqlContext) => gql.core.assets.library.findFoldersByIds(gql.ctx, ids),
  toKey: (folder: FolderView) => folder.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Folder id: search-assets parentId, folder-subscribe folderIds.' }),
    name: t.exposeString('name', { description: 'One path segment: no slash; unique among live siblings.' }),
    path: t.exposeString('path', { description: 'Names from the root, each preceded by a slash.' }),
    parentId: t.exposeInt('parentId', { nullable: true, description: 'The parent folder; null at the top level.' }),
    createdAt: t.exposeString('createdAt', { description: RFC3339_MICROS }),
  }),
});

builder.objectFields(LibraryFolderRef, (t) => ({
  parent: t.field({ type: LibraryFolderRef, nullable: true, description: 'The parent folder; null at the top level.', resolve: (folder) => folder.parentId }),
}));

const LibraryTagRef = builder.objectRef<TagDTO>('LibraryTag').implement({
  description: 'A tag of the team library (spec 2.6 TagDTO).',
  fields: (t) => ({ id: t.exposeInt('id', { description: 'Tag id: search-assets tags.' }), name: t.exposeString('name', { description: 'The tag\'s name, unique in the team.' }) }),
});

const AnalysisRef = builder.objectRef<NonNullable<AssetItem['imageContentAnalysis']>>('ImageContentAnalysis').implement({
  description: 'Image analysis of a file (spec 2.6), set by operators (`asset analysis set`) or updateLibraryFile; searched by DEEP keywords.',
  fields: (t) => ({
    aiTags: t.exposeString('aiTags', { nullable: true, description: 'Tags the analysis gave, as text; null when unset.' }),
    aiTitle: t.exposeString('aiTitle', { nullable: true, description: 'A title; null when unset.' }),
    aiDescription: t.exposeString('aiDescription', { nullable: true, description: 'A description; null when unset.' }),
    aiDetailedDescription: t.field({ type: JsonRef, nullable: true, description: 'A JSON array (at most 64 KiB); null when unset.', resolve: (a) => a.aiDetailedDescription }),
  }),
});

const FileValidityRef = builder.objectRef<FileValidityView>('FileValidity').implement({
  description: 'A file\'s validity period and status (docs/library.md "Validity"); the fields of the spec 6.2 VALIDITY event.',
  fields: (t) => ({
    materialId: t.exposeInt('materialId', { description: 'The file-path ID.' }),
    validityStatus: t.exposeInt('validityStatus', { description: '0 valid, 1 not yet valid (before startTime), 2 expired (at or after endTime).' }),
    validityStatusName: t.exposeString('validityStatusName', { description: 'VALID, NOT_STARTED or EXPIRED.' }),
    daysToExpire: t.exposeInt('daysToExpire', { nullable: true, description: 'Whole days until endTime, rounded up; 0 once expired; null when permanent.' }),
    startTime: t.exposeString('startTime', { nullable: true, description: 'RFC 3339, UTC, microseconds; null: valid from the start.' }),
    endTime: t.exposeString('endTime', { nullable: true, description: 'RFC 3339, UTC, microseconds; null: permanent.' }),
    isPermanent: t.exposeBoolean('isPermanent', { description: 'True when there is no endTime.' }),
  }),
});

const FileValidityInputRef = builder.inputType('FileValidityInput', {
  description: 'A validity period; it replaces the current one. Both omitted: always valid, permanent.',
  fields: (t) => ({
    startTime: t.string({ description: 'RFC 3339: the file is valid from then; null or omitted: from the start.' }),
    endTime: t.string({ description: 'RFC 3339: the file expires then (after startTime, else validation_failed); null or omitted: permanent.' }),
  }),
});

/** AssetItem (spec 2.6); tags and folders are resolved through per-request dataloaders. */
export const AssetItemRef = builder.objectRef<AssetItem>('AssetItem').implement({
  description: 'A library file as search results show it (spec 2.6 AssetItem; REST: POST /open/search-assets).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The file-path ID.' }),
    parentIds: t.exposeIntList('parentIds', { description: 'Folder ids from the root down to the file\'s folder.' }),
    folders: t.field({
      type: [LibraryFolderRef],
      description: `The folders of parentIds, root first. ${countedAs(LIST_BOUNDS.folderDepth, 'folders nest at most 32 levels')}`,
      complexity: listCost(LIST_BOUNDS.folderDepth),
      resolve: (item) => item.parentIds,
    }),
    userId: t.exposeString('userId', { nullable: true, description: 'The owner\'s member id.' }),
    name: t.exposeString('name', fromItem('name')),
    downloadUrl: t.exposeString('downloadUrl', fromItem('downloadUrl')),
    source: t.exposeInt('source', { description: '1 web, 2 upload, 3 copy.' }),
    link: t.exposeString('link', { nullable: true, ...fromItem('link') }),
    extension: t.exposeString('extension', { nullable: true, ...fromItem('extension') }),
    duration: t.exposeFloat('duration', { nullable: true, description: 'Milliseconds.' }),
    size: t.exposeFloat('size', { description: 'KB, rounded up.' }),
    width: t.exposeInt('width', { nullable: true, ...fromItem('width') }),
    height: t.exposeInt('height', { nullable: true, ...fromItem('height') }),
    description: t.exposeString('description', { nullable: true, ...fromItem('description') }),
    score: t.exposeInt('score', { nullable: true, ...fromItem('score') }),
    createTime: t.exposeString('createTime', fromItem('createTime')),
    createUser: t.exposeString('createUser', { nullable: true, ...fromItem('createUser') }),
    updateTime: t.exposeString('updateTime', fromItem('updateTime')),
    updateUser: t.exposeInt('updateUser', { nullable: true, ...fromItem('updateUser') }),
    tags: t.loadableList({
      type: LibraryTagRef,
      description: `${fromItem('tags').description} ${countedAs(LIST_BOUNDS.fileTags, 'a file has at most 50 tags')}`,
      complexity: listCost(LIST_BOUNDS.fileTags),
      load: (fileIds: number[], gql: GqlContext) => gql.core.assets.assetSearch.tagsByFileIds(gql.ctx, fileIds),
      resolve: (item) => item.id,
    }),
    thumbnailAccessUrl: t.exposeString('thumbnailAccessUrl', { nullable: true, ...fromItem('thumbnailAccessUrl') }),
    imageContentAnalysis: t.field({ type: AnalysisRef, nullable: true, ...fromItem('imageContentAnalysis'), resolve: (item) => item.imageContentAnalysis }),
    publicUrl: t.exposeString('publicUrl', fromItem('publicUrl')),
    validity: t.loadable({
      type: FileValidityRef,
      nullable: true,
      description: 'The file\'s validity period and status (GraphQL only; not part of the /open AssetItem). Null only when the file was deleted meanwhile.',
      load: (fileIds: number[], gql: GqlContext) => gql.core.assets.fileValidity.forFiles(gql.ctx, fileIds),
      sort: (validity) => validity.materialId,
      resolve: (item) => item.id,
    }),
  }),
});

const SearchFacetValueRef = builder.objectRef<FacetResult['values'][number]>('SearchFacetValue').implement({
  description: 'One value of a facet and how many matches of the search carry it (docs/search.md "Facets").',
  fields: (t) => ({
    value: t.exposeString('value', fromFacetValue('value')),
    label: t.exposeString('label', { nullable: true, ...fromFacetValue('label') }),
    count: t.exposeFloat('count', fromFacetValue('count')),
  }),
});

const SearchFacetRef = builder.objectRef<FacetResult>('SearchFacet').implement({
  description: 'Exact counts per value of one facet over the matches of searchAssets (same filters as total, currentUserId included; docs/search.md "Facets").',
  fields: (t) => ({
    facet: t.exposeString('facet', fromFacet('facet')),
    values: t.field({
      type: [SearchFacetValueRef],
      description: `${fromFacet('values').description} ${countedAs(FACET_LIMITS.maxValues, 'facetLimit is at most 50')}`,
      complexity: listCost(FACET_LIMITS.maxValues),
      resolve: (facet) => facet.values,
    }),
    other: t.exposeFloat('other', fromFacet('other')),
    otherValues: t.exposeInt('otherValues', fromFacet('otherValues')),
    missing: t.exposeFloat('missing', fromFacet('missing')),
  }),
});

const AssetSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; total: number; folders?: Array<{ id: number }>; folderCount?: number; facets?: FacetResult[] }>('AssetSearchResult')
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
      facets: t.field({
        type: [SearchFacetRef],
        nullable: true,
        description: `With input.facets: one entry per facet, in the order asked; null otherwise. ${countedAs(FACET_LIMITS.facets, 'at most 8 facets a search')}`,
        complexity: listCost(FACET_LIMITS.facets),
        resolve: (r) => r.facets ?? null,
      }),
    }),
  });

const ShareSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; totalCount: number; folders: Array<{ id: number; name: string }>; folderCount: number }>('ShareSearchResult')
  .implement({
    description: 'What searchShare answers (spec 4.6).',
    fields: (t) => ({
      assets: t.field({ type: [AssetItemRef], description: 'The page of matching assets inside the shared folder (searchShare counts its page size in the query cost).', complexity: PAGE_ITEMS_COST, resolve: (r) => r.assets }),
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
    facets: t.stringList(fromSearch('facets')),
    facetLimit: t.int(fromSearch('facetLimit')),
    w: t.int(fromSearch('w')),
    h: t.int(fromSearch('h')),
    mode: t.string({ description: 'fit (default) or crop.' }),
    q: t.int(fromSearch('q')),
    f: t.string({ description: 'jpg, png or webp.' }),
    bg: t.string({ description: 'Hex RRGGBB without #.' }),
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

const AnalysisInput = builder.inputType('ImageContentAnalysisInput', {
  description: 'Each field optional; null clears it.',
  fields: (t) => ({ aiTags: t.string({ description: 'Analysis tags as text.' }), aiTitle: t.string({ description: 'A title.' }), aiDescription: t.string({ description: 'A description.' }), aiDetailedDescription: t.field({ type: JsonRef, description: 'A JSON array.' }) }),
});

const LibraryFilePatchInput = builder.inputType('LibraryFilePatchInput', {
  description: 'An omitted field is unchanged; null clears description, score, link. tags replaces the file\'s tags.',
  fields: (t) => ({
    name: t.string({ description: '1-255 characters, no slash or control characters.' }),
    description: t.string({ description: 'Free text; null clears.' }),
    tags: t.stringList({ description: 'The file\'s tags by name (created as needed), at most 50; replaces the current ones.' }),
    score: t.int({ description: 'Rating 0-5; null clears.' }),
    link: t.string({ description: 'An http(s) URL; null clears.' }),
    analysis: t.field({ type: AnalysisInput, description: 'Image analysis fields.' }),
  }),
});

const FolderMembershipRef = builder.objectRef<{ folderId: number; userId: number }>('LibraryFolderMembership').implement({
  description: 'A member\'s access to a folder and its subtree (search-assets currentUserId).',
  fields: (t) => ({ folderId: t.exposeInt('folderId', { description: 'The folder.' }), userId: t.exposeInt('userId', { description: 'The member.' }) }),
});

/** A search page: endPoint - startPoint results (spec 4.6), each counted with what is selected of it. */
function searchPageCost(input: { startPoint?: number | null; endPoint?: number | null } | null | undefined, fallback: number) {
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
  searchShare: t.field({
    type: ShareSearchResultRef,
    description: 'search-share (spec 4.6). Query cost: the result counts endPoint - startPoint times (default 40, at most 100).',
    args: { input: t.arg({ type: SearchShareInput, required: true, description: 'The share token, its password and the filters.' }) },
    complexity: (args) => searchPageCost(args.input, LIST_BOUNDS.searchShareDefault),
    resolve: (_root, args, gql) => gql.core.assets.shares.search(gql.ctx, args.input),
  }),
  libraryFile: t.field({
    type: AssetItemRef,
    nullable: true,
    description: 'A live file of the team by file-path ID; null when there is none.',
    args: { id: t.arg.int({ required: true, description: 'File-path ID.' }) },
    resolve: async (_root, args, gql) => (await gql.core.assets.assetSearch.findItems(gql.ctx, [args.id], { includeTags: false }))[0] ?? null,
  }),
  libraryFolder: t.field({
    type: LibraryFolderRef,
    nullable: true,
    description: 'A live folder of the team; null when there is none.',
    args: { id: t.arg.int({ required: true, description: 'Folder id.' }) },
    resolve: async (_root, args, gql) => (await gql.core.assets.library.findFoldersByIds(gql.ctx, [args.id]))[0] ?? null,
  }),
}));

builder.mutationFields((t) => ({
  createLibraryFolder: t.field({
    type: LibraryFolderRef,
    description: 'Needs editable or higher; sibling names are unique among live folders (name_in_use).',
    args: { parentId: t.arg.int({ description: 'A live folder of the team; omitted: top level (at most 32 levels).' }), name: t.arg.string({ required: true, description: 'One path segment, no slash.' }) },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.create(gql.ctx, { parentId: args.parentId, name: args.name }),
  }),
  renameLibraryFolder: t.field({
    type: LibraryFolderRef,
    description: 'Needs editable or higher; the paths of the whole subtree follow.',
    args: { id: t.arg.int({ required: true, description: 'Folder id.' }), name: t.arg.string({ required: true, description: 'The new name: one path segment, no slash.' }) },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.rename(gql.ctx, args.id, { name: args.name }),
  }),
  updateLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Sets name, description, tags, score, link and analysis fields; needs editable or higher.',
    args: { id: t.arg.int({ required: true, description: 'File-path ID.' }), input: t.arg({ type: LibraryFilePatchInput, required: true, description: 'The changes.' }) },
    resolve: (_root, args, gql) => gql.core.assets.libraryEdit.updateFile(gql.ctx, args.id, args.input),
  }),
  moveLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Moves a file to a folder (null: the root); needs editable or higher.',
    args: { id: t.arg.int({ required: true, description: 'File-path ID.' }), folderId: t.arg.int({ description: 'A live folder of the team; null or omitted: the root.' }) },
    resolve: (_root, args, gql) => gql.core.assets.libraryEdit.moveFile(gql.ctx, args.id, { folderId: args.folderId ?? null }),
  }),
  setLibraryFileValidity: t.field({
    type: FileValidityRef,
    description: 'Sets (replaces) a file\'s validity period; needs editable or higher. Writes a MATERIAL_METADATA_UPDATED VALIDITY event when the period or status changes. Errors: not_found, validation_failed (endTime not after startTime, not RFC 3339).',
    args: { id: t.arg.int({ required: true, description: 'File-path ID.' }), input: t.arg({ type: FileValidityInputRef, required: true, description: 'The period.' }) },
    resolve: (_root, args, gql) => gql.core.assets.fileValidity.set(gql.ctx, args.id, args.input),
  }),
  transferLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Transfers a file to another member of the team (its file-path ID stays); needs editable or higher. Writes a MATERIAL_METADATA_UPDATED OWNER event. Errors: not_found, validation_failed (ownerUserId not a member of the team).',
    args: { id: t.arg.int({ required: true, description: 'File-path ID.' }), ownerUserId: t.arg.int({ required: true, description: 'Member id of the new owner, of the same team.' }) },
    resolve: (_root, args, gql) => gql.core.assets.libraryEdit.transferOwnership(gql.ctx, args.id, { ownerUserId: args.ownerUserId }),
  }),
  addLibraryFolderMember: t.field({
    type: FolderMembershipRef,
    description: 'Gives a member access to a folder and its subtree (search currentUserId); needs manage.',
    args: { folderId: t.arg.int({ required: true, description: 'Folder id.' }), userId: t.arg.int({ required: true, description: 'Member id of the team.' }) },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.addMember(gql.ctx, { folderId: args.folderId, userId: args.userId }),
  }),
  removeLibraryFolderMember: t.field({
    type: FolderMembershipRef,
    description: 'Withdraws a member\'s access to a folder; needs manage.',
    args: { folderId: t.arg.int({ required: true, description: 'Folder id.' }), userId: t.arg.int({ required: true, description: 'Member id of the team.' }) },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.removeMember(gql.ctx, { folderId: args.folderId, userId: args.userId }),
  }),
}));
