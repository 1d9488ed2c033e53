import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';

const id = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description });
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]*$';

/** Limits of library metadata (docs/library.md); the spec leaves them open. */
export const LIBRARY_LIMITS = {
  nameLength: 255,
  descriptionLength: 1024,
  linkLength: 2048,
  tagNameLength: 64,
  tagsPerFile: 50,
  folderNameLength: 255,
  folderDepth: 32,
} as const;

const importShared = {
  team: id('The team whose library receives the file.'),
  folder: Type.Optional(Type.String({ maxLength: 8192, description: 'Folder path like /a/b, created as needed; "/" or omitted is the library root.' })),
};

/** Input of `asset import --file` (CONTRACT.md); keys are the CLI flag names so details name the flag. */
export const ImportFileInput = Type.Object(
  {
    ...importShared,
    file: Type.String({ minLength: 1, description: 'Path of the file to import.' }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIBRARY_LIMITS.nameLength,
        // a name is one path segment: no slash, no control characters, not blank
        pattern: '^(?=.*\\S)[^/\\u0000-\\u001f\\u007f]+$',
        description: "File name; defaults to the file's own name.",
      }),
    ),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 256, pattern: NO_CONTROL_CHARACTERS }), { maxItems: LIBRARY_LIMITS.tagsPerFile })),
    description: Type.Optional(Type.String({ maxLength: LIBRARY_LIMITS.descriptionLength })),
    score: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'Rating 0-5.' })),
    link: Type.Optional(Type.String({ minLength: 1, maxLength: LIBRARY_LIMITS.linkLength, description: 'An http(s) web page URL.' })),
    user: Type.Optional(id('A member of the team: owner, creator and create/update user of the file.')),
  },
  { $id: 'ImportFileInput', additionalProperties: false },
);
export type ImportFileInput = Static<typeof ImportFileInput>;

/** Input of `asset import --dir` (CONTRACT.md). */
export const ImportDirectoryInput = Type.Object(
  { ...importShared, dir: Type.String({ minLength: 1, description: 'Directory whose tree is imported.' }) },
  { $id: 'ImportDirectoryInput', additionalProperties: false },
);
export type ImportDirectoryInput = Static<typeof ImportDirectoryInput>;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Spec 2.5 media object, for product routes to reference. `duration` is in seconds (milliseconds
 * precision); `downloadUrl` and `downloadUrlExpiresAt` are present only when the caller may
 * download (usable or higher with products:read and products:download).
 */
export const MediaObject = Type.Object(
  {
    id: nullable(Type.Integer({ description: 'File-path ID; null for legacy or unresolved media.' })),
    name: nullable(Type.String()),
    mimeType: nullable(Type.String()),
    size: nullable(Type.String({ pattern: '^\\d+$', description: 'Decimal byte count.' })),
    width: nullable(Type.Number()),
    height: nullable(Type.Number()),
    duration: nullable(Type.Number({ description: 'Seconds.' })),
    previewUrl: nullable(
      Type.String({ format: 'uri', description: 'Signed, expiring link to a derived preview image (or, for images that cannot be derived, the original).' }),
    ),
    downloadUrl: Type.Optional(
      nullable(Type.String({ format: 'uri', description: 'Signed link to the original bytes; expires after 300 s or the key expiry.' })),
    ),
    downloadUrlExpiresAt: Type.Optional(nullable(Type.String({ format: 'date-time' }))),
  },
  { $id: 'MediaObject', additionalProperties: false },
);
export type MediaObject = Static<typeof MediaObject>;

/** A library file as the core returns it to products, search and events. */
export interface LibraryFileView {
  /** The file-path ID. */
  id: number;
  /** The stored object's id (the "asset object"). */
  objectId: number;
  folderId: number | null;
  /** Folder ids from the root down to the file's folder (AssetItem parentIds); [] at the root. */
  folderIds: number[];
  name: string;
  extension: string | null;
  mimeType: string;
  /** Decimal byte count (a bigint column). */
  size: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  description: string | null;
  score: number | null;
  link: string | null;
  source: 1 | 2 | 3;
  ownerUserId: number | null;
  creatorUserId: number | null;
  createUserId: number | null;
  updateUserId: number | null;
  tags: Array<{ id: number; name: string }>;
  createdAt: string;
  updatedAt: string;
}

/** A library folder as the core returns it. */
export interface FolderView {
  id: number;
  parentId: number | null;
  name: string;
  path: string;
  /** Ids from the root down to this folder, this one included. */
  pathIds: number[];
  createdAt: string;
}

/** What `asset import --file` prints (CONTRACT.md). */
export interface ImportedFile {
  id: number;
  assetId: number;
  folderIds: number[];
}

/** What `asset import --dir` prints (CONTRACT.md). */
export interface ImportedDirectory {
  imported: number;
  failed: Array<{ path: string; error: string }>;
}
