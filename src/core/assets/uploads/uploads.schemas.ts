import type { Readable } from 'node:stream';
import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { ImportFileInput } from '../files/library.schemas.ts';

const importFields = ImportFileInput.properties;

/**
 * What an upload is (docs/library.md "Uploads"): the metadata `asset import --file` takes, less the
 * team (the caller's) and the user (the member who uploads), plus `--pending` and `--version-of`.
 */
export const UploadPlacementInput = Type.Object(
  {
    folder: importFields.folder,
    name: importFields.name,
    tags: importFields.tags,
    description: importFields.description,
    score: importFields.score,
    link: importFields.link,
    pending: Type.Optional(Type.Boolean({ description: 'Hold the file as a pending inbound until it is confirmed (asset import --pending).' })),
    versionOf: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: "Make the file the newest version of this file's line (asset import --version-of)." }),
    ),
    cover: Type.Optional(Type.Boolean({ description: 'With versionOf: make the new version the cover.' })),
  },
  { $id: 'UploadPlacementInput', additionalProperties: false },
);
export type UploadPlacementInput = Static<typeof UploadPlacementInput>;

/** Checksum algorithms a PATCH may name in Upload-Checksum (tus checksum extension). */
export const CHECKSUM_ALGORITHMS = ['sha1', 'sha256', 'md5'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** Settings of uploads (src/config.ts). */
export interface UploadLimits {
  maxFileBytes: number;
  /** null: no quota. */
  teamQuotaBytes: number | null;
  expirySeconds: number;
}

/** What an upload became once its last byte arrived. */
export interface UploadResult {
  /** The new library file's file-path ID; null when held as pending inbound. */
  fileId: number | null;
  /** Its stored object's id; null when held as pending inbound. */
  assetId: number | null;
  /** Folder ids from the root down to its folder; [] at the root or when pending. */
  folderIds: number[];
  /** The pending inbound ids when the upload was `pending`; [] otherwise. */
  pendingIds: number[];
}

/** An upload as the adapters show it. */
export interface UploadView {
  id: string;
  /** Upload-Length. */
  length: number;
  /** Upload-Offset: bytes received so far. */
  offset: number;
  status: 'receiving' | 'completed';
  /** RFC 3339: when an upload still receiving expires (each PATCH moves it). */
  expiresAt: string;
  /** Upload-Metadata as the client sent it at creation, or null. */
  metadataHeader: string | null;
  result: UploadResult | null;
}

/** The bytes of one PATCH. */
export interface UploadChunk {
  /** Upload-Offset the client names: must be the upload's offset. */
  offset: number;
  body: Readable;
  /** Upload-Checksum: the chunk's digest (base64) by an algorithm; the chunk is kept only when it matches. */
  checksum: { algorithm: ChecksumAlgorithm; digest: string } | null;
}
