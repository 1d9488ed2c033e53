import { createContextCache } from '@pothos/core';
import type { CategoryView } from '../../core/catalogue/categories/category.schemas.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { LIST_BOUNDS, listCost, pageCost } from '../costs.ts';
import { DESCENDING_TREE } from '../query-cost.ts';
import { asksBelow } from '../selection.ts';
import { deletionType, etagResultType, idempotencyKeyArg, ifMatchArg, pageArgs, pageType, RFC3339_EXAMPLE, timestampFields, versionedOf } from '../shapes.ts';
import { BrandRef } from './brand.ts';

/**
 * Category, loaded in batches per request: `parent`, `children` and `brand` each cost one query
 * per level of a nested selection, however many nodes the level holds.
 */
export const CategoryRef = builder.loadableObject('Category', {
  description: "A category of a brand's tree (spec 2.3; REST: GET /v1/categories/{id}).",
  load: (ids: number[], gql: GqlContext) => gql.core.catalogue.categories.findByIds(gql.ctx, ids),
  toKey: (category: CategoryView) => category.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Category id.' }),
    brandId: t.exposeInt('brandId', { description: 'The brand whose tree it belongs to; never changes.' }),
    parentId: t.exposeInt('parentId', { nullable: true, description: 'The parent category; null for a root.' }),
    name: t.exposeString('name', { description: '1-64 characters, no slash; unique among live siblings.' }),
    pathKey: t.exposeString('pathKey', { description: 'Names from the root, each preceded by a slash.' }),
    description: t.exposeString('description', { nullable: true, description: 'Free text; null when none.' }),
    iconEmoji: t.exposeString('iconEmoji', { nullable: true, description: 'At most 16 characters; null when none.' }),
    iconAssetId: t.exposeInt('iconAssetId', {
      nullable: true,
      description: 'A category icon asset id (CLI `category-icon import`), not a file-path ID; null when none.',
    }),
    sortOrder: t.exposeInt('sortOrder', { description: 'Zero-based position among live siblings.' }),
    isEnabled: t.exposeBoolean('isEnabled', { description: 'Enabled flag (disabled categories are still listed).' }),
    ...timestampFields(t, RFC3339_EXAMPLE),
  }),
});

builder.objectFields(CategoryRef, (t) => ({
  brand: t.field({ type: BrandRef, description: 'The brand (batched per request).', resolve: (category) => category.brandId }),
  parent: t.field({
    type: CategoryRef,
    nullable: true,
    description: 'The parent category; null for a root.',
    // read with the page when a page asked for its items' parents, else loaded by id in one batch
    resolve: (category, _args, gql) => (category.parentId === null ? null : (pageCategories(gql).get(category.parentId) ?? category.parentId)),
  }),
  children: t.loadableList({
    type: CategoryRef,
    description:
      'Live children in sibling order. Query cost: counted as 5,000 items (a brand holds at most 5,000 categories) once for a whole chain children { children { ... } }, since a tree holds each category once; going up (parent) and down again counts them again.',
    complexity: listCost(LIST_BOUNDS.categoryTree),
    extensions: { [DESCENDING_TREE]: true },
    load: (parentIds: number[], gql: GqlContext) => gql.core.catalogue.categories.findChildrenByParentIds(gql.ctx, parentIds),
    resolve: (category) => category.id,
  }),
}));

/** The categories this request's pages read with their parents (team-scoped as the request), by id. */
const pageCategories = createContextCache((_gql: GqlContext) => new Map<number, CategoryView>());

const ASKS_PARENT = new Set(['parent']);

const CategoryPageRef = pageType('CategoryPage', CategoryRef, { description: 'A page of live categories (REST: GET /v1/categories).', items: 'categories' });

const CategoryResultRef = etagResultType('CategoryResult', CategoryRef, { field: 'category' });

const DeletedCategoryRef = deletionType('DeletedCategory', 'Int', {
  noun: 'category',
  description: "What a deletion answers: the deleted category's id (its subtree went with it) and the ETag it had.",
});

const CategoryCreateInput = builder.inputType('CategoryCreateInput', {
  description: 'A new category (spec 4.3 CategoryCreate).',
  fields: (t) => ({
    brandId: t.int({ required: true, description: 'A live brand of the team.' }),
    name: t.string({ required: true, description: '1-64 characters, no slash, not only whitespace; unique among live siblings.' }),
    parentId: t.int({ description: 'A live category of the same brand; omitted or null makes a root (at most 10 levels).' }),
    sortOrder: t.int({ description: 'Zero-based insertion index among the siblings; omitted appends.' }),
    description: t.string({ description: 'Free text.' }),
    iconEmoji: t.string({ description: 'At most 16 characters.' }),
    iconAssetId: t.int({ description: 'A category icon asset of the team (not a file-path ID).' }),
    isEnabled: t.boolean({ description: 'Default true.' }),
  }),
});

const CategoryPatchInput = builder.inputType('CategoryPatchInput', {
  description: 'brandId is immutable. An omitted field is unchanged; parentId null moves the category to the root.',
  fields: (t) => ({
    name: t.string({ description: '1-64 characters, no slash; unique among live siblings.' }),
    parentId: t.int({ description: 'A live category of the same brand (not in its own subtree); null moves to the root.' }),
    sortOrder: t.int({ description: 'Zero-based index among the destination siblings; omitted appends on a move, keeps the place otherwise.' }),
    description: t.string({ description: 'Free text; null clears.' }),
    iconEmoji: t.string({ description: 'At most 16 characters; null clears.' }),
    iconAssetId: t.int({ description: 'A category icon asset of the team; null clears.' }),
    isEnabled: t.boolean({ description: 'Enabled flag.' }),
  }),
});

builder.queryFields((t) => ({
  categories: t.field({
    type: CategoryPageRef,
    description: 'The flat live tree ordered by brandId, parentId (roots first), sortOrder, id.',
    args: { brandId: t.arg.int({ description: "Only this brand's tree." }), ...pageArgs(t) },
    complexity: pageCost,
    resolve: async (_root, args, gql, info) => {
      if (!asksBelow(info, 'items', ASKS_PARENT)) return gql.core.catalogue.categories.listPage(gql.ctx, withoutNulls(args));
      // the items' parents in the page's own statement, so each item's parent resolves at once
      const { parents, ...page } = await gql.core.catalogue.categories.listPageWithParents(gql.ctx, withoutNulls(args));
      const known = pageCategories(gql);
      for (const category of page.items) known.set(category.id, category);
      for (const category of parents) known.set(category.id, category);
      return page;
    },
  }),
  category: t.field({
    type: CategoryResultRef,
    description: 'One live category with its ETag (REST: GET /v1/categories/{id}). Errors: not_found.',
    args: { id: t.arg.int({ required: true, description: 'Category id.' }) },
    resolve: (_root, args, gql) => gql.core.catalogue.categories.get(gql.ctx, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createCategory: t.field({
    type: CategoryResultRef,
    description:
      'Creates a category (manage role; REST: POST /v1/categories). Errors: forbidden, not_found (brand, parent, icon), validation_failed (depth, node count), name_in_use, idempotency_key_reused.',
    args: {
      input: t.arg({ type: CategoryCreateInput, required: true, description: 'The new category.' }),
      idempotencyKey: idempotencyKeyArg(t),
    },
    resolve: async (_root, args, gql) => versionedOf(await gql.core.catalogue.categories.create(gql.ctx, args.input, args.idempotencyKey ?? undefined)),
  }),
  updateCategory: t.field({
    type: CategoryResultRef,
    description:
      'Changes or moves a category (manage role; REST: PATCH /v1/categories/{id}). Errors: forbidden, not_found, validation_failed (a move into its own subtree, depth), name_in_use, precondition_failed.',
    args: {
      id: t.arg.int({ required: true, description: 'Category id.' }),
      input: t.arg({ type: CategoryPatchInput, required: true, description: 'The changes.' }),
      ifMatch: ifMatchArg(t, 'The ETag last read; refused (precondition_failed) if stale. Omitted: the last write wins.'),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.categories.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined),
  }),
  deleteCategory: t.field({
    type: DeletedCategoryRef,
    description:
      'Soft-deletes a category and its whole subtree unless a live product uses any of them (manage role; REST: DELETE /v1/categories/{id}). Errors: forbidden, not_found, category_has_products, precondition_failed.',
    args: { id: t.arg.int({ required: true, description: 'Category id.' }), ifMatch: ifMatchArg(t) },
    resolve: (_root, args, gql) => gql.core.catalogue.categories.softDelete(gql.ctx, args.id, args.ifMatch ?? undefined),
  }),
}));
