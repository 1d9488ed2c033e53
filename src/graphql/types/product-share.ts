import { ROLES } from '../../core/access/roles.ts';
import { type ProductShareView, SHARE_STATUSES } from '../../core/catalogue/products/product-shares.schemas.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import { pageCost } from '../costs.ts';
import { enumFromCore, storedValue } from '../enums.ts';
import { KeyRoleEnum } from './key-role.ts';

const ShareStatusEnum = enumFromCore('ProductShareStatus', {
  description: "Whether a share's page still opens.",
  values: SHARE_STATUSES,
  describe: { active: 'The page opens.', expired: 'Past expiresAt: the page answers 410.', revoked: 'Revoked: the page answers 410.' },
});

import { idempotencyKeyArg, pageArgs, pageQuery, pageType, RFC3339_MICROS } from '../shapes.ts';

const ProductShareRef = builder.objectRef<ProductShareView>('ProductShare').implement({
  description: 'A link to a web page showing one product to people without an API key (REST: /v1/products/{id}/shares; docs/products.md "Shares").',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Share id.' }),
    productId: t.exposeInt('productId', { description: 'The shared product.' }),
    url: t.exposeString('url', {
      description:
        'The page: `{PUBLIC_BASE_URL}/s/{token}`; anyone with it can open it until the share expires or is revoked (and knows the password, when set).',
    }),
    status: t.field({ type: ShareStatusEnum, description: 'Whether the page still opens.', resolve: (share) => share.status }),
    expiresAt: t.exposeString('expiresAt', { description: 'When the link stops working (RFC 3339, UTC, microseconds).' }),
    passwordProtected: t.exposeBoolean('passwordProtected', { description: 'Whether the page asks for a password.' }),
    assetIds: t.exposeIntList('assetIds', { nullable: true, description: "The file-path IDs the page shows; null: all of the product's media." }),
    allowDownload: t.exposeBoolean('allowDownload', { description: 'Whether the page offers the shown files as one ZIP.' }),
    createdAt: t.exposeString('createdAt', { description: RFC3339_MICROS }),
    revokedAt: t.exposeString('revokedAt', { nullable: true, description: 'When it was revoked (RFC 3339); null while not revoked.' }),
    actor: t.exposeString('actor', { description: 'Who created it: `key:<id>` or `member:<id>`.' }),
    keyId: t.exposeInt('keyId', { nullable: true, description: 'The API key that created it.' }),
    role: t.field({
      type: KeyRoleEnum,
      nullable: true,
      description: "That key's role at the time.",
      resolve: (share) => (share.role === null ? null : storedValue(ROLES, share.role)),
    }),
  }),
});

const ProductSharePageRef = pageType('ProductSharePage', ProductShareRef, {
  description: "A page of a product's shares, newest first.",
  items: 'shares',
  pagination: 'Ordinary paging.',
});

const ProductShareInput = builder.inputType('ProductShareInput', {
  description: 'The settings of a new share; every field optional (REST: ProductShareCreate).',
  fields: (t) => ({
    expiresAt: t.string({ description: "RFC 3339; in the future, at most 365 days ahead, not after the key's expiry. Default 7 days." }),
    password: t.string({ description: '4-128 characters, not blank; kept only as an scrypt hash.' }),
    assetIds: t.intList({ description: "File-path IDs among the product's media to show (1-100); omitted: all." }),
    allowDownload: t.boolean({ description: 'Whether the page offers a ZIP download. Default true.' }),
  }),
});

builder.queryFields((t) => ({
  productShares: t.field({
    type: ProductSharePageRef,
    description: "A product's shares, newest first; usable or higher (products:share), a draft is not_found for usable. Errors: forbidden, not_found.",
    args: {
      productId: t.arg.int({ required: true, description: 'Product id.' }),
      ...pageArgs(t),
    },
    complexity: pageCost,
    resolve: (_root, args, gql) => gql.core.catalogue.productShares.list(gql.ctx, args.productId, pageQuery(args)),
  }),
}));

builder.mutationFields((t) => ({
  createProductShare: t.field({
    type: ProductShareRef,
    description: 'Shares a product the caller sees; usable or higher (products:share). Errors: forbidden, not_found, validation_failed (settings).',
    args: {
      productId: t.arg.int({ required: true, description: 'Product id.' }),
      input: t.arg({ type: ProductShareInput, description: 'The settings; omitted: defaults.' }),
      idempotencyKey: idempotencyKeyArg(
        t,
        'As the Idempotency-Key header: a repeat within 24 hours answers the same share; other settings with the same key: idempotency_key_reused.',
      ),
    },
    resolve: async (_root, args, gql) =>
      (await gql.core.catalogue.productShares.create(gql.ctx, args.productId, withoutNulls(args.input), args.idempotencyKey ?? undefined)).body,
  }),
  revokeProductShare: t.field({
    type: ProductShareRef,
    description: 'Revokes a share: its page answers 410 from then on; revoking again changes nothing. usable or higher. Errors: forbidden, not_found.',
    args: { productId: t.arg.int({ required: true, description: 'Product id.' }), shareId: t.arg.int({ required: true, description: 'Share id.' }) },
    resolve: (_root, args, gql) => gql.core.catalogue.productShares.revoke(gql.ctx, args.productId, args.shareId),
  }),
}));
