import type { Ctx } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { queryOne } from '../../platform/sql.ts';

/** What a new product pins: a live template and its newest version. */
export interface ResolvedTemplate {
  templateId: string;
  versionId: string;
}

export interface TemplateResolutionInput {
  templateId?: string | null;
  brandId?: number | null;
  categoryId?: number | null;
}

/**
 * Spec 4.5 "Template resolution at creation": an explicit templateId wins (it must be a live
 * template of the library); otherwise, with a category: the binding of the category or its
 * nearest bound ancestor, then the binding of the category's brand, then the library default;
 * without a category only the library default counts, even when brandId is given. Null when
 * nothing resolves. `enabled` plays no part: the spec ties resolution to bindings and liveness only.
 */
export async function resolveTemplateForProduct(ctx: Ctx, input: TemplateResolutionInput): Promise<ResolvedTemplate | null> {
  if (input.templateId !== undefined && input.templateId !== null) {
    const explicit = await queryOne<ResolvedTemplate>(
      ctx,
      `select id as "templateId", current_version_id as "versionId" from product_info_templates
        where id = ? and team_id = ? and deleted_at is null`,
      [input.templateId, ctx.teamId],
    );
    if (!explicit) throw invalid('templateId', 'is not a live template of this library');
    return explicit;
  }
  if (input.categoryId !== undefined && input.categoryId !== null) return resolveByCategory(ctx, input.categoryId);
  return libraryDefault(ctx);
}

async function libraryDefault(ctx: Ctx): Promise<ResolvedTemplate | null> {
  return queryOne<ResolvedTemplate>(
    ctx,
    `select id as "templateId", current_version_id as "versionId" from product_info_templates
      where team_id = ? and is_library_default and deleted_at is null`,
    [ctx.teamId],
  );
}

/** One query ranks the candidates: category chain (nearest first), then the brand, then the default. */
async function resolveByCategory(ctx: Ctx, categoryId: number): Promise<ResolvedTemplate | null> {
  const category = await queryOne<{ id: number }>(ctx, 'select id from categories where id = ? and team_id = ? and deleted_at is null', [
    categoryId,
    ctx.teamId,
  ]);
  if (!category) throw invalid('categoryId', 'is not a live category of this library');
  return queryOne<ResolvedTemplate>(
    ctx,
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
    [categoryId, ctx.teamId, ctx.teamId, ctx.teamId, ctx.teamId],
  );
}
