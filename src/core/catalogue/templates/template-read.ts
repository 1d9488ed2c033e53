import type { Ctx } from '../../platform/ctx.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { TemplateFieldView, TemplateGroupView, TemplateVersionView, TemplateView } from './template.schemas.ts';

/**
 * Lean reads of templates and versions. The definition of a template is the `definition` of its
 * current version, so the live template and its newest version can never disagree. Bindings are
 * reported for live brands and categories only.
 */
function templateSelect(extraColumns = ''): string {
  return `select t.id, t.name, t.description, t.enabled, t.is_library_default as "isLibraryDefault",
    ${isoSql('t.created_at')} as "createdAt", ${isoSql('t.updated_at')} as "updatedAt",
    array(select b.brand_id from template_brand_bindings b join brands br on br.id = b.brand_id and br.deleted_at is null
           where b.template_id = t.id order by b.brand_id) as "boundBrandIds",
    array(select b.category_id from template_category_bindings b join categories c on c.id = b.category_id and c.deleted_at is null
           where b.template_id = t.id order by b.category_id) as "boundCategoryIds",
    v.definition${extraColumns}
  from product_info_templates t join template_versions v on v.id = t.current_version_id`;
}

interface TemplateRow extends Omit<TemplateView, 'groups' | 'isSystemDefault'> {
  definition: { groups: TemplateGroupView[] };
}

/** Rebuilds fields in the documented key order: the ETag hashes this, and jsonb reorders keys. */
function fieldView(f: TemplateFieldView): TemplateFieldView {
  return {
    id: f.id,
    key: f.key,
    name: f.name,
    type: f.type,
    required: f.required,
    placeholder: f.placeholder,
    sortOrder: f.sortOrder,
    config: f.config,
    isSystemField: f.isSystemField,
    systemKey: f.systemKey,
  };
}

export function groupViews(groups: TemplateGroupView[]): TemplateGroupView[] {
  return groups.map((g) => ({ id: g.id, name: g.name, isDefault: g.isDefault, sortOrder: g.sortOrder, fields: g.fields.map(fieldView) }));
}

function templateView(row: TemplateRow): TemplateView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    // Shelf ships no built-in templates: every template is created by a library (docs/templates.md)
    isSystemDefault: false,
    isLibraryDefault: row.isLibraryDefault,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    boundBrandIds: row.boundBrandIds,
    boundCategoryIds: row.boundCategoryIds,
    groups: groupViews(row.definition.groups),
  };
}

/** One live template of the caller's team; `forUpdate` locks its row for the rest of the transaction. */
export async function readTemplate(ctx: Ctx, id: string, options: { forUpdate?: boolean } = {}): Promise<TemplateView | null> {
  if (options.forUpdate) {
    // Lock alone first: a joined FOR UPDATE that waited for a concurrent writer re-checks only the
    // locked row against the old version row, and would lose the template. The read after the lock
    // takes a fresh snapshot (read committed) and so sees the committed winner.
    const locked = await queryOne(ctx, 'select id from product_info_templates where id = ? and team_id = ? and deleted_at is null for update', [
      id,
      ctx.teamId,
    ]);
    if (!locked) return null;
  }
  const row = await queryOne<TemplateRow>(ctx, `${templateSelect()} where t.id = ? and t.team_id = ? and t.deleted_at is null`, [id, ctx.teamId]);
  return row ? templateView(row) : null;
}

/** A page of live templates, createdAt descending then id (spec 4.4), with the live total. */
export async function readTemplatePage(ctx: Ctx, limit: number, offset: number): Promise<{ items: TemplateView[]; total: number }> {
  const rows = await queryRows<TemplateRow & { total: string }>(
    ctx,
    `${templateSelect(', count(*) over () as total')}
      where t.team_id = ? and t.deleted_at is null
      order by t.created_at desc, t.id limit ? offset ?`,
    [ctx.teamId, limit, offset],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && offset > 0) {
    const counted = await queryOne<{ n: string }>(ctx, 'select count(*) as n from product_info_templates where team_id = ? and deleted_at is null', [
      ctx.teamId,
    ]);
    total = Number(counted!.n);
  }
  return { items: rows.map(templateView), total };
}

/** Live templates of the caller's team among `ids`, for dataloaders. */
export async function readTemplatesByIds(ctx: Ctx, ids: readonly string[]): Promise<TemplateView[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<TemplateRow>(
    ctx,
    `${templateSelect()} where t.team_id = ? and t.deleted_at is null and t.id in (select jsonb_array_elements_text(?::jsonb))`,
    [ctx.teamId, JSON.stringify(ids)],
  );
  return rows.map(templateView);
}

const VERSION_SELECT = `select v.id, v.template_id as "templateId", v.number, v.name, v.description,
    ${isoSql('v.created_at')} as "createdAt", v.definition from template_versions v`;

type VersionRow = Omit<TemplateVersionView, 'groups'> & { definition: { groups: TemplateGroupView[] } };

function versionView(row: VersionRow): TemplateVersionView {
  return {
    id: row.id,
    templateId: row.templateId,
    number: row.number,
    name: row.name,
    description: row.description,
    createdAt: row.createdAt,
    groups: groupViews(row.definition.groups),
  };
}

/** One version of any template of the caller's team, deleted templates included (products pin them). */
export async function readVersion(ctx: Ctx, versionId: string): Promise<TemplateVersionView | null> {
  const row = await queryOne<VersionRow>(ctx, `${VERSION_SELECT} where v.id = ? and v.team_id = ?`, [versionId, ctx.teamId]);
  return row ? versionView(row) : null;
}

/** Every version of the given templates of the caller's team, oldest first per template. */
export async function readVersionsOfTemplates(ctx: Ctx, templateIds: readonly string[]): Promise<TemplateVersionView[]> {
  if (templateIds.length === 0) return [];
  const rows = await queryRows<VersionRow>(
    ctx,
    `${VERSION_SELECT} where v.team_id = ? and v.template_id in (select jsonb_array_elements_text(?::jsonb)) order by v.template_id, v.number`,
    [ctx.teamId, JSON.stringify(templateIds)],
  );
  return rows.map(versionView);
}

/** A template as moving a product to another of its versions sees it: whether it is live, its current version's number, the version asked for. */
export interface TemplateVersionState {
  live: boolean;
  currentNumber: number;
  /** The version with the number asked for (the current one when none was asked); null when there is none. */
  version: TemplateVersionView | null;
}

/**
 * One template of the caller's team (deleted ones included, as products pin their versions) and
 * its version numbered `number` (null: the current one), or null when the team has no such
 * template. With `lock`, the template row is held FOR SHARE first, so it cannot be deleted or get
 * a new version until the caller's transaction ends; the read after the lock sees what committed
 * before it (a joined locking read would re-check only the locked row, as readTemplate explains).
 */
export async function readVersionState(
  ctx: Ctx,
  templateId: string,
  number: number | null,
  options: { lock?: boolean } = {},
): Promise<TemplateVersionState | null> {
  if (options.lock) {
    const locked = await queryOne(ctx, 'select id from product_info_templates where id = ? and team_id = ? for share', [templateId, ctx.teamId]);
    if (!locked) return null;
  }
  const row = await queryOne<{ live: boolean; currentNumber: number; version: VersionRow | null }>(
    ctx,
    `select t.deleted_at is null as live, cv.number as "currentNumber",
            (select to_jsonb(x) from (${VERSION_SELECT} where v.template_id = t.id and v.number = coalesce(?::int, cv.number)) x) as version
       from product_info_templates t join template_versions cv on cv.id = t.current_version_id
      where t.id = ? and t.team_id = ?`,
    [number, templateId, ctx.teamId],
  );
  if (!row) return null;
  return { live: row.live, currentNumber: row.currentNumber, version: row.version ? versionView(row.version) : null };
}
