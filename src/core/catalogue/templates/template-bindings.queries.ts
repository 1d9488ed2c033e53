import type { TeamScope } from '../../platform/ctx.ts';
import { bool, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import type { ResolvedTemplate } from './template.schemas.ts';

/*
 * Statements on template bindings (template_brand_bindings, template_category_bindings): which
 * template a brand or category is bound to, and the resolution of a new product's template through
 * them. Every statement names the team.
 */

/** Which binding set: a template's brands or its categories. */
export type BindingKind = 'brand' | 'category';

const BINDINGS = {
  brand: { table: 'template_brand_bindings', column: 'brand_id' },
  category: { table: 'template_category_bindings', column: 'category_id' },
} as const;

/**
 * Bumps updatedAt of the templates that lose a binding when `templateId` takes these brands or
 * categories (their representation, and so their ETag, changes), locking their rows.
 */
export async function touchTemplatesLosingBindings(tx: TeamScope, kind: BindingKind, templateId: string, ids: readonly number[]): Promise<void> {
  const { table, column } = BINDINGS[kind];
  await queryRows(
    tx,
    `update product_info_templates set updated_at = now()
      where team_id = ? and id in (select template_id from ${table} where ${column} = any(?::int[]) and template_id <> ?)`,
    [tx.teamId, intArray(ids), templateId],
  );
}

/** Removes a template's bindings of one kind except those of `ids`. */
export async function deleteBindingsExcept(tx: TeamScope, kind: BindingKind, templateId: string, ids: readonly number[]): Promise<void> {
  const { table, column } = BINDINGS[kind];
  await queryRows(tx, `delete from ${table} where template_id = ? and not (${column} = any(?::int[]))`, [templateId, intArray(ids)]);
}

/** Binds these brands or categories to a template; one bound to another template moves here (its primary key allows one template). */
export async function bindTo(tx: TeamScope, kind: BindingKind, templateId: string, ids: readonly number[]): Promise<void> {
  const { table, column } = BINDINGS[kind];
  await queryRows(
    tx,
    `insert into ${table} (${column}, team_id, template_id) select unnest(?::int[]), ?, ?
     on conflict (${column}) do update set template_id = excluded.template_id where ${table}.template_id <> excluded.template_id`,
    [intArray(ids), tx.teamId, templateId],
  );
}

/** Removes every binding of one kind of a template. */
export async function deleteAllBindings(tx: TeamScope, kind: BindingKind, templateId: string): Promise<void> {
  await queryRows(tx, `delete from ${BINDINGS[kind].table} where template_id = ?`, [templateId]);
}

/** Whether a template is bound to any live brand, and whether to `brandId`. */
export async function brandBindingsOf(tx: TeamScope, templateId: string, brandId: number): Promise<{ anyBrand: boolean; thisBrand: boolean }> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select exists(select 1 from template_brand_bindings b join brands br on br.id = b.brand_id and br.deleted_at is null
                    where b.template_id = ?) as any_brand,
            exists(select 1 from template_brand_bindings where template_id = ? and brand_id = ?) as this_brand`,
    [templateId, templateId, brandId],
  );
  return { anyBrand: bool(row!.any_brand, 'any_brand'), thisBrand: bool(row!.this_brand, 'this_brand') };
}

/** Binds a category to a template unless it is bound already. */
export async function bindCategoryIfUnbound(tx: TeamScope, categoryId: number, templateId: string): Promise<void> {
  await queryRows(tx, 'insert into template_category_bindings (category_id, team_id, template_id) values (?, ?, ?) on conflict (category_id) do nothing', [
    categoryId,
    tx.teamId,
    templateId,
  ]);
}

/**
 * The template a new product in this category pins, with its current version: one query ranks the
 * candidates, the category chain (nearest bound category first), then the category's brand, then
 * the library default; null when none is live.
 */
export async function templateForCategory(scope: TeamScope, categoryId: number): Promise<ResolvedTemplate | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `with recursive chain (id, parent_id, brand_id, hops) as (
        select id, parent_id, brand_id, 0 from categories where id = ? and team_id = ?
        union all
        select c.id, c.parent_id, c.brand_id, chain.hops + 1 from categories c join chain on c.id = chain.parent_id
         where c.team_id = ? and c.deleted_at is null and chain.hops < 64
      ),
      candidates (template_id, rank, hops) as (
        select b.template_id, 0, chain.hops from chain join template_category_bindings b on b.category_id = chain.id
        union all
        select b.template_id, 1, 0 from chain join template_brand_bindings b on b.brand_id = chain.brand_id where chain.hops = 0
        union all
        select t.id, 2, 0 from product_info_templates t where t.team_id = ? and t.is_library_default and t.deleted_at is null
      )
      select t.id as "templateId", t.current_version_id as "versionId"
        from candidates k join product_info_templates t on t.id = k.template_id and t.team_id = ? and t.deleted_at is null
       order by k.rank, k.hops limit 1`,
    [categoryId, scope.teamId, scope.teamId, scope.teamId, scope.teamId],
  );
  return row && { templateId: text(row.templateId, 'templateId'), versionId: text(row.versionId, 'versionId') };
}
