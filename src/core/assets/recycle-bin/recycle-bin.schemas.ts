import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';

/** Limits of the recycle bin's operations (docs/library.md "Recycle bin"). */
export const RECYCLE_BIN_LIMITS = { idsPerCall: 100, pageSize: 100, defaultPageSize: 50 } as const;

const entryId = Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'A recycle-bin entry id of the team.' });

/** Entries to restore or delete permanently, all or none. */
export const RecycleEntryIdsInput = Type.Object(
  { ids: Type.Array(entryId, { minItems: 1, maxItems: RECYCLE_BIN_LIMITS.idsPerCall, uniqueItems: true }) },
  { $id: 'RecycleEntryIdsInput', additionalProperties: false },
);
export type RecycleEntryIdsInput = Static<typeof RecycleEntryIdsInput>;

/** A page of the bin, newest deletion first; `after` is the last entry id of the previous page. */
export const RecycleBinPageInput = Type.Object(
  {
    first: Type.Optional(Type.Integer({ minimum: 1, maximum: RECYCLE_BIN_LIMITS.pageSize })),
    after: Type.Optional(entryId),
  },
  { $id: 'RecycleBinPageInput', additionalProperties: false },
);
export type RecycleBinPageInput = Static<typeof RecycleBinPageInput>;

/** What one recycle-bin entry holds: a file deleted on its own, or a folder with its subtree. */
export const RECYCLE_ENTRY_KINDS = ['file', 'folder'] as const;
export type RecycleEntryKind = (typeof RECYCLE_ENTRY_KINDS)[number];

/** One entry of the bin as the API shows it. */
export interface RecycleEntryView {
  id: number;
  kind: RecycleEntryKind;
  fileId: number | null;
  folderId: number | null;
  name: string;
  /** The folder path the item was in ("/" for the root). */
  originalPath: string;
  /** How many files the deletion took (1 for a file). */
  fileCount: number;
  deletedBy: number | null;
  /** RFC 3339, UTC, microseconds. */
  deletedAt: string;
}

/** What a restore brought back. */
export interface RestoredEntries {
  fileIds: number[];
  folderIds: number[];
}

/** What a permanent delete removed. */
export interface PurgedEntries {
  entries: number;
  fileIds: number[];
  folderIds: number[];
  /** Stored contents whose bytes left storage because nothing else used them. */
  releasedObjects: number;
}
