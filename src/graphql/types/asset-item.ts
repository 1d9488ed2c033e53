import { type AssetItem, AssetItem as AssetItemSchema } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { countedAs, LIST_BOUNDS, listCost } from '../costs.ts';
import { describedBy } from '../schema-descriptions.ts';
import { FileValidityRef } from './file-validity.ts';
import { AnalysisInput, AnalysisRef } from './image-content-analysis.ts';
import { LibraryFolderRef } from './library-folder.ts';
import { LibraryTagRef } from './library-tag.ts';

const fromItem = describedBy(AssetItemSchema);

/** AssetItem (spec 2.6), its tags as the core read them; folders and validity are resolved through per-request dataloaders. */
export const AssetItemRef = builder.objectRef<AssetItem>('AssetItem').implement({
  description: 'A library file as search results show it (spec 2.6 AssetItem; REST: POST /open/search-assets).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The file-path ID.' }),
    parentIds: t.exposeIntList('parentIds', { description: "Folder ids from the root down to the file's folder." }),
    folders: t.field({
      type: [LibraryFolderRef],
      description: `The folders of parentIds, root first. ${countedAs(LIST_BOUNDS.folderDepth, 'folders nest at most 32 levels')}`,
      complexity: listCost(LIST_BOUNDS.folderDepth),
      resolve: (item) => item.parentIds,
    }),
    userId: t.exposeString('userId', { nullable: true, description: "The owner's member id." }),
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
    tags: t.field({
      type: [LibraryTagRef],
      description: `${fromItem('tags').description} ${countedAs(LIST_BOUNDS.fileTags, 'a file has at most 50 tags')}`,
      complexity: listCost(LIST_BOUNDS.fileTags),
      // read with the item by every core operation that returns one
      resolve: (item) => item.tags,
    }),
    thumbnailAccessUrl: t.exposeString('thumbnailAccessUrl', { nullable: true, ...fromItem('thumbnailAccessUrl') }),
    imageContentAnalysis: t.field({ type: AnalysisRef, nullable: true, ...fromItem('imageContentAnalysis'), resolve: (item) => item.imageContentAnalysis }),
    publicUrl: t.exposeString('publicUrl', fromItem('publicUrl')),
    validity: t.loadable({
      type: FileValidityRef,
      nullable: true,
      description: "The file's validity period and status (GraphQL only; not part of the /open AssetItem). Null only when the file was deleted meanwhile.",
      load: (fileIds: number[], gql: GqlContext) => gql.core.assets.fileValidity.forFiles(gql.ctx, fileIds),
      sort: (validity) => validity.materialId,
      resolve: (item) => item.id,
    }),
  }),
});

const LibraryFilePatchInput = builder.inputType('LibraryFilePatchInput', {
  description: "An omitted field is unchanged; null clears description, score, link. tags replaces the file's tags.",
  fields: (t) => ({
    name: t.string({ description: '1-255 characters, no slash or control characters.' }),
    description: t.string({ description: 'Free text; null clears.' }),
    tags: t.stringList({ description: "The file's tags by name (created as needed), at most 50; replaces the current ones." }),
    score: t.int({ description: 'Rating 0-5; null clears.' }),
    link: t.string({ description: 'An http(s) URL; null clears.' }),
    analysis: t.field({ type: AnalysisInput, description: 'Image analysis fields.' }),
  }),
});

builder.queryFields((t) => ({
  libraryFile: t.field({
    type: AssetItemRef,
    nullable: true,
    description: 'A live file of the team by file-path ID; null when there is none.',
    args: { id: t.arg.int({ required: true, description: 'File-path ID.' }) },
    resolve: async (_root, args, gql) => (await gql.core.assets.assetSearch.findItems(gql.ctx, [args.id]))[0] ?? null,
  }),
}));

builder.mutationFields((t) => ({
  updateLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Sets name, description, tags, score, link and analysis fields; needs editable or higher.',
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID.' }),
      input: t.arg({ type: LibraryFilePatchInput, required: true, description: 'The changes.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.libraryEdit.updateFile(gql.ctx, args.id, args.input),
  }),
  moveLibraryFile: t.field({
    type: AssetItemRef,
    description: 'Moves a file to a folder (null: the root); needs editable or higher.',
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID.' }),
      folderId: t.arg.int({ description: 'A live folder of the team; null or omitted: the root.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.libraryEdit.moveFile(gql.ctx, args.id, { folderId: args.folderId ?? null }),
  }),
  transferLibraryFile: t.field({
    type: AssetItemRef,
    description:
      'Transfers a file to another member of the team (its file-path ID stays); needs editable or higher. Writes a MATERIAL_METADATA_UPDATED OWNER event. Errors: not_found, validation_failed (ownerUserId not a member of the team).',
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID.' }),
      ownerUserId: t.arg.int({ required: true, description: 'Member id of the new owner, of the same team.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.libraryEdit.transferOwnership(gql.ctx, args.id, { ownerUserId: args.ownerUserId }),
  }),
}));
