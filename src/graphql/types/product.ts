import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { MediaObject } from '../../core/assets/library.schemas.ts';
import { effectiveCoverId, type ProductRecord } from '../../core/catalogue/product-projection.ts';
import type { TemplateVersionView } from '../../core/catalogue/template.schemas.ts';
import type { Pagination } from '../../core/platform/pagination.ts';
import { builder, JsonObjectRef, PaginationRef } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { BrandRef } from './brand.ts';
import { CategoryRef } from './category.ts';
import { TemplateVersionRef } from './template.ts';

/**
 * Per-request loaders (Pothos keys the cache on the request's context, so nothing crosses requests
 * or teams). Media objects of every product in a response come from one core.library.mediaFor
 * call, pinned definitions from one core.products.pinnedVersions call.
 */
const mediaLoader = createContextCache(
  (gql: GqlContext) =>
    new DataLoader<number, MediaObject | null>(async (ids) => {
      const media = await gql.core.library.mediaFor(gql.ctx, ids);
      return ids.map((id) => media.get(id) ?? null);
    }),
);

const versionLoader = createContextCache(
  (gql: GqlContext) =>
    new DataLoader<string, TemplateVersionView | null>(async (ids) => {
      const versions = new Map((await gql.core.products.pinnedVersions(gql.ctx, ids)).map((v) => [v.id, v]));
      return ids.map((id) => versions.get(id) ?? null);
    }),
);

/** Media of live files only: references to files deleted since are left out (docs/products.md). */
async function liveMedia(gql: GqlContext, ids: readonly number[]): Promise<MediaObject[]> {
  const loaded = await mediaLoader(gql).loadMany(ids);
  return loaded.filter((m): m is MediaObject => m !== null && !(m instanceof Error));
}

const MediaObjectRef = builder.objectRef<MediaObject>('MediaObject').implement({
  description: 'A library file a product references (spec 2.5); links are signed and expire.',
  fields: (t) => ({
    id: t.exposeInt('id', { nullable: true, description: 'File-path ID.' }),
    name: t.exposeString('name', { nullable: true }),
    mimeType: t.exposeString('mimeType', { nullable: true }),
    size: t.exposeString('size', { nullable: true, description: 'Decimal byte count.' }),
    width: t.exposeFloat('width', { nullable: true }),
    height: t.exposeFloat('height', { nullable: true }),
    duration: t.exposeFloat('duration', { nullable: true, description: 'Seconds.' }),
    previewUrl: t.exposeString('previewUrl', { nullable: true }),
    downloadUrl: t.string({ nullable: true, description: 'Only for keys that may download (usable or higher).', resolve: (m) => m.downloadUrl ?? null }),
    downloadUrlExpiresAt: t.string({ nullable: true, resolve: (m) => m.downloadUrlExpiresAt ?? null }),
  }),
});

/** Product, from its stored record; brand, category, media and the pinned definition come through loaders. */
export const ProductRef = builder.loadableObject('Product', {
  load: (ids: number[], gql: GqlContext) => gql.core.products.findByIds(gql.ctx, ids),
  toKey: (product: ProductRecord) => product.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    spu: t.exposeString('spu', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    status: t.exposeString('status', { description: 'draft or published.' }),
    brandId: t.exposeInt('brandId', { nullable: true }),
    categoryId: t.exposeInt('categoryId', { nullable: true }),
    ownerUserId: t.exposeInt('ownerUserId', { nullable: true }),
    publishedAt: t.exposeString('publishedAt', { nullable: true }),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    draftReason: t.exposeString('draftReason', { nullable: true }),
    templateId: t.exposeString('templateId', { nullable: true }),
    templateVersionId: t.exposeString('templateVersionId', { nullable: true }),
    brand: t.field({ type: BrandRef, nullable: true, resolve: (p) => p.brandId }),
    category: t.field({ type: CategoryRef, nullable: true, resolve: (p) => p.categoryId }),
    templateDefinition: t.field({
      type: TemplateVersionRef,
      nullable: true,
      description: 'The pinned template version; unchanged by later template edits or deletion; null without a template.',
      resolve: (p, _args, gql) => (p.templateVersionId === null ? null : versionLoader(gql).load(p.templateVersionId)),
    }),
    templateFields: t.field({
      type: JsonObjectRef,
      description: 'Values keyed by stable template field ID; image/file values are arrays of MediaObject-shaped objects.',
      resolve: async (p, _args, gql) => {
        const media = await Promise.all(Object.entries(p.mediaFields).map(async ([field, ids]) => [field, await liveMedia(gql, ids)] as const));
        return { ...p.templateFields, ...Object.fromEntries(media) };
      },
    }),
    cover: t.field({
      type: MediaObjectRef,
      nullable: true,
      description: 'The explicit cover, or the first image.',
      resolve: (p, _args, gql) => {
        const id = effectiveCoverId(p);
        return id === null ? null : mediaLoader(gql).load(id);
      },
    }),
    images: t.field({ type: [MediaObjectRef], resolve: (p, _args, gql) => liveMedia(gql, p.imageFileIds) }),
    relatedAssets: t.field({ type: [MediaObjectRef], resolve: (p, _args, gql) => liveMedia(gql, p.relatedFileIds) }),
  }),
});

const ProductPageRef = builder.objectRef<{ items: ProductRecord[]; pagination: Pagination }>('ProductPage').implement({
  fields: (t) => ({
    items: t.field({ type: [ProductRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination }),
  }),
});

const ProductResultRef = builder.objectRef<{ product: ProductRecord; etag: string }>('ProductResult').implement({
  description: 'A product with the strong ETag to send as ifMatch on the next change.',
  fields: (t) => ({
    product: t.field({ type: ProductRef, resolve: (r) => r.product }),
    etag: t.exposeString('etag'),
  }),
});

const DeletedProductRef = builder.objectRef<{ id: number; etag: string }>('DeletedProduct').implement({
  fields: (t) => ({ id: t.exposeInt('id'), etag: t.exposeString('etag') }),
});

const ProductVisibilityRef = builder.objectRef<{ id: number; result: string }>('ProductVisibility').implement({
  fields: (t) => ({ id: t.exposeInt('id'), result: t.exposeString('result', { description: 'visible or not_visible.' }) }),
});

const productInputFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  name: t.string({ description: 'Trimmed, at most 255; may be empty on a draft.' }),
  spu: t.string({ description: 'Trimmed, at most 64; null or blank clears; unique in the library.' }),
  description: t.string(),
  brandId: t.int(),
  categoryId: t.int({ description: 'A live category of the resulting brand.' }),
  ownerUserId: t.int({ description: 'A member of your team.' }),
  templateId: t.string({ description: 'Create: explicit template (wins over bindings). Update: may only repeat the pinned one.' }),
  templateFields: t.field({ type: JsonObjectRef, description: 'Keyed by custom field ID; shallow merge; null clears one value.' }),
  coverAssetId: t.int(),
  imageAssetIds: t.intList({ description: 'At most 100; omitted unchanged, [] clears; the first is the cover when no cover is set.' }),
  relatedAssetIds: t.intList({ description: 'At most 100.' }),
});

const ProductCreateInput = builder.inputType('ProductCreateInput', { fields: productInputFields });
const ProductPatchInput = builder.inputType('ProductPatchInput', {
  description: 'An omitted field is unchanged; null clears it.',
  fields: productInputFields,
});

builder.queryFields((t) => ({
  products: t.field({
    type: ProductPageRef,
    description: 'Products you may see, updatedAt then id descending (REST GET /v1/products without sync).',
    args: {
      page: t.arg.int(),
      pageSize: t.arg.int(),
      search: t.arg.string(),
      brandId: t.arg.int(),
      categoryId: t.arg.int(),
      status: t.arg.string({ description: 'draft or published; never widens what your role may see.' }),
    },
    resolve: async (_root, args, gql) => {
      const query = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null && value !== undefined));
      const result = await gql.core.products.listRecords(gql.ctx, query);
      // without sync=true the core always answers with an ordinary page
      if (result.mode !== 'page') throw new Error('products: expected an ordinary page');
      return result;
    },
  }),
  product: t.field({
    type: ProductResultRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.products.getRecord(gql.ctx, args.id);
      return { product: data, etag };
    },
  }),
  productVisibility: t.field({
    type: [ProductVisibilityRef],
    description: 'visible or not_visible per id for your key (spec 4.5 rule 5).',
    args: { ids: t.arg.intList({ required: true }) },
    resolve: (_root, args, gql) => gql.core.products.visibility(gql.ctx, { ids: args.ids }),
  }),
}));

builder.mutationFields((t) => ({
  createProduct: t.field({
    type: ProductResultRef,
    description: 'Always creates a draft.',
    args: { input: t.arg({ type: ProductCreateInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.products.create(gql.ctx, args.input, args.idempotencyKey ?? undefined);
      return { product: outcome.record, etag: outcome.etag ?? '' };
    },
  }),
  updateProduct: t.field({
    type: ProductResultRef,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: ProductPatchInput, required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.products.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined);
      return { product: outcome.record, etag: outcome.etag };
    },
  }),
  publishProduct: t.field({
    type: ProductResultRef,
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.products.publish(gql.ctx, args.id, args.ifMatch ?? undefined);
      return { product: outcome.record, etag: outcome.etag };
    },
  }),
  unpublishProduct: t.field({
    type: ProductResultRef,
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.products.unpublish(gql.ctx, args.id, args.ifMatch ?? undefined);
      return { product: outcome.record, etag: outcome.etag };
    },
  }),
  deleteProduct: t.field({
    type: DeletedProductRef,
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.products.softDelete(gql.ctx, args.id, args.ifMatch ?? undefined);
      return { id: data.id, etag };
    },
  }),
}));
