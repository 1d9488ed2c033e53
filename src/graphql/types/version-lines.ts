import { REMOVE_TYPES, type VersionLineView, type VersionView } from '../../core/assets/versions/version-lines.schemas.ts';
import { builder } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost } from '../costs.ts';
import { enumFromCore } from '../enums.ts';

const LINE_DOCS = 'docs/library.md "Version lines"';

const VersionRef = builder.objectRef<VersionView>('LibraryFileVersion').implement({
  description: 'One version of a version line: a library file with its own file-path ID.',
  fields: (t) => ({
    materialId: t.exposeInt('materialId', { description: "The version's file-path ID (its material id in MATERIAL_VERSION_CHANGED)." }),
    version: t.exposeInt('version', {
      description: 'Its number in the line: 1 for the file the line was made from, then 2, 3, ... in the order versions were added.',
    }),
    isCover: t.exposeBoolean('isCover', { description: 'Whether it is the cover: the one version search, folders, shares and product media show.' }),
    name: t.exposeString('name', { description: 'The file name.' }),
    extension: t.exposeString('extension', { nullable: true, description: 'Lower-case, without the dot.' }),
    byteSize: t.exposeFloat('byteSize', { description: 'Size in bytes.' }),
    createdAt: t.exposeString('createdAt', { description: 'When the file was imported (RFC 3339, UTC, microseconds).' }),
  }),
});

const VersionLineRef = builder.objectRef<VersionLineView>('LibraryFileVersionLine').implement({
  description: `A file's version line (${LINE_DOCS}).`,
  fields: (t) => ({
    lineId: t.exposeInt('lineId', { nullable: true, description: "The line's id; null for a file that is in no line." }),
    coverMaterialId: t.exposeInt('coverMaterialId', { description: "The cover's file-path ID (the file itself when it is in no line)." }),
    versions: t.field({
      type: [VersionRef],
      description: `The versions, oldest first; empty for a file in no line. ${countedAs(LIST_BOUNDS.versionLine, 'an estimate: a line has no fixed maximum')}`,
      complexity: listCost(LIST_BOUNDS.versionLine),
      resolve: (line) => line.versions,
    }),
  }),
});

const RemovedVersionRef = builder
  .objectRef<{ removed: number; recycleEntryId: number | null; line: VersionLineView | null }>('RemovedLibraryFileVersion')
  .implement({
    description: 'What removeLibraryFileVersion answers.',
    fields: (t) => ({
      removed: t.exposeInt('removed', {
        description: "The removed version's file-path ID: now a file of its own (removeType ADD) or in the recycle bin (DELETE).",
      }),
      recycleEntryId: t.exposeInt('recycleEntryId', { nullable: true, description: 'Its recycle-bin entry (removeType DELETE); null for ADD.' }),
      line: t.field({
        type: VersionLineRef,
        nullable: true,
        description: 'The line after the removal; null when it was dissolved (one version was left).',
        resolve: (r) => r.line,
      }),
    }),
  });

const RemoveTypeEnum = enumFromCore('VersionRemoveType', {
  description: 'What becomes of a removed version (6.2 removeType).',
  values: REMOVE_TYPES,
  describe: { ADD: "It stays a live file of its own in the line's folder.", DELETE: 'It goes to the recycle bin.' },
});

builder.queryFields((t) => ({
  libraryFileVersions: t.field({
    type: VersionLineRef,
    description: `A file's version line, for a live file or a hidden version (${LINE_DOCS}). Errors: not_found (unknown, in the recycle bin, or another team's).`,
    args: { id: t.arg.int({ required: true, description: 'File-path ID of a live file or of a version.' }) },
    resolve: (_root, args, gql) => gql.core.assets.versionLines.line(gql.ctx, args.id),
  }),
}));

builder.mutationFields((t) => ({
  addLibraryFileVersion: t.field({
    type: VersionLineRef,
    description:
      "Makes a live file the newest version of another file's line (made now when the file has none); it moves to the line's folder and is hidden, or with makeCover becomes the cover. Needs editable or higher. Writes MATERIAL_VERSION_CHANGED action ADD (or REPLACE_COVER_ON_UPLOAD) and folder DELETE/ADD for what folders stop or start showing. Errors: not_found (id), validation_failed (versionFileId not a live file of the team, the same file, or already in a line).",
    args: {
      id: t.arg.int({ required: true, description: "File-path ID of a live file: the line's cover, or a file in no line yet." }),
      versionFileId: t.arg.int({ required: true, description: 'File-path ID of a live file of the team in no line: the new version.' }),
      makeCover: t.arg.boolean({ description: 'Whether the new version becomes the cover at once (REPLACE_COVER_ON_UPLOAD). Default false (ADD).' }),
    },
    resolve: (_root, args, gql) =>
      gql.core.assets.versionLines.addVersion(gql.ctx, args.id, {
        versionFileId: args.versionFileId,
        ...(args.makeCover != null ? { makeCover: args.makeCover } : {}),
      }),
  }),
  setLibraryFileVersionCover: t.field({
    type: VersionLineRef,
    description:
      'Makes a version the cover of its line; the old cover is hidden. Needs editable or higher. Writes MATERIAL_VERSION_CHANGED action SET_COVER (nothing when it already is the cover). Errors: not_found, validation_failed (id is in no line).',
    args: { id: t.arg.int({ required: true, description: 'File-path ID of a version.' }) },
    resolve: (_root, args, gql) => gql.core.assets.versionLines.setCover(gql.ctx, args.id),
  }),
  removeLibraryFileVersion: t.field({
    type: RemovedVersionRef,
    description:
      'Takes a version out of its line; a removed cover is replaced by the newest remaining version, and a line left with one version is dissolved. Needs editable or higher. Writes MATERIAL_VERSION_CHANGED action REMOVE (coverMaterialId: the removed version, newMaterialId: the newest remaining, removeType, versionGroupDissolved), and MATERIAL_DELETED RECYCLE for DELETE. Errors: not_found, validation_failed (id is in no line).',
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID of a version.' }),
      removeType: t.arg({ type: RemoveTypeEnum, required: true, description: 'ADD: a file of its own; DELETE: to the recycle bin.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.versionLines.removeVersion(gql.ctx, args.id, { removeType: args.removeType }),
  }),
}));
