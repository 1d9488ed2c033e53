import { type PurgedEntries, RECYCLE_ENTRY_KINDS, type RecycleEntryView, type RestoredEntries } from '../../core/assets/recycle-bin/recycle-bin.schemas.ts';
import { MAX_PAGE_SIZE } from '../../core/platform/pagination.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import { LIST_BOUNDS, listCost, PAGE_ITEMS_COST, sizeOf } from '../costs.ts';
import { enumFromCore } from '../enums.ts';

const BIN_DOCS = 'docs/library.md "Recycle bin"';

const EntryKindEnum = enumFromCore('RecycleBinEntryKind', {
  description: 'What a recycle-bin entry holds.',
  values: RECYCLE_ENTRY_KINDS,
  describe: { file: 'A file deleted on its own.', folder: 'A folder deleted with its live subfolders and files.' },
});

const RecycleEntryRef = builder.objectRef<RecycleEntryView>('RecycleBinEntry').implement({
  description: `One deletion in the team's recycle bin: a file deleted on its own, or a folder deleted with its subtree (${BIN_DOCS}).`,
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Entry id: what restoreRecycleBinEntries and purgeRecycleBinEntries take.' }),
    kind: t.field({ type: EntryKindEnum, description: 'A file or a folder.', resolve: (entry) => entry.kind }),
    fileId: t.exposeInt('fileId', { nullable: true, description: "The deleted file's file-path ID (kind file); null for a folder." }),
    folderId: t.exposeInt('folderId', { nullable: true, description: "The deleted folder's id (kind folder); null for a file." }),
    name: t.exposeString('name', { description: 'The file or folder name when it was deleted.' }),
    originalPath: t.exposeString('originalPath', { description: 'The folder path it was in when deleted, like `/a/b`; `/` for the library root.' }),
    fileCount: t.exposeInt('fileCount', { description: 'How many files the deletion took (1 for a file; 0 or more for a folder).' }),
    deletedBy: t.exposeInt('deletedBy', { nullable: true, description: 'The member who deleted it; null for a key or the system.' }),
    deletedAt: t.exposeString('deletedAt', { description: 'When it was deleted (RFC 3339, UTC, microseconds).' }),
  }),
});

const RecycleBinPageRef = builder.objectRef<{ items: RecycleEntryView[]; nextAfter: number | null }>('RecycleBinPage').implement({
  description: 'A page of the recycle bin, newest deletion first.',
  fields: (t) => ({
    items: t.field({
      type: [RecycleEntryRef],
      description: 'The entries of this page (recycleBin counts its `first` in the query cost).',
      complexity: PAGE_ITEMS_COST,
      resolve: (p) => p.items,
    }),
    nextAfter: t.exposeInt('nextAfter', { nullable: true, description: 'Pass as `after` for the next page; null on the last page.' }),
  }),
});

const DeletedLibraryFileRef = builder.objectRef<{ id: number; recycleEntryId: number }>('DeletedLibraryFile').implement({
  description: 'What deleteLibraryFile answers: the file is now in the recycle bin.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: "The deleted file's file-path ID." }),
    recycleEntryId: t.exposeInt('recycleEntryId', { description: 'The recycle-bin entry that holds it (to restore or purge it).' }),
  }),
});

const DeletedLibraryFolderRef = builder
  .objectRef<{ id: number; recycleEntryId: number; folderIds: number[]; fileIds: number[] }>('DeletedLibraryFolder')
  .implement({
    description: 'What deleteLibraryFolder answers: the folder, its live subfolders and their files are now one recycle-bin entry.',
    fields: (t) => ({
      id: t.exposeInt('id', { description: "The deleted folder's id." }),
      recycleEntryId: t.exposeInt('recycleEntryId', { description: 'The recycle-bin entry that holds them.' }),
      folderIds: t.exposeIntList('folderIds', { description: 'The folders deleted: this one and its live subfolders, ascending.' }),
      fileIds: t.exposeIntList('fileIds', { description: 'The file-path IDs of the files deleted with them, ascending.' }),
    }),
  });

const RestoredRef = builder.objectRef<RestoredEntries>('RestoredRecycleBinEntries').implement({
  description: 'What a restore brought back.',
  fields: (t) => ({
    fileIds: t.exposeIntList('fileIds', {
      description:
        'File-path IDs back from the bin, ascending: live again (at the library root when their folder is gone), or hidden again for the versions of a version line whose cover came back.',
    }),
    folderIds: t.exposeIntList('folderIds', { description: 'Folder ids now live again, ascending.' }),
  }),
});

const PurgedRef = builder.objectRef<PurgedEntries>('PurgedRecycleBinEntries').implement({
  description: 'What a permanent delete removed.',
  fields: (t) => ({
    entries: t.exposeInt('entries', { description: 'How many recycle-bin entries were removed.' }),
    fileIds: t.exposeIntList('fileIds', { description: 'File-path IDs removed for good, ascending.' }),
    folderIds: t.exposeIntList('folderIds', { description: 'Folder ids removed for good (with their shares and folder subscriptions), ascending.' }),
    releasedObjects: t.exposeInt('releasedObjects', {
      description: 'Stored contents whose bytes left storage because no other file, team, approval or pending import used them.',
    }),
  }),
});

builder.queryFields((t) => ({
  recycleBin: t.field({
    type: RecycleBinPageRef,
    description: `The team's recycle bin, newest deletion first; needs editable or higher (${BIN_DOCS}). Errors: validation_failed (first outside 1-100).`,
    args: {
      first: t.arg.int({ description: "Page size, 1-100; default 50. The query cost counts the page's fields this many times." }),
      after: t.arg.int({ description: 'The `nextAfter` of the previous page.' }),
    },
    complexity: (args) => listCost(sizeOf(args.first, LIST_BOUNDS.recycleBinDefault, MAX_PAGE_SIZE)),
    resolve: (_root, args, gql) => gql.core.assets.recycleBin.list(gql.ctx, withoutNulls(args)),
  }),
}));

builder.mutationFields((t) => ({
  deleteLibraryFile: t.field({
    type: DeletedLibraryFileRef,
    description:
      "Moves a file to the team's recycle bin: it leaves search, shares, product media and signed links until restored; needs editable or higher. Writes MATERIAL_DELETED (deleteAction RECYCLE) and folder DELETE. Errors: not_found.",
    args: { id: t.arg.int({ required: true, description: 'File-path ID of a live file.' }) },
    resolve: (_root, args, gql) => gql.core.assets.recycleBin.deleteFile(gql.ctx, args.id),
  }),
  deleteLibraryFolder: t.field({
    type: DeletedLibraryFolderRef,
    description:
      "Moves a folder with its live subfolders and files to the team's recycle bin as one entry; needs editable or higher. Writes MATERIAL_DELETED (RECYCLE, with top-level folderIds) for each file and folder DELETE. Errors: not_found.",
    args: { id: t.arg.int({ required: true, description: 'Id of a live folder.' }) },
    resolve: (_root, args, gql) => gql.core.assets.recycleBin.deleteFolder(gql.ctx, args.id),
  }),
  restoreRecycleBinEntries: t.field({
    type: RestoredRef,
    description:
      'Restores entries: files to their folders (or the root when the folder is gone), folders under their parent (or the top level) with what their deletion took; needs editable or higher. Writes MATERIAL_ADDED_TO_FOLDER and folder ADD. Errors: not_found, name_in_use (a live folder of the same name is in the way), validation_failed.',
    args: {
      ids: t.arg.intList({
        required: true,
        description: "Recycle-bin entry ids of the team, 1-100, no repeats; all or none are restored (not_found when any is missing or another team's).",
      }),
    },
    resolve: (_root, args, gql) => gql.core.assets.recycleBin.restore(gql.ctx, { ids: args.ids }),
  }),
  purgeRecycleBinEntries: t.field({
    type: PurgedRef,
    description:
      'Deletes entries permanently, and the stored bytes nothing else uses; cannot be undone; needs editable or higher. Writes MATERIAL_DELETED (deleteAction PERMANENT) for each file. Errors: not_found, validation_failed.',
    args: {
      ids: t.arg.intList({
        required: true,
        description: "Recycle-bin entry ids of the team, 1-100, no repeats; all or none are deleted (not_found when any is missing or another team's).",
      }),
    },
    resolve: (_root, args, gql) => gql.core.assets.recycleBin.purge(gql.ctx, { ids: args.ids }),
  }),
  emptyRecycleBin: t.field({
    type: PurgedRef,
    description:
      "Deletes every entry of the team's recycle bin permanently; cannot be undone; needs editable or higher. Writes MATERIAL_DELETED (PERMANENT) for each file.",
    resolve: (_root, _args, gql) => gql.core.assets.recycleBin.empty(gql.ctx),
  }),
}));
