import { type Static, Type } from 'typebox';
import { literalUnion } from '../../platform/schema-shapes.ts';
import { timestampInput } from '../../platform/timestamp-schema.ts';

/** How long a share lives: 7 days unless asked, at most 365 days, never past the creating key's expiry. */
export const SHARE_LIFETIME = { defaultDays: 7, maxDays: 365 } as const;

export const ProductShareCreate = Type.Object(
  {
    expiresAt: Type.Optional(
      timestampInput(
        `When the link stops working (RFC 3339): in the future, at most ${SHARE_LIFETIME.maxDays} days ahead and not after the API key's own expiry. Default: ${SHARE_LIFETIME.defaultDays} days (or the key's expiry, if sooner).`,
      ),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 4,
        maxLength: 128,
        pattern: '^[^\\u0000-\\u001f\\u007f]*$',
        description: 'Visitors must enter it before they see anything; 4-128 characters, not blank. Kept only as a slow hash (scrypt).',
      }),
    ),
    assetIds: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
        minItems: 1,
        maxItems: 100,
        description: "File-path IDs among the product's media the page shows (and downloads); omitted: all of its media, as it is when the page is opened.",
      }),
    ),
    allowDownload: Type.Optional(Type.Boolean({ description: 'Whether the page offers the shown files as one ZIP download. Default true.' })),
  },
  { $id: 'ProductShareCreate', additionalProperties: false },
);

export const SHARE_STATUSES = ['active', 'expired', 'revoked'] as const;

export const ProductShareView = Type.Object(
  {
    id: Type.Integer({ description: 'Share id.' }),
    productId: Type.Integer({ description: 'The shared product.' }),
    url: Type.String({
      format: 'uri',
      description:
        'The page for people without an API key: `{PUBLIC_BASE_URL}/s/{token}`. Anyone with it can open the page until the share expires or is revoked (and knows the password, when set).',
    }),
    status: literalUnion(SHARE_STATUSES, { description: '`active`, `expired` (past expiresAt) or `revoked`.' }),
    expiresAt: Type.String({ format: 'date-time', description: 'When the link stops working (RFC 3339, UTC, microseconds).' }),
    passwordProtected: Type.Boolean({ description: 'Whether the page asks for a password.' }),
    assetIds: Type.Union([Type.Array(Type.Integer()), Type.Null()], { description: "The file-path IDs shown; null: all of the product's media." }),
    allowDownload: Type.Boolean({ description: 'Whether the page offers a ZIP download.' }),
    createdAt: Type.String({ format: 'date-time', description: 'RFC 3339, UTC, microseconds.' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was revoked; null while not revoked.' }),
    actor: Type.String({ description: 'Who created it: `key:<id>` or `member:<id>`.' }),
    keyId: Type.Union([Type.Integer(), Type.Null()], { description: 'The API key that created it.' }),
    role: Type.Union([Type.String(), Type.Null()], { description: "That key's role at the time." }),
  },
  { $id: 'ProductShare', additionalProperties: false },
);
export type ProductShareView = Static<typeof ProductShareView>;

/** A share as the page side needs it (product-share-page.ts). */
export interface ShareAccessRow {
  id: number;
  teamId: number;
  productId: number;
  passwordHash: string | null;
  fileIds: number[] | null;
  allowDownload: boolean;
  showsDrafts: boolean;
  expiresAtMs: number;
  revoked: boolean;
}
