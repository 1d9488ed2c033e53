import type { Ctx } from '../../platform/ctx.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { groupViews } from '../templates/template-read.ts';
import type { TemplateGroupView, TemplateVersionView } from '../templates/template.schemas.ts';
import type { ProductRecord } from './product-projection.ts';
import { RECORD_COLUMNS, recordOf } from './product-read.ts';

/*
 * The reads of template upgrades, team-filtered: a template's version by its number (with whether
 * the template is still live), and the products pinned to one version in pages. The latter is
 * served by the index products_live_template_version (product.entity.ts).
 */

/** A template as an upgrade sees it: whether it is live, its current version's number, and the version asked for. */
export interface TemplateVersionState {
  live: boolean;
  currentNumber: number;
  /** The version with the number asked for (the current one when none was asked); null when there is none. */
  version: TemplateVersionView | null;
}

type StateRow = {
  live: boolean;
  currentNumber: number;
  id: string | null;
  templateId: string;
  number: number;
  name: string;
  description: string | null;
  createdAt: string;
  definition: { groups: TemplateGroupView[] } | null;
};

/**
 * One template of the caller's team (deleted ones included, as products pin their versions) and
 * its version numbered `number`, or null when the team has no such template. With `lock`, the
 * template row is held FOR SHARE first, so it cannot be deleted or get a new version while an
 * upgrade to it commits; the read after the lock sees what committed before it.
 */
export async function readTemplateVersionState(ctx: Ctx, templateId: string, number: number | null, options: { lock?: boolean } = {}): Promise<TemplateVersionState | null> {
  if (options.lock) {
    const locked = await queryOne(ctx, 'select id from product_info_templates where id = ? and team_id = ? for share', [templateId, ctx.teamId]);
    if (!locked) return null;
  }
  const row = await queryOne<StateRow>(
    ctx,
    `select t.deleted_at is null as live, cv.number as "currentNumber", v.id, v.template_id as "templateId", v.number, v.name, v.description,
            ${isoSql('v.created_at')} as "createdAt", v.definition
       from product_info_templates t
       join template_versions cv on cv.id = t.current_version_id
       left join template_versions v on v.template_id = t.id and v.number = coalesce(?::int, cv.number)
      where t.id = ? and t.team_id = ?`,
    [number, templateId, ctx.teamId],
  );
  if (!row) return null;
  const version: TemplateVersionView | null =
    row.id === null || row.definition === null
      ? null
      : { id: row.id, templateId: row.templateId, number: row.number, name: row.name, description: row.description, createdAt: row.createdAt, groups: groupViews(row.definition.groups) };
  return { live: row.live, currentNumber: row.currentNumber, version };
}

/** A page of the live products pinned to a version, by id ascending, with their total; within the caller's visibility. */
export async function readPinnedProductsPage(
  ctx: Ctx,
  versionId: string,
  publishedOnly: boolean,
  limit: number,
  offset: number,
): Promise<{ records: ProductRecord[]; total: number }> {
  const where = `p.team_id = ? and p.template_version_id = ? and p.deleted_at is null${publishedOnly ? ` and p.status = 'published'` : ''}`;
  const [count, rows] = await Promise.all([
    queryOne<{ n: number }>(ctx, `select count(*)::int as n from products p where ${where}`, [ctx.teamId, versionId]),
    queryRows<ProductRecord>(ctx, `select ${RECORD_COLUMNS} from products p where ${where} order by p.id limit ? offset ?`, [ctx.teamId, versionId, limit, offset]),
  ]);
  return { records: rows.map(recordOf), total: count!.n };
}
