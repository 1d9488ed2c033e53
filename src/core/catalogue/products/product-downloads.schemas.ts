import { type Static, Type } from 'typebox';

/** Spec 7.1/8: a download of more files or bytes than this is 413 payload_too_large before anything is written. */
export const DOWNLOAD_LIMITS = { files: 100, bytes: 2 * 1024 ** 3 } as const;

export const DownloadRequest = Type.Object(
  {
    assetIds: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
        minItems: 1,
        maxItems: DOWNLOAD_LIMITS.files,
        description: "File-path IDs among the product's media; omitted: every live media file of the product.",
      }),
    ),
  },
  { $id: 'DownloadRequest', additionalProperties: false },
);

export const DownloadRecordView = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Download record id.' }),
    productId: Type.Integer({ description: 'The product.' }),
    fileIds: Type.Array(Type.Integer(), { description: 'The file-path IDs delivered, in ZIP order.' }),
    fileCount: Type.Integer({ description: 'How many files.' }),
    totalBytes: Type.String({ description: 'Bytes of the files before compression (decimal string).' }),
    at: Type.String({ format: 'date-time', description: 'When the download was recorded (RFC 3339, UTC, microseconds).' }),
    actor: Type.String({ description: '`key:<id>`, `member:<id>` or `system:<job>`.' }),
    keyId: Type.Union([Type.Integer(), Type.Null()], { description: 'The API key; null without one.' }),
    role: Type.Union([Type.String(), Type.Null()], { description: "That key's role at the time." }),
    shareId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The product share the download was made through (actor `system:product-share`); null for a download with an API key.',
    }),
  },
  { $id: 'DownloadRecord', additionalProperties: false },
);
export type DownloadRecordView = Static<typeof DownloadRecordView>;
