import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import type { FolderView } from '../../core/assets/library.schemas.ts';
import type { AssetItem, TagDTO } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';
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
  load: (ids: number[], gql: GqlContext) => gql.core.library.findFoldersByIds(gql.ctx, ids),
  toKey: (folder: FolderView) => folder.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    path: t.exposeString('path', { description: 'Names from the root, each preceded by a slash.' }),
    parentId: t.exposeInt('parentId', { nullable: true }),
    createdAt: t.exposeString('createdAt'),
  }),
});

builder.objectFields(LibraryFolderRef, (t) => ({
  parent: t.field({ type: LibraryFolderRef, nullable: true, resolve: (folder) => folder.parentId }),
}));

const LibraryTagRef = builder.objectRef<TagDTO>('LibraryTag').implement({
  fields: (t) => ({ id: t.exposeInt('id'), name: t.exposeString('name') }),
});

const AnalysisRef = builder.objectRef<NonNullable<AssetItem['imageContentAnalysis']>>('ImageContentAnalysis').implement({
  fields: (t) => ({
    aiTags: t.exposeString('aiTags', { nullable: true }),
    aiTitle: t.exposeString('aiTitle', { nullable: true }),
    aiDescription: t.exposeString('aiDescription', { nullable: true }),
    aiDetailedDescription: t.field({ type: JsonRef, nullable: true, resolve: (a) => a.aiDetailedDescription }),
  }),
});

/** AssetItem (spec 2.6); tags and folders are resolved through per-request dataloaders. */
export const AssetItemRef = builder.objectRef<AssetItem>('AssetItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The file-path ID.' }),
    parentIds: t.exposeIntList('parentIds', { description: 'Folder ids from the root down to the file\'s folder.' }),
    folders: t.field({ type: [LibraryFolderRef], description: 'The folders of parentIds, root first.', resolve: (item) => item.parentIds }),
    userId: t.exposeString('userId', { nullable: true, description: 'The owner\'s member id.' }),
    name: t.exposeString('name'),
    downloadUrl: t.exposeString('downloadUrl'),
    source: t.exposeInt('source', { description: '1 web, 2 upload, 3 copy.' }),
    link: t.exposeString('link', { nullable: true }),
    extension: t.exposeString('extension', { nullable: true }),
    duration: t.exposeFloat('duration', { nullable: true, description: 'Milliseconds.' }),
    size: t.exposeFloat('size', { description: 'KB, rounded up.' }),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    score: t.exposeInt('score', { nullable: true }),
    createTime: t.exposeString('createTime'),
    createUser: t.exposeString('createUser', { nullable: true }),
    updateTime: t.exposeString('updateTime'),
    updateUser: t.exposeInt('updateUser', { nullable: true }),
    tags: t.loadableList({
      type: LibraryTagRef,
      load: (fileIds: number[], gql: GqlContext) => gql.core.assetSearch.tagsByFileIds(gql.ctx, fileIds),
      resolve: (item) => item.id,
    }),
    thumbnailAccessUrl: t.exposeString('thumbnailAccessUrl', { nullable: true }),
    imageContentAnalysis: t.field({ type: AnalysisRef, nullable: true, resolve: (item) => item.imageContentAnalysis }),
    publicUrl: t.exposeString('publicUrl'),
  }),
});

const AssetSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; total: number; folders?: Array<{ id: number }>; folderCount?: number }>('AssetSearchResult')
  .implement({
    fields: (t) => ({
      assets: t.field({ type: [AssetItemRef], resolve: (r) => r.assets }),
      total: t.exposeFloat('total', { description: 'Exact number of matching assets.' }),
      folders: t.field({ type: [LibraryFolderRef], nullable: true, description: 'With needChildren.', resolve: (r) => r.folders?.map((f) => f.id) ?? null }),
      folderCount: t.exposeInt('folderCount', { nullable: true }),
    }),
  });

const ShareSearchResultRef = builder
  .objectRef<{ assets: AssetItem[]; totalCount: number; folders: Array<{ id: number; name: string }>; folderCount: number }>('ShareSearchResult')
  .implement({
    fields: (t) => ({
      assets: t.field({ type: [AssetItemRef], resolve: (r) => r.assets }),
      totalCount: t.exposeFloat('totalCount'),
      folders: t.field({ type: [LibraryFolderRef], resolve: (r) => r.folders.map((f) => f.id) }),
      folderCount: t.exposeInt('folderCount'),
    }),
  });

const SortNameEnum = builder.enumType('AssetSortName', { values: ['CREATE_TIME', 'UPDATE_TIME', 'NAME', 'DURATION', 'SIZE', 'SCORE'] as const });
const SortTypeEnum = builder.enumType('SortType', { values: ['ASC', 'DESC'] as const });
const KeywordSearchTypeEnum = builder.enumType('KeywordSearchType', { values: ['DEEP', 'DEFAULT', 'PRECISE', 'DEEP_AND_PRECISE'] as const });

const SortConditionInput = builder.inputType('AssetSortInput', {
  fields: (t) => ({ sortName: t.field({ type: SortNameEnum, required: true }), sortType: t.field({ type: SortTypeEnum }) }),
});

const SearchAssetsInput = builder.inputType('SearchAssetsInput', {
  description: 'EnterpriseSearchReqVO (spec 4.6); the same rules as POST /open/search-assets. Large numbers (bytes, epoch ms) are Float.',
  fields: (t) => ({
    parentId: t.int(),
    needChildren: t.boolean(),
    extensions: t.stringList(),
    color: t.string(),
    areaThreshold: t.int(),
    colorThreshold: t.int(),
    minLength: t.float(),
    maxLength: t.float(),
    minSize: t.float(),
    maxSize: t.float(),
    minHeight: t.int(),
    maxHeight: t.int(),
    minWidth: t.int(),
    maxWidth: t.int(),
    startTime: t.float(),
    endTime: t.float(),
    keywords: t.stringList(),
    keywordSearchType: t.field({ type: KeywordSearchTypeEnum }),
    tags: t.intList(),
    tagOrAnd: t.boolean(),
    createUsers: t.intList(),
    ratings: t.intList(),
    hasLink: t.boolean(),
    hasDesc: t.boolean(),
    link: t.string(),
    desc: t.string(),
    sort: t.field({ type: SortConditionInput }),
    startPoint: t.int(),
    endPoint: t.int(),
    region: t.floatList(),
    customFieldTemplateIds: t.intList(),
    customFieldId: t.int(),
    currentUserId: t.int(),
    w: t.int(),
    h: t.int(),
    mode: t.string({ description: 'fit (default) or crop.' }),
    q: t.int(),
    f: t.string({ description: 'jpg, png or webp.' }),
    bg: t.string({ description: 'Hex RRGGBB without #.' }),
  }),
});

const SearchShareInput = builder.inputType('SearchShareInput', {
  fields: (t) => ({
    linkToken: t.string({ required: true }),
    password: t.string(),
    folderId: t.int(),
    needChildren: t.boolean(),
    isRoot: t.boolean(),
    keyword: t.string(),
    startPoint: t.int(),
    endPoint: t.int(),
  }),
});

const AnalysisInput = builder.inputType('ImageContentAnalysisInput', {
  description: 'Each field optional; null clears it.',
  fields: (t) => ({ aiTags: t.string(), aiTitle: t.string(), aiDescription: t.string(), aiDetailedDescription: t.field({ type: JsonRef, description: 'A JSON array.' }) }),
});

const LibraryFilePatchInput = builder.inputType('LibraryFilePatchInput', {
  description: 'An omitted field is unchanged; null clears description, score, link. tags replaces the file\'s tags.',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    tags: t.stringList(),
    score: t.int(),
    link: t.string(),
    analysis: t.field({ type: AnalysisInput }),
  }),
});

const DeletedLibraryFileRef = builder.objectRef<{ id: number }>('DeletedLibraryFile').implement({ fields: (t) => ({ id: t.exposeInt('id') }) });
const FolderMembershipRef = builder.objectRef<{ folderId: number; userId: number }>('LibraryFolderMembership').implement({
  fields: (t) => ({ folderId: t.exposeInt('folderId'), userId: t.exposeInt('userId') }),
});

/** The file as it is now, after an edit (a deleted or foreign file is not_found before this point). */
async function itemOf(gql: GqlContext, id: number): Promise<AssetItem> {
  const [item] = await gql.core.assetSearch.findItems(gql.ctx, [id], { includeTags: false });
  return item!;
}

builder.queryFields((t) => ({
  searchAssets: t.field({
    type: AssetSearchResultRef,
    description: 'search-assets (spec 4.6): any role of the team may search.',
    args: { input: t.arg({ type: SearchAssetsInput }) },
    resolve: (_root, args, gql) => gql.core.assetSearch.search(gql.ctx, args.input ?? {}, { includeTags: false }),
  }),
  searchShare: t.field({
    type: ShareSearchResultRef,
    description: 'search-share (spec 4.6).',
    args: { input: t.arg({ type: SearchShareInput, required: true }) },
    resolve: (_root, args, gql) => gql.core.shares.search(gql.ctx, args.input),
  }),
  libraryFile: t.field({
    type: AssetItemRef,
    nullable: true,
    description: 'A live file of the team by file-path ID; null when there is none.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, gql) => (await gql.core.assetSearch.findItems(gql.ctx, [args.id], { includeTags: false }))[0] ?? null,
  }),
  libraryFolder: t.field({
    type: LibraryFolderRef,
    nullable: true,
    description: 'A live folder of the team; null when there is none.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, gql) => (await gql.core.library.findFoldersByIds(gql.ctx, [args.id]))[0] ?? null,
  }),
}));

builder.mutationFields((t) => ({
  createLibraryFolder: t.field({
    type: LibraryFolderRef,
    description: 'Needs editable or higher; sibling names are unique among live folders (name_in_use).',
    args: { parentId: t.arg.int(), name: t.arg.string({ required: true }) },
    resolve: (_root, args, gql) => gql.core.folderEdit.create(gql.ctx, { parentId: args.parentId, name: args.name }),
  }),
  renameLibraryFolder: t.field({
    type: LibraryFolderRef,
    description: 'Needs editable or higher; the paths of the whole subtree follow.',
    args: { id: t.arg.int({ required: true }), name: t.arg.string({ required: true }) },
    resolve: (_root, args, gql) => gql.core.folderEdit.rename(gql.ctx, args.id, { name: args.name }),
  }),
  updateLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Sets name, description, tags, score, link and analysis fields; needs editable or higher.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: LibraryFilePatchInput, required: true }) },
    resolve: async (_root, args, gql) => itemOf(gql, (await gql.core.libraryEdit.updateFile(gql.ctx, args.id, args.input)).id),
  }),
  moveLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Moves a file to a folder (null: the root); needs editable or higher.',
    args: { id: t.arg.int({ required: true }), folderId: t.arg.int() },
    resolve: async (_root, args, gql) => itemOf(gql, (await gql.core.libraryEdit.moveFile(gql.ctx, args.id, { folderId: args.folderId ?? null })).id),
  }),
  deleteLibraryFile: t.field({
    type: DeletedLibraryFileRef,
    description: 'Soft-deletes a file; needs editable or higher.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, gql) => gql.core.libraryEdit.deleteFile(gql.ctx, args.id),
  }),
  addLibraryFolderMember: t.field({
    type: FolderMembershipRef,
    description: 'Gives a member access to a folder and its subtree (search currentUserId); needs manage.',
    args: { folderId: t.arg.int({ required: true }), userId: t.arg.int({ required: true }) },
    resolve: (_root, args, gql) => gql.core.folderEdit.addMember(gql.ctx, { folderId: args.folderId, userId: args.userId }),
  }),
  removeLibraryFolderMember: t.field({
    type: FolderMembershipRef,
    description: 'Withdraws a member\'s access to a folder; needs manage.',
    args: { folderId: t.arg.int({ required: true }), userId: t.arg.int({ required: true }) },
    resolve: (_root, args, gql) => gql.core.folderEdit.removeMember(gql.ctx, { folderId: args.folderId, userId: args.userId }),
  }),
}));
