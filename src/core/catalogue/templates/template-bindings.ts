import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, type FieldIssue } from '../../platform/errors.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';

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
    const live = await queryRows<{ id: number }>(tx, 'select id from brands where team_id = ? and deleted_at is null and id = any(?::int[])', [
      tx.teamId,
      intArray(sets.brandIds),
    ]);
    const found = new Set(live.map((r) => r.id));
    const missing = sets.brandIds.filter((id) => !found.has(id));
    if (missing.length > 0) issues.push({ field: 'boundBrandIds', message: `not live brands of this library: ${listed(missing)}` });
  }
  if (sets.categoryIds.length > 0 && (supplied.brands || supplied.categories)) {
    const live = await queryRows<{ id: number; brand_id: number }>(
      tx,
      'select id, brand_id from categories where team_id = ? and deleted_at is null and id = any(?::int[])',
      [tx.teamId, intArray(sets.categoryIds)],
    );
    const brandOf = new Map(live.map((r) => [r.id, r.brand_id]));
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
async function replaceBindings(
  tx: Ctx,
  table: 'template_brand_bindings' | 'template_category_bindings',
  column: 'brand_id' | 'category_id',
  templateId: string,
  ids: number[],
): Promise<void> {
  const idArray = intArray(ids);
  await queryRows(
    tx,
    `update product_info_templates set updated_at = now()
      where team_id = ? and id in (select template_id from ${table} where ${column} = any(?::int[]) and template_id <> ?)`,
    [tx.teamId, idArray, templateId],
  );
  await queryRows(tx, `delete from ${table} where template_id = ? and not (${column} = any(?::int[]))`, [templateId, idArray]);
  await queryRows(
    tx,
    `insert into ${table} (${column}, team_id, template_id) select unnest(?::int[]), ?, ?
     on conflict (${column}) do update set template_id = excluded.template_id where ${table}.template_id <> excluded.template_id`,
    [idArray, tx.teamId, templateId],
  );
}

export async function replaceBrandBindings(tx: Ctx, templateId: string, brandIds: number[]): Promise<void> {
  await replaceBindings(tx, 'template_brand_bindings', 'brand_id', templateId, brandIds);
}

export async function replaceCategoryBindings(tx: Ctx, templateId: string, categoryIds: number[]): Promise<void> {
  await replaceBindings(tx, 'template_category_bindings', 'category_id', templateId, categoryIds);
}

/** Spec 3.2: a deleted template loses all its bindings. */
export async function removeAllBindings(tx: Ctx, templateId: string): Promise<void> {
  await queryRows(tx, 'delete from template_brand_bindings where template_id = ?', [templateId]);
  await queryRows(tx, 'delete from template_category_bindings where template_id = ?', [templateId]);
}

/** An arbitrary constant naming the per-team advisory lock around library-default changes. */
const LIBRARY_DEFAULT_LOCK = 7_424_301;

/**
 * Serializes changes of a team's library default: without it, two writers could each clear the
 * default they saw and both set a new one, and the partial unique index would fail the second.
 */
async function lockLibraryDefault(tx: Ctx): Promise<void> {
  await queryOne(tx, 'select pg_advisory_xact_lock(?, ?)', [LIBRARY_DEFAULT_LOCK, tx.teamId]);
}

/** Makes `templateId` the library default; the previous default (locked, updatedAt bumped) loses it. */
export async function makeLibraryDefault(tx: Ctx, templateId: string): Promise<void> {
  await lockLibraryDefault(tx);
  await queryRows(
    tx,
    `update product_info_templates set is_library_default = false, updated_at = now()
      where team_id = ? and is_library_default and deleted_at is null and id <> ?`,
    [tx.teamId, templateId],
  );
  await queryRows(tx, 'update product_info_templates set is_library_default = true where id = ? and team_id = ?', [templateId, tx.teamId]);
}

/** Leaves the library without a default when `templateId` is the default. */
export async function clearLibraryDefault(tx: Ctx, templateId: string): Promise<void> {
  await lockLibraryDefault(tx);
  await queryRows(tx, 'update product_info_templates set is_library_default = false where id = ? and team_id = ?', [templateId, tx.teamId]);
}

/**
 * Spec 4.3: on category create, the library default is bound to the new category only when it has
 * no brand bindings or includes the category's brand. Runs inside the category-create transaction;
 * FOR SHARE keeps the default from being deleted or replaced until that transaction ends.
 */
export async function bindLibraryDefaultToNewCategory(tx: Ctx, category: { id: number; brandId: number }): Promise<void> {
  const template = await queryOne<{ id: string }>(
    tx,
    'select id from product_info_templates where team_id = ? and is_library_default and deleted_at is null for share',
    [tx.teamId],
  );
  if (!template) return;
  const brands = await queryOne<{ any_brand: boolean; this_brand: boolean }>(
    tx,
    `select exists(select 1 from template_brand_bindings b join brands br on br.id = b.brand_id and br.deleted_at is null
                    where b.template_id = ?) as any_brand,
            exists(select 1 from template_brand_bindings where template_id = ? and brand_id = ?) as this_brand`,
    [template.id, template.id, category.brandId],
  );
  if (brands!.any_brand && !brands!.this_brand) return;
  await queryRows(tx, 'insert into template_category_bindings (category_id, team_id, template_id) values (?, ?, ?) on conflict (category_id) do nothing', [
    category.id,
    tx.teamId,
    template.id,
  ]);
}
