import type { BrandView } from '../../core/catalogue/brand.schemas.ts';
import { builder, PaginationRef } from '../builder.ts';
import type { GqlContext } from '../context.ts';

/** Brand, loaded in batches per request so nested references cost one query. */
export const BrandRef = builder.loadableObject('Brand', {
  load: (ids: number[], gql: GqlContext) => gql.core.brands.findByIds(gql.ctx, ids),
  toKey: (brand: BrandView) => brand.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    code: t.exposeString('code'),
    description: t.exposeString('description', { nullable: true }),
    website: t.exposeString('website', { nullable: true }),
    sortOrder: t.exposeInt('sortOrder'),
    isEnabled: t.exposeBoolean('isEnabled'),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
  }),
});

const BrandPageRef = builder.objectRef<{ items: BrandView[]; pagination: { page: number; pageSize: number; totalCount: number; totalPages: number } }>('BrandPage').implement({
  fields: (t) => ({
    items: t.field({ type: [BrandRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination }),
  }),
});

const BrandResultRef = builder.objectRef<{ brand: BrandView; etag: string }>('BrandResult').implement({
  description: 'A brand with the strong ETag to send as ifMatch on the next change.',
  fields: (t) => ({
    brand: t.field({ type: BrandRef, resolve: (r) => r.brand }),
    etag: t.exposeString('etag'),
  }),
});

const DeletedRef = builder.objectRef<{ id: number; etag: string }>('DeletedBrand').implement({
  fields: (t) => ({ id: t.exposeInt('id'), etag: t.exposeString('etag') }),
});

const BrandCreateInput = builder.inputType('BrandCreateInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    website: t.string(),
    logoUrl: t.string({ description: 'Write-only: never returned.' }),
    sortOrder: t.int(),
    isEnabled: t.boolean(),
  }),
});

const BrandPatchInput = builder.inputType('BrandPatchInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    website: t.string(),
    logoUrl: t.string({ description: 'Write-only: never returned.' }),
    sortOrder: t.int(),
    isEnabled: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  brands: t.field({
    type: BrandPageRef,
    description: 'Live brands ordered by sortOrder then id.',
    args: { page: t.arg.int(), pageSize: t.arg.int() },
    resolve: (_root, args, gql) => gql.core.brands.listPage(gql.ctx, { page: args.page ?? undefined, pageSize: args.pageSize ?? undefined }),
  }),
  brand: t.field({
    type: BrandResultRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.brands.get(gql.ctx, args.id);
      return { brand: data, etag };
    },
  }),
}));

builder.mutationFields((t) => ({
  createBrand: t.field({
    type: BrandResultRef,
    args: { input: t.arg({ type: BrandCreateInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.brands.create(gql.ctx, args.input, args.idempotencyKey ?? undefined);
      return { brand: outcome.body, etag: outcome.etag ?? '' };
    },
  }),
  updateBrand: t.field({
    type: BrandResultRef,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: BrandPatchInput, required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.brands.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined);
      return { brand: data, etag };
    },
  }),
  deleteBrand: t.field({
    type: DeletedRef,
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.brands.softDelete(gql.ctx, args.id, args.ifMatch ?? undefined);
      return { id: data.id, etag };
    },
  }),
}));
