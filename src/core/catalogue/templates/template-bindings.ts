import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, type FieldIssue } from '../../platform/errors.ts';
import { liveBrandIdsAmong } from '../brands/brands.queries.ts';
import { liveCategoryBrandsAmong } from '../categories/categories.queries.ts';
import {
  type BindingKind,
  bindCategoryIfUnbound,
  bindTo,
  brandBindingsOf,
  deleteAllBindings,
  deleteBindingsExcept,
  touchTemplatesLosingBindings,
} from './template-bindings.queries.ts';
import { clearOtherLibraryDefaults, lockLibraryDefault, lockLibraryDefaultForShare, setLibraryDefault } from './templates.queries.ts';

/** The binding sets a template will have after a write (spec 4.4 boundBrandIds / boundCategoryIds). */
export interface BindingSets {
  brandIds: number[];
  categoryIds: number[];
}

/** Duplicates in a binding list are ignored; the order does not matter (reads return ascending ids). */
export function distinctIds(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

function listed(ids: number[]): string {
  return ids.length > 10 ? `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more` : ids.join(', ');
}

/**
 * Checks the binding sets a write leaves behind: supplied brands and categories must be live and of
 * this library, and when the brand set is nonempty every bound category must belong to one of those
 * brands (spec 4.4). Another team's ids are reported exactly like ids that do not exist.
 */
export async function checkBindingSets(tx: Ctx, sets: BindingSets, supplied: { brands: boolean; categories: boolean }): Promise<void> {
  const issues: FieldIssue[] = [];
  if (supplied.brands && sets.brandIds.length > 0) {
    const found = await liveBrandIdsAmong(tx, sets.brandIds);
    const missing = sets.brandIds.filter((id) => !found.has(id));
    if (missing.length > 0) issues.push({ field: 'boundBrandIds', message: `not live brands of this library: ${listed(missing)}` });
  }
  if (sets.categoryIds.length > 0 && (supplied.brands || supplied.categories)) {
    const brandOf = await liveCategoryBrandsAmong(tx, sets.categoryIds);
    const missing = sets.categoryIds.filter((id) => !brandOf.has(id));
    if (missing.length > 0) issues.push({ field: 'boundCategoryIds', message: `not live categories of this library: ${listed(missing)}` });
    const brands = new Set(sets.brandIds);
    const outside = sets.categoryIds.filter((id) => brandOf.has(id) && brands.size > 0 && !brands.has(brandOf.get(id)!));
    if (outside.length > 0) issues.push({ field: 'boundCategoryIds', message: `categories outside the bound brands: ${listed(outside)}` });
  }
  if (issues.length > 0) throw new DomainError('validation_failed', 'The template bindings are invalid', issues);
}

/**
 * Replaces one binding set of a template. A brand or category bound to another template moves
 * here (its primary key allows one template); the templates that lose a binding are locked and
 * their updatedAt bumped, since their representation (and so their ETag) changes.
 */
async function replaceBindings(tx: Ctx, kind: BindingKind, templateId: string, ids: number[]): Promise<void> {
  await touchTemplatesLosingBindings(tx, kind, templateId, ids);
  await deleteBindingsExcept(tx, kind, templateId, ids);
  await bindTo(tx, kind, templateId, ids);
}

export async function replaceBrandBindings(tx: Ctx, templateId: string, brandIds: number[]): Promise<void> {
  await replaceBindings(tx, 'brand', templateId, brandIds);
}

export async function replaceCategoryBindings(tx: Ctx, templateId: string, categoryIds: number[]): Promise<void> {
  await replaceBindings(tx, 'category', templateId, categoryIds);
}

/** Spec 3.2: a deleted template loses all its bindings. */
export async function removeAllBindings(tx: Ctx, templateId: string): Promise<void> {
  await deleteAllBindings(tx, 'brand', templateId);
  await deleteAllBindings(tx, 'category', templateId);
}

/*
 * Changes of a team's library default take the team's library-default lock (lockLibraryDefault)
 * first: without it, two writers could each clear the default they saw and both set a new one,
 * and the partial unique index would fail the second.
 */

/** Makes `templateId` the library default; the previous default (locked, updatedAt bumped) loses it. */
export async function makeLibraryDefault(tx: Ctx, templateId: string): Promise<void> {
  await lockLibraryDefault(tx);
  await clearOtherLibraryDefaults(tx, templateId);
  await setLibraryDefault(tx, templateId, true);
}

/** Leaves the library without a default when `templateId` is the default. */
export async function clearLibraryDefault(tx: Ctx, templateId: string): Promise<void> {
  await lockLibraryDefault(tx);
  await setLibraryDefault(tx, templateId, false);
}

/**
 * Spec 4.3: on category create, the library default is bound to the new category only when it has
 * no brand bindings or includes the category's brand. Runs inside the category-create transaction;
 * FOR SHARE keeps the default from being deleted or replaced until that transaction ends.
 */
export async function bindLibraryDefaultToNewCategory(tx: Ctx, category: { id: number; brandId: number }): Promise<void> {
  const templateId = await lockLibraryDefaultForShare(tx);
  if (templateId === null) return;
  const brands = await brandBindingsOf(tx, templateId, category.brandId);
  if (brands.anyBrand && !brands.thisBrand) return;
  await bindCategoryIfUnbound(tx, category.id, templateId);
}
