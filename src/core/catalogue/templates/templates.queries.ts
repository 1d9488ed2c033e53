import type { SizedRow } from '../../platform/answer-budget.ts';
import type { TeamScope } from '../../platform/ctx.ts';
import { bigintNumber, bool, int, intList, nullableText, text } from '../../platform/row-checks.ts';
import { preparedSql, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type {
  ResolvedTemplate,
  TemplateFieldView,
  TemplateGroupView,
  TemplateVersionSummary,
  TemplateVersionView,
  TemplateView,
  VersionWindow,
} from './template.schemas.ts';

/*
 * Statements on information templates and their versions (product_info_templates,
 * template_versions). Every statement names the team. The definition of a template is the
 * `definition` of its current version, so the live template and its newest version can never
 * disagree. Bindings are reported for live brands and categories only.
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

/** A version's `definition` jsonb column: an object with its groups, in the documented key order. */
function definitionGroups(value: unknown, column: string): TemplateGroupView[] {
  const definition = value as { groups?: unknown } | null;
  if (definition === null || typeof definition !== 'object' || !Array.isArray(definition.groups))
    throw new Error(`column ${column}: expected a definition with groups`);
  return groupViews(definition.groups as TemplateGroupView[]);
}

function templateView(row: Record<string, unknown>): TemplateView {
  return {
    id: text(row.id, 'id'),
    name: text(row.name, 'name'),
    description: nullableText(row.description, 'description'),
    enabled: bool(row.enabled, 'enabled'),
    // Shelf ships no built-in templates: every template is created by a library (docs/templates.md)
    isSystemDefault: false,
    isLibraryDefault: bool(row.isLibraryDefault, 'isLibraryDefault'),
    createdAt: text(row.createdAt, 'createdAt'),
    updatedAt: text(row.updatedAt, 'updatedAt'),
    boundBrandIds: intList(row.boundBrandIds, 'boundBrandIds'),
    boundCategoryIds: intList(row.boundCategoryIds, 'boundCategoryIds'),
    groups: definitionGroups(row.definition, 'definition'),
  };
}

/** Locks a live template's row (alone: see template-read.ts readTemplate); false when the team has no such live template. */
export async function lockLiveTemplate(tx: TeamScope, id: string): Promise<boolean> {
  const locked = await queryOne(tx, 'select id from product_info_templates where id = ? and team_id = ? and deleted_at is null for update', [id, tx.teamId]);
  return locked !== null;
}

/** One live template of the team, or null. */
export async function findLiveTemplate(scope: TeamScope, id: string): Promise<TemplateView | null> {
  const row = await queryOne<Record<string, unknown>>(scope, `${templateSelect()} where t.id = ? and t.team_id = ? and t.deleted_at is null`, [
    id,
    scope.teamId,
  ]);
  return row && templateView(row);
}

/**
 * One live template of the team with the versions of one window (the newest `last` numbered below
 * `before`, oldest first) without their definitions, in one statement, or null: what GraphQL's
 * `template(id) { versions { ... } }` answers, in the round trip REST's template read takes.
 */
export async function findLiveTemplateWithVersionSummaries(
  scope: TeamScope,
  id: string,
  window: Omit<VersionWindow, 'templateId'>,
): Promise<{ template: TemplateView; versions: TemplateVersionSummary[] } | null> {
  const versions = `, coalesce((select json_agg(json_build_object('id', x.id, 'templateId', x.template_id, 'number', x.number, 'name', x.name,
        'description', x.description, 'createdAt', ${isoSql('x.created_at')}) order by x.number)
       from (select tv.id, tv.template_id, tv.number, tv.name, tv.description, tv.created_at from template_versions tv
              where tv.team_id = t.team_id and tv.template_id = t.id and (?::int is null or tv.number < ?::int)
              order by tv.number desc limit ?) x), '[]'::json) as versions`;
  const row = await queryOne<Record<string, unknown>>(scope, `${templateSelect(versions)} where t.id = ? and t.team_id = ? and t.deleted_at is null`, [
    window.before,
    window.before,
    window.last,
    id,
    scope.teamId,
  ]);
  if (!row) return null;
  if (!Array.isArray(row.versions)) throw new Error('column versions: expected a JSON array');
  return { template: templateView(row), versions: (row.versions as Record<string, unknown>[]).map(versionSummary) };
}

/**
 * The ids of a page of the team's live templates in the list's order, with the stored size of each
 * one's definition (what its answer costs: the definition is nearly all of it) and the live total
 * (0 when the page is empty). The rows themselves are read by readTemplatesByIds, batch by batch.
 */
export async function sizedLiveTemplatesPage(scope: TeamScope, limit: number, offset: number): Promise<{ rows: SizedRow<string>[]; total: number }> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select t.id, octet_length(v.definition::text) as bytes, count(*) over () as total
      from product_info_templates t join template_versions v on v.id = t.current_version_id
      where t.team_id = ? and t.deleted_at is null
      order by t.created_at desc, t.id limit ? offset ?`,
    [scope.teamId, limit, offset],
  );
  return {
    rows: rows.map((row) => ({ id: text(row.id, 'id'), storedBytes: int(row.bytes, 'bytes') })),
    total: rows.length > 0 ? bigintNumber(rows[0]!.total, 'total') : 0,
  };
}

/** How many live templates the team has. */
export async function countLiveTemplates(scope: TeamScope): Promise<number> {
  const counted = await queryOne<Record<string, unknown>>(scope, 'select count(*) as n from product_info_templates where team_id = ? and deleted_at is null', [
    scope.teamId,
  ]);
  return bigintNumber(counted!.n, 'n');
}

/** Live templates of the team among `ids`, for dataloaders. */
export async function readTemplatesByIds(scope: TeamScope, ids: readonly string[]): Promise<TemplateView[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `${templateSelect()} where t.team_id = ? and t.deleted_at is null and t.id in (select jsonb_array_elements_text(?::jsonb))`,
    [scope.teamId, JSON.stringify(ids)],
  );
  return rows.map(templateView);
}

const VERSION_SELECT = `select v.id, v.template_id as "templateId", v.number, v.name, v.description,
    ${isoSql('v.created_at')} as "createdAt", v.definition from template_versions v`;

/** A row of VERSION_SELECT (from pg, or from to_jsonb) as the view. */
function versionView(row: Record<string, unknown>): TemplateVersionView {
  return { ...versionSummary(row), groups: definitionGroups(row.definition, 'definition') };
}

/** A row of VERSION_SELECT without its definition. */
function versionSummary(row: Record<string, unknown>): TemplateVersionSummary {
  return {
    id: text(row.id, 'id'),
    templateId: text(row.templateId, 'templateId'),
    number: int(row.number, 'number'),
    name: text(row.name, 'name'),
    description: nullableText(row.description, 'description'),
    createdAt: text(row.createdAt, 'createdAt'),
  };
}

/** One version of any template of the team, deleted templates included (products pin them). */
export async function readVersion(scope: TeamScope, versionId: string): Promise<TemplateVersionView | null> {
  const row = await queryOne<Record<string, unknown>>(scope, `${VERSION_SELECT} where v.id = ? and v.team_id = ?`, [versionId, scope.teamId]);
  return row && versionView(row);
}

/** The windows as rows PostgreSQL can join (`w.i` is the window's index). */
const WINDOWS = `jsonb_to_recordset(?::jsonb) as w(i int, "templateId" text, before int, last int)`;

function windowRows(windows: readonly VersionWindow[]): string {
  return JSON.stringify(windows.map((w, i) => ({ i, templateId: w.templateId, before: w.before, last: w.last })));
}

/**
 * The versions of each window with what they carry in all (the stored size of their definitions),
 * in one statement: the versions come back only when that size is at most `withSizeBytes`, else
 * `versions` is null and only the size was read (the caller admits it, then readVersionWindows).
 */
export async function readSizedVersionWindows(
  scope: TeamScope,
  windows: readonly VersionWindow[],
  withSizeBytes: number,
): Promise<{ storedBytes: number; versions: TemplateVersionView[][] | null }> {
  if (windows.length === 0) return { storedBytes: 0, versions: [] };
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select x.i, x.id, x."templateId", x.number, x.name, x.description, x."createdAt", x."storedBytes",
        case when x."storedBytes" <= ? then x.definition end as definition
       from (select w.i, v.id, v.template_id as "templateId", v.number, v.name, v.description, ${isoSql('v.created_at')} as "createdAt",
                v.definition, sum(v.bytes) over ()::bigint as "storedBytes"
               from ${WINDOWS} cross join lateral (
                 select v.*, octet_length(v.definition::text) as bytes from template_versions v
                  where v.team_id = ? and v.template_id = w."templateId" and (w.before is null or v.number < w.before)
                  order by v.number desc limit w.last) v) x
      order by x.i, x.number`,
    [withSizeBytes, windowRows(windows), scope.teamId],
  );
  const storedBytes = rows.length === 0 ? 0 : bigintNumber(rows[0]!.storedBytes, 'storedBytes');
  if (storedBytes > withSizeBytes) return { storedBytes, versions: null };
  const byWindow = windows.map((): TemplateVersionView[] => []);
  for (const row of rows) byWindow[int(row.i, 'i')]!.push(versionView(row));
  return { storedBytes, versions: byWindow };
}

/** The versions of each window without their definitions, oldest first (deleted templates included: products pin them). */
export async function readVersionSummaryWindows(scope: TeamScope, windows: readonly VersionWindow[]): Promise<TemplateVersionSummary[][]> {
  if (windows.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select w.i, v.id, v.template_id as "templateId", v.number, v.name, v.description, ${isoSql('v.created_at')} as "createdAt"
       from ${WINDOWS} cross join lateral (
         select v.id, v.template_id, v.number, v.name, v.description, v.created_at from template_versions v
          where v.team_id = ? and v.template_id = w."templateId" and (w.before is null or v.number < w.before)
          order by v.number desc limit w.last) v
      order by w.i, v.number`,
    [windowRows(windows), scope.teamId],
  );
  const byWindow = windows.map((): TemplateVersionSummary[] => []);
  for (const row of rows) byWindow[int(row.i, 'i')]!.push(versionSummary(row));
  return byWindow;
}

/** The versions of each window of the team's templates, oldest first (deleted templates included: products pin them). */
export async function readVersionWindows(scope: TeamScope, windows: readonly VersionWindow[]): Promise<TemplateVersionView[][]> {
  if (windows.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select w.i, x.* from ${WINDOWS} cross join lateral (
       ${VERSION_SELECT} where v.team_id = ? and v.template_id = w."templateId" and (w.before is null or v.number < w.before)
        order by v.number desc limit w.last) x
      order by w.i, x.number`,
    [windowRows(windows), scope.teamId],
  );
  const byWindow = windows.map((): TemplateVersionView[] => []);
  for (const row of rows) byWindow[int(row.i, 'i')]!.push(versionView(row));
  return byWindow;
}

/** What the current definitions of the given live templates would carry. */
export async function liveTemplatesBytes(scope: TeamScope, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select coalesce(sum(octet_length(v.definition::text)), 0)::bigint as bytes
       from product_info_templates t join template_versions v on v.id = t.current_version_id
      where t.team_id = ? and t.deleted_at is null and t.id in (select jsonb_array_elements_text(?::jsonb))`,
    [scope.teamId, JSON.stringify(ids)],
  );
  return bigintNumber(row!.bytes, 'bytes');
}

/**
 * Batch read of pinned template versions for a page of products (GraphQL Product.templateDefinition):
 * one query for any number of products. Versions are immutable and kept after their template is
 * deleted, so a product's pinned definition never changes (spec 2.5, 3.3).
 */
export async function readPinnedVersions(scope: TeamScope, versionIds: readonly string[]): Promise<TemplateVersionView[]> {
  if (versionIds.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select v.id, v.template_id as "templateId", v.number, v.name, v.description, ${isoSql('v.created_at')} as "createdAt", v.definition
       from template_versions v where v.team_id = ? and v.id in (select jsonb_array_elements_text(?::jsonb))`,
    [scope.teamId, JSON.stringify(versionIds)],
  );
  return rows.map(versionView);
}

// prepared: GraphQL runs it for every product read that asks for its definition
const PINNED_WITHIN = preparedSql(
  'templates.pinnedWithin',
  `select s.id, s."templateId", s.number, s.name, s.description, s."createdAt", s."storedBytes",
          case when s."storedBytes" <= ?::bigint then s.definition end as definition
     from (select v.id, v.template_id as "templateId", v.number, v.name, v.description, ${isoSql('v.created_at')} as "createdAt",
                  v.definition, sum(octet_length(v.definition::text)) over ()::bigint as "storedBytes"
             from template_versions v where v.team_id = ? and v.id in (select jsonb_array_elements_text(?::jsonb))) s`,
);

/**
 * The pinned versions read with their stored size in one statement (answer-budget.ts readAdmitted):
 * with their definitions when those take at most `limit` stored bytes in all, else the size only.
 */
export async function readPinnedVersionsWithin(
  scope: TeamScope,
  versionIds: readonly string[],
  limit: number,
): Promise<{ storedBytes: number; value: TemplateVersionView[] | null }> {
  if (versionIds.length === 0) return { storedBytes: 0, value: [] };
  const rows = await queryRows<Record<string, unknown>>(scope, PINNED_WITHIN, [limit, scope.teamId, JSON.stringify(versionIds)]);
  const storedBytes = rows.length === 0 ? 0 : bigintNumber(rows[0]!.storedBytes, 'storedBytes');
  return { storedBytes, value: storedBytes <= limit ? rows.map(versionView) : null };
}

/** Holds a template of the team (deleted ones included) FOR SHARE until the transaction ends; false when there is none. */
export async function lockTemplateForShare(tx: TeamScope, templateId: string): Promise<boolean> {
  const locked = await queryOne(tx, 'select id from product_info_templates where id = ? and team_id = ? for share', [templateId, tx.teamId]);
  return locked !== null;
}

/**
 * A template of the team (deleted ones included): whether it is live, its current version's
 * number, and its version numbered `number` (null: the current one; null when it has none such);
 * null when the team has no such template.
 */
export async function readVersionState(
  scope: TeamScope,
  templateId: string,
  number: number | null,
): Promise<{ live: boolean; currentNumber: number; version: TemplateVersionView | null } | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select t.deleted_at is null as live, cv.number as "currentNumber",
            (select to_jsonb(x) from (${VERSION_SELECT} where v.template_id = t.id and v.number = coalesce(?::int, cv.number)) x) as version
       from product_info_templates t join template_versions cv on cv.id = t.current_version_id
      where t.id = ? and t.team_id = ?`,
    [number, templateId, scope.teamId],
  );
  if (!row) return null;
  return {
    live: bool(row.live, 'live'),
    currentNumber: int(row.currentNumber, 'currentNumber'),
    version: row.version === null ? null : versionView(row.version as Record<string, unknown>),
  };
}

/** Whether a live template of the team other than `exceptId` has this name. */
export async function liveTemplateNamed(tx: TeamScope, name: string, exceptId: string | null): Promise<boolean> {
  const taken = await queryOne(tx, 'select 1 from product_info_templates where team_id = ? and name = ? and deleted_at is null and id <> ?', [
    tx.teamId,
    name,
    exceptId ?? '',
  ]);
  return taken !== null;
}

/** A template's own columns as written (its definition is its current version's). */
export interface TemplateRowValues {
  name: string;
  description: string | null;
  enabled: boolean;
  currentVersionId: string;
}

/** Stores a new template of the team; the foreign key to its current version is deferred, so the version row may follow in the transaction. */
export async function insertTemplate(tx: TeamScope, id: string, values: TemplateRowValues): Promise<void> {
  await queryRows(tx, 'insert into product_info_templates (id, team_id, name, description, enabled, current_version_id) values (?, ?, ?, ?, ?, ?)', [
    id,
    tx.teamId,
    values.name,
    values.description,
    values.enabled,
    values.currentVersionId,
  ]);
}

/** Writes the next immutable version of a template (spec 3.3), numbered after its last; the caller holds the template row. */
export async function insertVersion(
  tx: TeamScope,
  templateId: string,
  versionId: string,
  values: { name: string; description: string | null; groups: TemplateGroupView[] },
): Promise<void> {
  await queryRows(
    tx,
    `insert into template_versions (id, team_id, template_id, number, name, description, definition)
     select ?, ?, ?, coalesce(max(number), 0) + 1, ?, ?, ?::jsonb from template_versions where template_id = ?`,
    [versionId, tx.teamId, templateId, values.name, values.description, JSON.stringify({ groups: values.groups }), templateId],
  );
}

/** Replaces a template's own columns and bumps its updatedAt. */
export async function updateTemplate(tx: TeamScope, id: string, values: TemplateRowValues): Promise<void> {
  await queryRows(
    tx,
    'update product_info_templates set name = ?, description = ?, enabled = ?, current_version_id = ?, updated_at = now() where id = ? and team_id = ?',
    [values.name, values.description, values.enabled, values.currentVersionId, id, tx.teamId],
  );
}

/** Soft-deletes a template; it stops being the library default. */
export async function softDeleteTemplate(tx: TeamScope, id: string): Promise<void> {
  await queryRows(tx, 'update product_info_templates set deleted_at = now(), updated_at = now(), is_library_default = false where id = ? and team_id = ?', [
    id,
    tx.teamId,
  ]);
}

/** The current version of a live template of the team, or null. */
export async function currentVersionId(scope: TeamScope, templateId: string): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    'select current_version_id from product_info_templates where id = ? and team_id = ? and deleted_at is null',
    [templateId, scope.teamId],
  );
  return row && text(row.current_version_id, 'current_version_id');
}

/** A template with the version a new product pins. */
function resolvedOf(row: Record<string, unknown>): ResolvedTemplate {
  return { templateId: text(row.templateId, 'templateId'), versionId: text(row.versionId, 'versionId') };
}

/** A live template of the team with its current version, or null. */
export async function liveTemplateToPin(scope: TeamScope, templateId: string): Promise<ResolvedTemplate | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select id as "templateId", current_version_id as "versionId" from product_info_templates
        where id = ? and team_id = ? and deleted_at is null`,
    [templateId, scope.teamId],
  );
  return row && resolvedOf(row);
}

/** The team's library default with its current version, or null. */
export async function libraryDefaultToPin(scope: TeamScope): Promise<ResolvedTemplate | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select id as "templateId", current_version_id as "versionId" from product_info_templates
      where team_id = ? and is_library_default and deleted_at is null`,
    [scope.teamId],
  );
  return row && resolvedOf(row);
}

/** An arbitrary constant naming the per-team advisory lock around library-default changes. */
const LIBRARY_DEFAULT_LOCK = 7_424_301;

/** Takes the team's library-default lock until the transaction ends. */
export async function lockLibraryDefault(tx: TeamScope): Promise<void> {
  await queryOne(tx, 'select pg_advisory_xact_lock(?, ?)', [LIBRARY_DEFAULT_LOCK, tx.teamId]);
}

/** The live templates of the team other than `templateId` stop being the library default (updatedAt bumped). */
export async function clearOtherLibraryDefaults(tx: TeamScope, templateId: string): Promise<void> {
  await queryRows(
    tx,
    `update product_info_templates set is_library_default = false, updated_at = now()
      where team_id = ? and is_library_default and deleted_at is null and id <> ?`,
    [tx.teamId, templateId],
  );
}

/** Sets whether a template of the team is the library default. */
export async function setLibraryDefault(tx: TeamScope, templateId: string, isDefault: boolean): Promise<void> {
  if (isDefault) {
    await queryRows(tx, 'update product_info_templates set is_library_default = true where id = ? and team_id = ?', [templateId, tx.teamId]);
  } else {
    await queryRows(tx, 'update product_info_templates set is_library_default = false where id = ? and team_id = ?', [templateId, tx.teamId]);
  }
}

/** The team's live library default, held FOR SHARE until the transaction ends (it cannot be deleted or replaced meanwhile); null when there is none. */
export async function lockLibraryDefaultForShare(tx: TeamScope): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'select id from product_info_templates where team_id = ? and is_library_default and deleted_at is null for share',
    [tx.teamId],
  );
  return row && text(row.id, 'id');
}
