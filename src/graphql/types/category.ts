import type { CategoryView } from '../../core/catalogue/category.schemas.ts';
import type { Pagination } from '../../core/platform/pagination.ts';
import { builder, PaginationRef } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { BrandRef } from './brand.ts';

/**
 * Category, loaded in batches per request: `parent`, `children` and `brand` each cost one query
 * per level of a nested selection, however many nodes the level holds.
 */
export const CategoryRef = builder.loadableObject('Category', {
  load: (ids: number[], gql: GqlContext) => gql.core.categories.findByIds(gql.ctx, ids),
  toKey: (category: CategoryView) => category.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id'),
    brandId: t.exposeInt('brandId'),
    parentId: t.exposeInt('parentId', { nullable: true }),
    name: t.exposeString('name'),
    pathKey: t.exposeString('pathKey', { description: 'Names from the root, each preceded by a slash.' }),
    description: t.exposeString('description', { nullable: true }),
    iconEmoji: t.exposeString('iconEmoji', { nullable: true }),
    iconAssetId: t.exposeInt('iconAssetId', { nullable: true }),
    sortOrder: t.exposeInt('sortOrder', { description: 'Zero-based position among live siblings.' }),
    isEnabled: t.exposeBoolean('isEnabled'),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
  }),
});

builder.objectFields(CategoryRef, (t) => ({
  brand: t.field({ type: BrandRef, resolve: (category) => category.brandId }),
  parent: t.field({ type: CategoryRef, nullable: true, resolve: (category) => category.parentId }),
  children: t.loadableList({
    type: CategoryRef,
    description: 'Live children in sibling order.',
    load: (parentIds: number[], gql: GqlContext) => gql.core.categories.findChildrenByParentIds(gql.ctx, parentIds),
    resolve: (category) => category.id,
  }),
}));

const CategoryPageRef = builder.objectRef<{ items: CategoryView[]; pagination: Pagination }>('CategoryPage').implement({
  fields: (t) => ({
    items: t.field({ type: [CategoryRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination }),
  }),
});

const CategoryResultRef = builder.objectRef<{ category: CategoryView; etag: string }>('CategoryResult').implement({
  description: 'A category with the strong ETag to send as ifMatch on the next change.',
  fields: (t) => ({
    category: t.field({ type: CategoryRef, resolve: (r) => r.category }),
    etag: t.exposeString('etag'),
  }),
});

const DeletedCategoryRef = builder.objectRef<{ id: number; etag: string }>('DeletedCategory').implement({
  fields: (t) => ({ id: t.exposeInt('id'), etag: t.exposeString('etag') }),
});

const CategoryCreateInput = builder.inputType('CategoryCreateInput', {
  fields: (t) => ({
    brandId: t.int({ required: true }),
    name: t.string({ required: true }),
    parentId: t.int(),
    sortOrder: t.int(),
    description: t.string(),
    iconEmoji: t.string(),
    iconAssetId: t.int(),
    isEnabled: t.boolean(),
  }),
});

const CategoryPatchInput = builder.inputType('CategoryPatchInput', {
  description: 'brandId is immutable. An omitted field is unchanged; parentId null moves the category to the root.',
  fields: (t) => ({
    name: t.string(),
    parentId: t.int(),
    sortOrder: t.int(),
    description: t.string(),
    iconEmoji: t.string(),
    iconAssetId: t.int(),
    isEnabled: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  categories: t.field({
    type: CategoryPageRef,
    description: 'The flat live tree ordered by brandId, parentId (roots first), sortOrder, id.',
    args: { brandId: t.arg.int(), page: t.arg.int(), pageSize: t.arg.int() },
    resolve: (_root, args, gql) =>
      gql.core.categories.listPage(gql.ctx, { brandId: args.brandId ?? undefined, page: args.page ?? undefined, pageSize: args.pageSize ?? undefined }),
  }),
  category: t.field({
    type: CategoryResultRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.categories.get(gql.ctx, args.id);
      return { category: data, etag };
    },
  }),
}));

builder.mutationFields((t) => ({
  createCategory: t.field({
    type: CategoryResultRef,
    args: { input: t.arg({ type: CategoryCreateInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.categories.create(gql.ctx, args.input, args.idempotencyKey ?? undefined);
      return { category: outcome.body, etag: outcome.etag ?? '' };
    },
  }),
  updateCategory: t.field({
    type: CategoryResultRef,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: CategoryPatchInput, required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.categories.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined);
      return { category: data, etag };
    },
  }),
  deleteCategory: t.field({
    type: DeletedCategoryRef,
    args: { id: t.arg.int({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.categories.softDelete(gql.ctx, args.id, args.ifMatch ?? undefined);
      return { id: data.id, etag };
    },
  }),
}));
