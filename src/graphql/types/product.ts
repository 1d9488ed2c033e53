import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { MediaObject } from '../../core/assets/files/library.schemas.ts';
import type { BrandView } from '../../core/catalogue/brands/brand.schemas.ts';
import type { CategoryView } from '../../core/catalogue/categories/category.schemas.ts';
import { PRODUCT_STATUSES, PRODUCT_VISIBILITIES, type ProductSummary, type ProductVisibilityItem } from '../../core/catalogue/products/product.schemas.ts';
import { mediaIdsOf, type ProductRecord, summaryOf } from '../../core/catalogue/products/product-projection.ts';
import type { TemplateVersionView } from '../../core/catalogue/templates/template.schemas.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import type { Versioned } from '../../core/platform/etag.ts';
import { withoutNulls } from '../args.ts';
import { builder, JsonObjectRef } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { countedAs, LIST_BOUNDS, listCost, pageCost } from '../costs.ts';
import { enumFromCore } from '../enums.ts';
import { childFieldsOf, operationSelects } from '../selection.ts';
import { deletionType, etagResultType, idempotencyKeyArg, ifMatchArg, pageArgs, pageType, RFC3339_MICROS } from '../shapes.ts';
import { BrandRef } from './brand.ts';
import { CategoryRef } from './category.ts';
import { TemplateVersionRef } from './template.ts';

/**
 * Per-request loaders (Pothos keys the cache on the request's context, so nothing crosses requests
 * or teams). Media objects of every product in a response come from one core.assets.library.mediaFor
 * call and the projection is the core's own (summaryOf, as REST), pinned definitions from one
 * core.catalogue.products.pinnedVersions call.
 */
const summaryLoader = createContextCache(
  (gql: GqlContext) =>
    new DataLoader<ProductRecord, ProductSummary, number>(
      async (records) => {
        // one media lookup for every product of the response, then the core's own projection (spec 2.5)
        const links = mediaLinks(gql).downloadUrl ? {} : { downloadUrl: false };
        const media = await gql.core.assets.library.mediaFor(gql.ctx, mediaIdsOf(records), Date.now(), links);
        const loaded = loadedSummaries(gql);
        return records.map((record) => {
          const summary = summaryOf(record, media);
          loaded.set(record.id, summary);
          return summary;
        });
      },
      { cacheKeyFn: (record) => record.id },
    ),
);

/**
 * Whether this request's media objects carry signed download links: only when its operation selects
 * downloadUrl or downloadUrlExpiresAt (each link costs a signature), as the resolvers that load
 * summaries note before they do (until then, and for any other caller, they do).
 */
const mediaLinks = createContextCache((_gql: GqlContext) => ({ downloadUrl: true }));

function noteMediaLinks(gql: GqlContext, info: GraphQLResolveInfo): void {
  mediaLinks(gql).downloadUrl = operationSelects(info, 'downloadUrl') || operationSelects(info, 'downloadUrlExpiresAt');
}

/** The summaries this request has loaded, by product id: their fields then resolve at once, without a promise each. */
const loadedSummaries = createContextCache((_gql: GqlContext) => new Map<number, ProductSummary>());

type SummaryField = 'templateFields' | 'cover' | 'images' | 'relatedAssets';
const SUMMARY_FIELDS = new Set<string>(['templateFields', 'cover', 'images', 'relatedAssets']);

/** A field of a product's summary: at once when this request has loaded it, else through the batched loader. */
function summaryField<K extends SummaryField>(
  product: ProductRecord,
  gql: GqlContext,
  info: GraphQLResolveInfo,
  field: K,
): ProductSummary[K] | Promise<ProductSummary[K]> {
  const loaded = loadedSummaries(gql).get(product.id);
  if (loaded) return loaded[field];
  noteMediaLinks(gql, info);
  return summaryLoader(gql)
    .load(product)
    .then((summary) => summary[field]);
}

/**
 * The brands and categories this request has loaded for its products, by id (null: none such for
 * this caller, or deleted): their brand and category fields then resolve at once, without a loader
 * promise each. The read is the core's team-scoped batch read, as the types' own loaders are.
 */
const loadedBrands = createContextCache((_gql: GqlContext) => new Map<number, BrandView | null>());
const loadedCategories = createContextCache((_gql: GqlContext) => new Map<number, CategoryView | null>());

/**
 * The brands and categories of a page's items in one read (categories.findWithBrands), kept for
 * their fields and primed into the types' own loaders for the rest of the operation. A failure
 * (a role without brands:read, say) loads nothing here: each field then loads through its loader
 * and answers the failure as before.
 */
async function preloadReferences(gql: GqlContext, items: ProductRecord[], want: { brands: boolean; categories: boolean }): Promise<void> {
  const idsOf = (pick: (p: ProductRecord) => number | null) => [...new Set(items.map(pick))].filter((id): id is number => id !== null);
  const brandIds = want.brands ? idsOf((p) => p.brandId) : [];
  const categoryIds = want.categories ? idsOf((p) => p.categoryId) : [];
  let found: { brands: BrandView[]; categories: CategoryView[] };
  try {
    found = await gql.core.catalogue.categories.findWithBrands(gql.ctx, brandIds, categoryIds);
  } catch {
    return;
  }
  fill(brandIds, found.brands, loadedBrands(gql), BrandRef.getDataloader(gql));
  fill(categoryIds, found.categories, loadedCategories(gql), CategoryRef.getDataloader(gql));
}

/** Each asked id's object, or null when it was not found (none such for this caller, or deleted). */
function fill<T extends { id: number }>(ids: number[], found: T[], into: Map<number, T | null>, loader: DataLoader<number, T | null>): void {
  const byId = new Map(found.map((item) => [item.id, item]));
  for (const id of ids) {
    const value = byId.get(id) ?? null;
    into.set(id, value);
    loader.prime(id, value);
  }
}

/** A product's brand or category: the loaded object at once, or its id for the type's loader. */
function loadedOr<T>(loaded: Map<number, T | null>, id: number | null): T | number | null {
  if (id === null) return null;
  const value = loaded.get(id);
  return value === undefined ? id : value;
}

/**
 * Loads concurrently what the products of a page's items (or of product(id)) ask for: their
 * summaries (media and template fields) in one batch, their pinned definitions in one batch, their
 * brands and categories in one read. Nothing fails here (loadMany never rejects): a failure stays
 * the fields' own.
 */
async function preloadItems(gql: GqlContext, info: GraphQLResolveInfo, items: ProductRecord[], child: 'items' | 'product'): Promise<void> {
  const fields = childFieldsOf(info, child);
  const loads: Array<Promise<unknown>> = [];
  if ([...SUMMARY_FIELDS].some((field) => fields.has(field))) {
    noteMediaLinks(gql, info);
    loads.push(summaryLoader(gql).loadMany(items));
  }
  if (fields.has('templateDefinition')) {
    const ids = [...new Set(items.map((p) => p.templateVersionId))].filter((id): id is string => id !== null);
    if (ids.length > 0) loads.push(versionLoader(gql).loadMany(ids));
  }
  if (fields.has('brand') || fields.has('category'))
    loads.push(preloadReferences(gql, items, { brands: fields.has('brand'), categories: fields.has('category') }));
  await Promise.all(loads);
}

const versionLoader = createContextCache(
  (gql: GqlContext) =>
    new DataLoader<string, TemplateVersionView | null>(async (ids) => {
      const versions = new Map((await gql.core.catalogue.products.pinnedVersions(gql.ctx, ids)).map((v) => [v.id, v]));
      const loaded = loadedVersions(gql);
      return ids.map((id) => {
        const version = versions.get(id) ?? null;
        loaded.set(id, version);
        return version;
      });
    }),
);

/** The pinned versions this request has loaded, by id: templateDefinition then resolves at once. */
const loadedVersions = createContextCache((_gql: GqlContext) => new Map<string, TemplateVersionView | null>());

function templateDefinitionOf(product: ProductRecord, gql: GqlContext): TemplateVersionView | null | Promise<TemplateVersionView | null> {
  if (product.templateVersionId === null) return null;
  const loaded = loadedVersions(gql).get(product.templateVersionId);
  return loaded === undefined ? versionLoader(gql).load(product.templateVersionId) : loaded;
}

const MediaObjectRef = builder.objectRef<MediaObject>('MediaObject').implement({
  description: 'A library file a product references (spec 2.5); links are signed and expire.',
  fields: (t) => ({
    id: t.exposeInt('id', {
      nullable: true,
      description: 'File-path ID; null for unresolved media (the file is in the recycle bin or deleted), whose other fields are null too.',
    }),
    name: t.exposeString('name', { nullable: true, description: 'The file name; null when the file is no longer in the library.' }),
    mimeType: t.exposeString('mimeType', { nullable: true, description: 'MIME type by content.' }),
    size: t.exposeString('size', { nullable: true, description: 'Decimal byte count.' }),
    width: t.exposeFloat('width', { nullable: true, description: 'Pixels; null for non-images.' }),
    height: t.exposeFloat('height', { nullable: true, description: 'Pixels; null for non-images.' }),
    duration: t.exposeFloat('duration', { nullable: true, description: 'Seconds.' }),
    previewUrl: t.exposeString('previewUrl', {
      nullable: true,
      description: "Signed preview link (derived preview 3600 s, original-image fallback 300 s, never past the key's expiry); null when unavailable.",
    }),
    downloadUrl: t.string({ nullable: true, description: 'Only for keys that may download (usable or higher).', resolve: (m) => m.downloadUrl ?? null }),
    downloadUrlExpiresAt: t.string({
      nullable: true,
      description: 'When downloadUrl expires (RFC 3339); null without one.',
      resolve: (m) => m.downloadUrlExpiresAt ?? null,
    }),
  }),
});

export const ProductStatusEnum = enumFromCore('ProductStatus', {
  description: "A product's lifecycle status (spec 2.5).",
  values: PRODUCT_STATUSES,
  describe: { draft: 'Not published: seen by editable and manage keys only; may be incomplete.', published: 'Complete and seen by every key of the team.' },
});

const VisibilityEnum = enumFromCore('ProductVisibilityResult', {
  description: 'Whether the calling key sees a product (spec 4.5 rule 5).',
  values: PRODUCT_VISIBILITIES,
  describe: { visible: 'The key sees it.', not_visible: 'Deleted, of another library, nonexistent, or a draft for view_only and usable keys.' },
});

/** Product, from its stored record; brand, category, media and the pinned definition come through loaders. */
export const ProductRef = builder.loadableObject('Product', {
  description: 'A product (spec 2.5; REST: GET /v1/products/{id}); view_only and usable keys see published products only.',
  load: (ids: number[], gql: GqlContext) => gql.core.catalogue.products.findByIds(gql.ctx, ids),
  toKey: (product: ProductRecord) => product.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Product id.' }),
    name: t.exposeString('name', { description: 'At most 255 characters; may be empty on a draft.' }),
    spu: t.exposeString('spu', {
      nullable: true,
      description: 'The SKU (spec: `spu`), at most 64, unique in the library (deleted products still reserve theirs); null when none.',
    }),
    description: t.exposeString('description', { nullable: true, description: 'Free text; null when none.' }),
    status: t.field({ type: ProductStatusEnum, description: 'Draft or published.', resolve: (product) => product.status }),
    brandId: t.exposeInt('brandId', { nullable: true, description: 'The brand; null when none.' }),
    categoryId: t.exposeInt('categoryId', { nullable: true, description: 'A category of the brand; null when none.' }),
    ownerUserId: t.exposeInt('ownerUserId', { nullable: true, description: 'The owning member; null when none.' }),
    publishedAt: t.exposeString('publishedAt', {
      nullable: true,
      description: 'When it was last published (RFC 3339, UTC, microseconds); null while a draft.',
    }),
    createdAt: t.exposeString('createdAt', { description: RFC3339_MICROS }),
    updatedAt: t.exposeString('updatedAt', { description: 'RFC 3339, UTC, microseconds; the sync order.' }),
    draftReason: t.exposeString('draftReason', {
      nullable: true,
      description: 'Why it is a draft (what publishing would refuse); null when published or complete.',
    }),
    templateId: t.exposeString('templateId', { nullable: true, description: 'The template whose version is pinned; null without one.' }),
    templateVersionId: t.exposeString('templateVersionId', { nullable: true, description: 'The pinned template version, fixed at creation.' }),
    brand: t.field({
      type: BrandRef,
      nullable: true,
      description: 'The brand (batched per request); null when none or deleted.',
      resolve: (p, _args, gql) => loadedOr(loadedBrands(gql), p.brandId),
    }),
    category: t.field({
      type: CategoryRef,
      nullable: true,
      description: 'The category (batched per request); null when none or deleted.',
      resolve: (p, _args, gql) => loadedOr(loadedCategories(gql), p.categoryId),
    }),
    templateDefinition: t.field({
      type: TemplateVersionRef,
      nullable: true,
      description: 'The pinned template version; unchanged by later template edits or deletion; null without a template.',
      resolve: (p, _args, gql) => templateDefinitionOf(p, gql),
    }),
    templateFields: t.field({
      type: JsonObjectRef,
      description:
        'Values keyed by stable template field ID (keys sorted, as in REST); image/file values are arrays of MediaObject-shaped objects (unresolved, with id null, for files no longer live).',
      resolve: (p, _args, gql, info) => summaryField(p, gql, info, 'templateFields'),
    }),
    cover: t.field({
      type: MediaObjectRef,
      nullable: true,
      description: 'The explicit cover, or the first image; null when there is none or its file is gone.',
      resolve: (p, _args, gql, info) => summaryField(p, gql, info, 'cover'),
    }),
    images: t.field({
      type: [MediaObjectRef],
      description: `Images in order (live library files only). ${countedAs(LIST_BOUNDS.productMedia, 'a product has at most 100')}`,
      complexity: listCost(LIST_BOUNDS.productMedia),
      resolve: (p, _args, gql, info) => summaryField(p, gql, info, 'images'),
    }),
    relatedAssets: t.field({
      type: [MediaObjectRef],
      description: `Related files in order (live library files only). ${countedAs(LIST_BOUNDS.productMedia, 'a product has at most 100')}`,
      complexity: listCost(LIST_BOUNDS.productMedia),
      resolve: (p, _args, gql, info) => summaryField(p, gql, info, 'relatedAssets'),
    }),
  }),
});

const ProductPageRef = pageType('ProductPage', ProductRef, { description: 'A page of products (REST: GET /v1/products).', items: 'products' });

export const ProductResultRef = etagResultType('ProductResult', ProductRef, { field: 'product' });

const DeletedProductRef = deletionType('DeletedProduct', 'Int', { noun: 'product', description: 'What a deletion answers.' });

const ProductVisibilityRef = builder.objectRef<ProductVisibilityItem>('ProductVisibility').implement({
  description: 'Whether the calling key sees a product (REST: POST /v1/products/visibility).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The product id asked about.' }),
    result: t.field({ type: VisibilityEnum, description: 'Whether the key sees it.', resolve: (item) => item.result }),
  }),
});

const productInputFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  name: t.string({ description: 'Trimmed, at most 255; may be empty on a draft.' }),
  spu: t.string({ description: 'Trimmed, at most 64; null or blank clears; unique in the library.' }),
  description: t.string({ description: 'Free text.' }),
  brandId: t.int({ description: 'A live brand of the team.' }),
  categoryId: t.int({ description: 'A live category of the resulting brand.' }),
  ownerUserId: t.int({ description: 'A member of your team.' }),
  templateId: t.string({ description: 'Create: explicit template (wins over bindings). Update: may only repeat the pinned one.' }),
  templateFields: t.field({ type: JsonObjectRef, description: 'Keyed by custom field ID; shallow merge; null clears one value.' }),
  coverAssetId: t.int({ description: 'A file-path ID among imageAssetIds to show first.' }),
  imageAssetIds: t.intList({ description: 'At most 100; omitted unchanged, [] clears; the first is the cover when no cover is set.' }),
  relatedAssetIds: t.intList({ description: 'At most 100.' }),
});

const ProductCreateInput = builder.inputType('ProductCreateInput', {
  description: 'A new product (spec 4.5 ProductCreate); always a draft.',
  fields: productInputFields,
});
const ProductPatchInput = builder.inputType('ProductPatchInput', {
  description: 'An omitted field is unchanged; null clears it.',
  fields: productInputFields,
});

builder.queryFields((t) => ({
  products: t.field({
    type: ProductPageRef,
    description: 'Products you may see, updatedAt then id descending (REST GET /v1/products without sync).',
    args: {
      ...pageArgs(t),
      search: t.arg.string({ description: 'Name or spu contains this text (case-insensitive).' }),
      brandId: t.arg.int({ description: 'Only this brand.' }),
      categoryId: t.arg.int({ description: 'Only products of exactly this category, not its descendants (as REST `categoryId`).' }),
      status: t.arg({ type: ProductStatusEnum, description: 'Only products in this status; never widens what your role may see.' }),
    },
    complexity: pageCost,
    resolve: async (_root, args, gql, info) => {
      const query = withoutNulls(args);
      const result = await gql.core.catalogue.products.list(gql.ctx, query);
      // without sync=true the core always answers with an ordinary page
      if (result.mode !== 'page') throw new Error('products: expected an ordinary page');
      // what the items ask for, in the batches they would have made, before they resolve
      const page = await collectPage(gql.ctx, result.page);
      await preloadItems(gql, info, page.items, 'items');
      return page;
    },
  }),
  product: t.field({
    type: ProductResultRef,
    description: 'One product with its ETag (REST: GET /v1/products/{id}); a draft is not_found for view_only and usable keys.',
    args: { id: t.arg.int({ required: true, description: 'Product id.' }) },
    resolve: async (_root, args, gql, info) => {
      const product = await gql.core.catalogue.products.get(gql.ctx, args.id);
      await preloadItems(gql, info, [product.data], 'product');
      return product;
    },
  }),
  productVisibility: t.field({
    type: [ProductVisibilityRef],
    description: 'visible or not_visible per id for your key (spec 4.5 rule 5). Query cost: counted once per id sent.',
    args: { ids: t.arg.intList({ required: true, description: 'Product ids (up to 100).' }) },
    complexity: (args) => listCost(Array.isArray(args.ids) ? args.ids.length : LIST_BOUNDS.idsPerCall),
    resolve: (_root, args, gql) => gql.core.catalogue.products.visibility(gql.ctx, { ids: args.ids }),
  }),
}));

builder.mutationFields((t) => ({
  createProduct: t.field({
    type: ProductResultRef,
    description:
      'Always creates a draft and pins the resolved template version (editable role; REST: POST /v1/products). Errors: forbidden, validation_failed, sku_in_use, not_found (brand, category, template), idempotency_key_reused.',
    args: { input: t.arg({ type: ProductCreateInput, required: true, description: 'The new product.' }), idempotencyKey: idempotencyKeyArg(t) },
    resolve: async (_root, args, gql) => {
      const created = await gql.core.catalogue.products.create(gql.ctx, args.input, args.idempotencyKey ?? undefined);
      return { data: created.body, etag: created.etag ?? '' } satisfies Versioned<ProductRecord>;
    },
  }),
  updateProduct: t.field({
    type: ProductResultRef,
    description:
      'Changes a product (editable role; REST: PATCH /v1/products/{id}); a published product must stay complete. Errors: forbidden, not_found, validation_failed, sku_in_use, precondition_failed.',
    args: {
      id: t.arg.int({ required: true, description: 'Product id.' }),
      input: t.arg({ type: ProductPatchInput, required: true, description: 'The changes.' }),
      ifMatch: ifMatchArg(t, 'The ETag last read; refused (precondition_failed) if stale.'),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.products.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined),
  }),
  publishProduct: t.field({
    type: ProductResultRef,
    description:
      'Publishes a complete product (editable role; REST: POST /v1/products/{id}/publish). Errors: forbidden, not_found, validation_failed (details name what is missing), precondition_failed.',
    args: { id: t.arg.int({ required: true, description: 'Product id.' }), ifMatch: ifMatchArg(t) },
    resolve: (_root, args, gql) => gql.core.catalogue.products.publish(gql.ctx, args.id, args.ifMatch ?? undefined),
  }),
  unpublishProduct: t.field({
    type: ProductResultRef,
    description: 'Back to draft (editable role; REST: POST /v1/products/{id}/unpublish). Errors: forbidden, not_found, precondition_failed.',
    args: { id: t.arg.int({ required: true, description: 'Product id.' }), ifMatch: ifMatchArg(t) },
    resolve: (_root, args, gql) => gql.core.catalogue.products.unpublish(gql.ctx, args.id, args.ifMatch ?? undefined),
  }),
  deleteProduct: t.field({
    type: DeletedProductRef,
    description:
      'Soft-deletes a product; its spu stays reserved (editable role; REST: DELETE /v1/products/{id}). Errors: forbidden, not_found, precondition_failed.',
    args: { id: t.arg.int({ required: true, description: 'Product id.' }), ifMatch: ifMatchArg(t) },
    resolve: (_root, args, gql) => gql.core.catalogue.products.softDelete(gql.ctx, args.id, args.ifMatch ?? undefined),
  }),
}));
