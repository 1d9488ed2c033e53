import type { FolderView } from '../../core/assets/files/library.schemas.ts';
import { builder } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { RFC3339_MICROS } from '../shapes.ts';

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

const FolderMembershipRef = builder.objectRef<{ folderId: number; userId: number }>('LibraryFolderMembership').implement({
  description: "A member's access to a folder and its subtree (search-assets currentUserId).",
  fields: (t) => ({ folderId: t.exposeInt('folderId', { description: 'The folder.' }), userId: t.exposeInt('userId', { description: 'The member.' }) }),
});

builder.queryFields((t) => ({
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
    args: {
      parentId: t.arg.int({ description: 'A live folder of the team; omitted: top level (at most 32 levels).' }),
      name: t.arg.string({ required: true, description: 'One path segment, no slash.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.create(gql.ctx, { parentId: args.parentId, name: args.name }),
  }),
  renameLibraryFolder: t.field({
    type: LibraryFolderRef,
    description: 'Needs editable or higher; the paths of the whole subtree follow.',
    args: {
      id: t.arg.int({ required: true, description: 'Folder id.' }),
      name: t.arg.string({ required: true, description: 'The new name: one path segment, no slash.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.rename(gql.ctx, args.id, { name: args.name }),
  }),
  addLibraryFolderMember: t.field({
    type: FolderMembershipRef,
    description: 'Gives a member access to a folder and its subtree (search currentUserId); needs manage.',
    args: { folderId: t.arg.int({ required: true, description: 'Folder id.' }), userId: t.arg.int({ required: true, description: 'Member id of the team.' }) },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.addMember(gql.ctx, { folderId: args.folderId, userId: args.userId }),
  }),
  removeLibraryFolderMember: t.field({
    type: FolderMembershipRef,
    description: "Withdraws a member's access to a folder; needs manage.",
    args: { folderId: t.arg.int({ required: true, description: 'Folder id.' }), userId: t.arg.int({ required: true, description: 'Member id of the team.' }) },
    resolve: (_root, args, gql) => gql.core.assets.folderEdit.removeMember(gql.ctx, { folderId: args.folderId, userId: args.userId }),
  }),
}));
