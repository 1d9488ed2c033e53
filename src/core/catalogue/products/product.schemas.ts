import { type Static, type TSchema, Type } from 'typebox';
import type { MediaObject } from '../../assets/files/library.schemas.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { literalUnion } from '../../platform/schema-shapes.ts';
import type { TemplateGroupView } from '../templates/template.schemas.ts';

/** Spec 8 and 4.5: product limits. */
export const PRODUCT_LIMITS = {
  name: 255,
  spu: 64,
  /** imageAssetIds and relatedAssetIds each. */
  mediaList: 100,
  /** cover + images + related + every custom media value, per product. */
  mediaTotal: 100,
  visibilityIds: 1000,
} as const;

const resourceId = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description });
const nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });
const mediaList = (what: string) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID }), {
    maxItems: PRODUCT_LIMITS.mediaList,
    uniqueItems: true,
    description: `File-path IDs of live files of your library, in order, no duplicates, at most 100 ${what}. Omitted: unchanged; [] clears.`,
  });

const productFields = {
  name: Type.String({ maxLength: 4096, description: 'Trimmed, then at most 255 characters. May be empty on a draft; required to publish.' }),
  spu: nullable(
    Type.String({ maxLength: 4096 }),
    'The SKU: trimmed, then at most 64 characters; null or blank clears. Unique in the library, soft-deleted products included (409 sku_in_use).',
  ),
  description: nullable(Type.String(), 'Free text.'),
  brandId: nullable(resourceId('A live brand of your library.'), 'The brand; null clears (and then categoryId must be null too).'),
  categoryId: nullable(resourceId('A live category of the resulting brand.'), "Exact category; it must belong to the product's brand."),
  ownerUserId: nullable(resourceId('A member of your team.'), 'The owning member; default null (not the key creator).'),
  templateId: nullable(
    Type.String({ minLength: 1, maxLength: 128 }),
    'Create: a live template of your library; takes precedence over bindings. Patch: may only repeat the pinned template id (422 otherwise).',
  ),
  templateFields: Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.Unknown(), {
    description:
      'Values keyed by stable custom field ID of the pinned template version; shallow merge; null clears one value. Formats per type: docs/products.md.',
  }),
  coverAssetId: nullable(
    resourceId('A file-path ID of a live file of your library.'),
    'Explicit cover; null or omitted on create: the first image is the cover.',
  ),
  imageAssetIds: mediaList('images'),
  relatedAssetIds: mediaList('related assets'),
};

/** Spec 4.5 ProductCreate: always creates a draft; unknown fields rejected. */
export const ProductCreate = Type.Object(
  {
    name: Type.Optional(productFields.name),
    spu: Type.Optional(productFields.spu),
    description: Type.Optional(productFields.description),
    brandId: Type.Optional(productFields.brandId),
    categoryId: Type.Optional(productFields.categoryId),
    ownerUserId: Type.Optional(productFields.ownerUserId),
    templateId: Type.Optional(productFields.templateId),
    templateFields: Type.Optional(productFields.templateFields),
    coverAssetId: Type.Optional(productFields.coverAssetId),
    imageAssetIds: Type.Optional(productFields.imageAssetIds),
    relatedAssetIds: Type.Optional(productFields.relatedAssetIds),
  },
  {
    $id: 'ProductCreate',
    additionalProperties: false,
    examples: [
      { name: 'Trail tent 2P', spu: 'TENT-2P-GRN', brandId: 7, categoryId: 31, imageAssetIds: [1204, 1205], templateFields: { material: 'ripstop nylon' } },
    ],
  },
);
export type ProductCreate = Static<typeof ProductCreate>;

/** ProductPatch (docs/products.md): the create fields, all optional, at least one; the template cannot change. */
export const ProductPatch = Type.Object({ ...ProductCreate.properties }, { $id: 'ProductPatch', additionalProperties: false, minProperties: 1 });
export type ProductPatch = Static<typeof ProductPatch>;

/** The visibility check (spec 4.5 rule 5): 1-1000 product ids. */
export const ProductVisibilityRequest = Type.Object(
  {
    ids: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID }), {
      minItems: 1,
      maxItems: PRODUCT_LIMITS.visibilityIds,
      description: '1-1000 product ids; repeated ids are answered once.',
    }),
  },
  { $id: 'ProductVisibilityRequest', additionalProperties: false },
);

/** Whether a key sees a product (spec 4.5 rule 5). */
export const PRODUCT_VISIBILITIES = ['visible', 'not_visible'] as const;
export type ProductVisibility = (typeof PRODUCT_VISIBILITIES)[number];

export const ProductVisibilityItem = Type.Object(
  {
    id: Type.Integer(),
    result: literalUnion(PRODUCT_VISIBILITIES, {
      description: 'not_visible: deleted, of another library, nonexistent, or a draft for view_only and usable keys. Filters do not apply.',
    }),
  },
  { $id: 'ProductVisibility', additionalProperties: false },
);
export type ProductVisibilityItem = Static<typeof ProductVisibilityItem>;

/** GET /products query (spec 4.5); no defaults here, so that `page` in sync mode can be told from its absence. */
export const ProductListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'Default 1; not available with sync=true.' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'Default 20; values above 100 are capped at 100.' })),
  search: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Trimmed; case-insensitive substring of name, spu, or the library name of any media file of the product.' }),
  ),
  brandId: Type.Optional(resourceId('Only products of this brand.')),
  categoryId: Type.Optional(resourceId('Only products of exactly this category (not descendants).')),
  status: Type.Optional(Type.String({ description: 'draft or published; never widens what your role may see.' })),
  sync: Type.Optional(Type.String({ description: 'true or false (default).' })),
  updatedAfter: Type.Optional(
    Type.String({
      description:
        'Sync only: inclusive lower bound, RFC 3339 with Z or an offset and 0-6 fractional digits; pass the saved syncedUntil unchanged. With changes=true it must lie within the change log retention (PRODUCT_CHANGES_RETENTION_DAYS, 400 days by default): an older one, sent or carried by a cursor, is 422 validation_failed on updatedAfter; then run a full scan (no updatedAfter) and replace your copies with its result.',
    }),
  ),
  cursor: Type.Optional(Type.String({ description: 'Sync only: 1-8192 characters, opaque; the nextCursor of the previous page.' })),
  changes: Type.Optional(
    Type.String({
      description:
        "Sync only, opt-in: true or false (default). With true, a sync page may also carry ProductTombstone items ({id, removed: true, reason, at}) for products that were deleted (reason deleted) or left your role's view (reason hidden: unpublished for view_only and usable keys, or drafts after your key lost sight of drafts), and products whose media files, version lines or category path changed without the product being edited. Every item is in the same (at, id) ascending order under the same syncedUntil bound; apply them in order. Bound in the cursor like every other parameter. Not combinable with search (422). The change log is kept PRODUCT_CHANGES_RETENTION_DAYS (400 days by default): an updatedAfter older than that is 422 on updatedAfter, on the first page and on continuations. Without it, pages are exactly the plain sync pages.",
    }),
  ),
});
export type ProductListQuery = Static<typeof ProductListQuery>;

/** A product's lifecycle status (spec 2.5): always created as a draft, published when complete. */
export const PRODUCT_STATUSES = ['draft', 'published'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

const timestamp = Type.String({ format: 'date-time' });
const mediaRef = Type.Ref('MediaObject');

const summaryProperties = {
  id: Type.Integer(),
  name: Type.String(),
  spu: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  status: literalUnion(PRODUCT_STATUSES),
  brandId: Type.Union([Type.Integer(), Type.Null()]),
  categoryId: Type.Union([Type.Integer(), Type.Null()]),
  ownerUserId: Type.Union([Type.Integer(), Type.Null()]),
  publishedAt: Type.Union([timestamp, Type.Null()], { description: 'null for drafts.' }),
  createdAt: timestamp,
  updatedAt: Type.String({ format: 'date-time', description: 'Six fractional digits, UTC.' }),
  draftReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why a draft cannot be published as it stands; null when it can, and for published products.',
  }),
  templateId: Type.Union([Type.String(), Type.Null()]),
  templateVersionId: Type.Union([Type.String(), Type.Null()], { description: 'The pinned version.' }),
  templateFields: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Values keyed by stable template field ID; image/file values are arrays of media objects; unset fields are omitted.',
  }),
  cover: Type.Union([mediaRef, Type.Null()]),
  images: Type.Array(mediaRef),
  relatedAssets: Type.Array(mediaRef),
};

/** Spec 2.5 ProductSummary (list items). */
export const ProductSummaryView = Type.Object(summaryProperties, { $id: 'ProductSummary', additionalProperties: false });

/** Spec 2.5 ProductDetail: the summary plus the pinned template definition. */
export const ProductDetailView = Type.Object(
  {
    ...summaryProperties,
    templateDefinition: Type.Union([Type.Object({ groups: Type.Array(Type.Ref('TemplateGroup')) }), Type.Null()], {
      description: "The pinned version's groups and fields; unchanged by later template edits or deletion; null without a template.",
    }),
  },
  { $id: 'ProductDetail', additionalProperties: false },
);

/** Why a sync feed item tells the client to remove its copy (docs/products.md "Sync feed"). */
export const PRODUCT_TOMBSTONE_REASONS = ['deleted', 'hidden'] as const;
export type ProductTombstoneReason = (typeof PRODUCT_TOMBSTONE_REASONS)[number];

/**
 * A sync feed entry for a product that went away from the caller (docs/products.md "Sync feed");
 * appears only under changes=true.
 */
export const ProductTombstoneView = Type.Object(
  {
    id: Type.Integer({ description: 'The product id.' }),
    removed: Type.Literal(true, { description: 'Always true: remove your copy of this product.' }),
    reason: literalUnion(PRODUCT_TOMBSTONE_REASONS, {
      description:
        "deleted: the product was deleted. hidden: it left your role's view (unpublished, for keys that see published products only; or a draft, after your key's role lost sight of drafts).",
    }),
    at: Type.String({
      format: 'date-time',
      description: "When it went away, six fractional digits, UTC: the sync order position of this entry (for a role change, the cycle's updatedAfter).",
    }),
  },
  {
    $id: 'ProductTombstone',
    additionalProperties: false,
    description: 'Appears in sync pages only with changes=true: the product with this id is no longer yours to keep.',
  },
);

export interface ProductTombstone {
  id: number;
  removed: true;
  reason: ProductTombstoneReason;
  at: string;
}

export interface ProductSummary {
  id: number;
  name: string;
  spu: string | null;
  description: string | null;
  status: ProductStatus;
  brandId: number | null;
  categoryId: number | null;
  ownerUserId: number | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  draftReason: string | null;
  templateId: string | null;
  templateVersionId: string | null;
  templateFields: Record<string, unknown>;
  cover: MediaObject | null;
  images: MediaObject[];
  relatedAssets: MediaObject[];
}

export interface ProductDetail extends ProductSummary {
  templateDefinition: { groups: TemplateGroupView[] } | null;
}

/** Spec 2.1 synchronization pagination object. */
export interface SyncPagination {
  pageSize: number;
  syncedUntil: string;
  nextCursor: string | null;
  hasMore: boolean;
}
