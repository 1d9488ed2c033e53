import { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE } from '../../assets/versions/version-lines.queries.ts';
import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { bigintNumber, int, jsonList, nullableInt, nullableText, oneOf, text } from '../../platform/row-checks.ts';
import { escapeLike, intArray, type PreparedSql, preparedSql, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { PRODUCT_STATUSES, type ProductStatus } from './product.schemas.ts';
import { allFileIds } from './product-media.ts';
import type { ProductRecord } from './product-projection.ts';
import type { ProductDraft } from './product-write.ts';
import type { SyncPosition } from './sync-cursor.ts';

/*
 * Statements on products (products, and the product_versions counter its trigger raises). Every
 * statement names the team. The list and sync statements are measured (bench/) and tuned together
 * with their indexes (product.entity.ts):
 * - products_live_updated (team_id, updated_at, id) where live: list order (backwards) and sync order;
 * - products_live_published_updated: the same for roles that see published products only;
 * - products_live_brand_updated / products_live_category_updated: the brandId / categoryId filters;
 * - trigram indexes on name and spu, and the GIN index on media_file_ids, for search.
 */

/**
 * The ProductRecord's fields and the columns of `products p` each is read from, in recordOf's
 * order: the one list every select of a record, and the sync feed's union, are written from.
 */
const RECORD_FIELDS = [
  ['id', 'p.id'],
  ['name', 'p.name'],
  ['spu', 'p.spu'],
  ['description', 'p.description'],
  ['status', 'p.status'],
  ['brandId', 'p.brand_id'],
  ['categoryId', 'p.category_id'],
  ['ownerUserId', 'p.owner_id'],
  ['publishedAt', isoSql('p.published_at')],
  ['createdAt', isoSql('p.created_at')],
  ['updatedAt', isoSql('p.updated_at')],
  ['draftReason', 'p.draft_reason'],
  ['templateId', 'p.template_id'],
  ['templateVersionId', 'p.template_version_id'],
  ['templateFields', 'p.template_fields'],
  ['mediaFields', 'p.media_fields'],
  ['coverFileId', 'p.cover_file_id'],
  ['imageFileIds', 'p.image_file_ids'],
  ['relatedFileIds', 'p.related_file_ids'],
] as const satisfies readonly (readonly [keyof ProductRecord, string])[];

/** The names a record's columns are read as (a union's outer select passes them on by these). */
export const RECORD_NAMES: readonly (keyof ProductRecord)[] = RECORD_FIELDS.map(([name]) => name);

/** A record's select list, with some fields read from other expressions. */
function recordSelect(instead: Partial<Record<keyof ProductRecord, string>> = {}): string {
  return RECORD_FIELDS.map(([name, column]) => `${instead[name] ?? column} as "${name}"`).join(', ');
}

/** The ProductRecord columns of `products p`. */
export const RECORD_COLUMNS = recordSelect();

/**
 * Where a listed record's template fields would be: a marker with their stored size. Pages of
 * products are chosen and ordered with their light columns, and the template fields (up to about
 * 1 MB a product) are read batch by batch while the answer is written, under the answer budget
 * (readTemplateFieldsOf; platform/answer-budget.ts). `$` is not allowed in a field key, so the
 * marker can never be a product's own field.
 */
export const DEFERRED_FIELDS_SIZE = '$storedBytes';

/** RECORD_COLUMNS with the template fields deferred (the marker in their place). */
export const LISTED_RECORD_COLUMNS = recordSelect({
  templateFields: `jsonb_build_object('${DEFERRED_FIELDS_SIZE}', octet_length(p.template_fields::text))`,
});

/** The stored size of a listed record's deferred template fields, or null when the record carries them. */
export function deferredFieldsSize(record: Pick<ProductRecord, 'templateFields'>): number | null {
  const size = record.templateFields[DEFERRED_FIELDS_SIZE];
  return typeof size === 'number' ? size : null;
}

/**
 * The template fields of listed products as they are now, with the updatedAt they belong to, by
 * id; products deleted meanwhile are missing. Visibility is the caller's: a product unpublished
 * meanwhile is missing for roles that see published products only.
 */
export async function readTemplateFieldsOf(
  ctx: TeamScope,
  ids: readonly number[],
  publishedOnly: boolean,
): Promise<Map<number, { updatedAt: string; templateFields: Record<string, unknown> }>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<Record<string, unknown>>(
    ctx,
    `select p.id, ${isoSql('p.updated_at')} as "updatedAt", p.template_fields as "templateFields" from products p
      where p.team_id = ? and p.deleted_at is null and p.id = any(?::int[]) ${publishedOnly ? `and p.status = 'published'` : ''}`,
    [ctx.teamId, intArray(ids)],
  );
  return new Map(
    rows.map((row) => [int(row.id, 'id'), { updatedAt: text(row.updatedAt, 'updatedAt'), templateFields: jsonObject(row.templateFields, 'templateFields') }]),
  );
}

/** A list of file ids (an int[] column, or a JSON array of a jsonb value): numbers, or digits as text on some paths. */
function fileIds(value: unknown, column: string): number[] {
  if (value === null || value === undefined) return [];
  const list = jsonList(value, column);
  const ids = new Array<number>(list.length);
  for (let i = 0; i < list.length; i++) {
    const id = list[i];
    // the check's column name is built only when an id is not a plain integer: this runs for every id of every page
    ids[i] = typeof id === 'number' && Number.isSafeInteger(id) ? id : bigintNumber(id, `${column}[${i}]`);
  }
  return ids;
}

/** A jsonb object column (null reads as empty). */
function jsonObject(value: unknown, column: string): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`column ${column}: expected a JSON object, got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/**
 * A row of RECORD_COLUMNS (from pg, or from json_agg) as a record, built field by field in the
 * columns' order, each column checked.
 */
export function recordOf(row: object): ProductRecord {
  const r = row as Record<string, unknown>;
  const mediaFields: Record<string, number[]> = {};
  for (const [field, ids] of Object.entries(jsonObject(r.mediaFields, 'mediaFields'))) mediaFields[field] = fileIds(ids, `mediaFields.${field}`);
  return {
    id: int(r.id, 'id'),
    name: text(r.name, 'name'),
    spu: nullableText(r.spu, 'spu'),
    description: nullableText(r.description, 'description'),
    status: oneOf(PRODUCT_STATUSES, r.status, 'status'),
    brandId: nullableInt(r.brandId, 'brandId'),
    categoryId: nullableInt(r.categoryId, 'categoryId'),
    ownerUserId: nullableInt(r.ownerUserId, 'ownerUserId'),
    publishedAt: nullableText(r.publishedAt, 'publishedAt'),
    createdAt: text(r.createdAt, 'createdAt'),
    updatedAt: text(r.updatedAt, 'updatedAt'),
    draftReason: nullableText(r.draftReason, 'draftReason'),
    templateId: nullableText(r.templateId, 'templateId'),
    templateVersionId: nullableText(r.templateVersionId, 'templateVersionId'),
    templateFields: jsonObject(r.templateFields, 'templateFields'),
    mediaFields,
    coverFileId: nullableInt(r.coverFileId, 'coverFileId'),
    imageFileIds: fileIds(r.imageFileIds, 'imageFileIds'),
    relatedFileIds: fileIds(r.relatedFileIds, 'relatedFileIds'),
  };
}

/** What a caller may see and which filters apply (spec 4.5; 3.1 visibility). */
export interface ProductFilters {
  /** view_only and usable: published products only, whatever `status` says. */
  publishedOnly: boolean;
  status: ProductStatus | null;
  brandId: number | null;
  categoryId: number | null;
  /** Trimmed, non-empty; null for no search. */
  search: string | null;
}

/** LIKE pattern for "contains", with the wildcards of the search text escaped (backslash is LIKE's escape). */
function containsPattern(search: string): string {
  return `%${escapeLike(search)}%`;
}

/** The condition of visibility and filters (search aside) on `products p`. */
export function filterSql(teamId: number, f: ProductFilters): { sql: string; params: unknown[] } {
  const parts = ['p.team_id = ?', 'p.deleted_at is null'];
  const params: unknown[] = [teamId];
  if (f.publishedOnly) parts.push(`p.status = 'published'`);
  if (f.status !== null) {
    parts.push('p.status = ?');
    params.push(f.status);
  }
  if (f.brandId !== null) {
    parts.push('p.brand_id = ?');
    params.push(f.brandId);
  }
  if (f.categoryId !== null) {
    parts.push('p.category_id = ?');
    params.push(f.categoryId);
  }
  return { sql: parts.join(' and '), params };
}

/**
 * Spec 4.5 search: a case-insensitive substring of the name, the spu, or the library name of any
 * media file of the product. The matching files are found once (an uncorrelated subquery) and
 * compared with the GIN-indexed media_file_ids.
 */
function searchSql(teamId: number, search: string): { sql: string; params: unknown[] } {
  const pattern = containsPattern(search);
  return {
    sql: `(p.name ilike ? or p.spu ilike ? or p.media_file_ids && array(
            select f.id from library_files f where f.team_id = ? and f.deleted_at is null and f.name ilike ?))`,
    params: [pattern, pattern, teamId, pattern],
  };
}

const statements = new Map<string, PreparedSql>();

/**
 * A named prepared statement per distinct filter combination (a handful: the SQL text depends only
 * on which filters are present), so PostgreSQL plans the hot page and count statements once per
 * connection. Search statements stay plain text: their trigram selectivity depends on the term, and
 * a generic plan would lose it.
 */
function statementFor(kind: string, sql: string, prepare: boolean): string | PreparedSql {
  if (!prepare) return sql;
  let statement = statements.get(sql);
  if (!statement) {
    statement = preparedSql(`products.${kind}.${statements.size + 1}`, sql);
    statements.set(sql, statement);
  }
  return statement;
}

/** One live product of the caller's team; `lock` takes its row for the rest of the transaction. */
export async function readProduct(ctx: TeamScope, id: number, options: { publishedOnly?: boolean; lock?: boolean } = {}): Promise<ProductRecord | null> {
  const row = await queryOne<Record<string, unknown>>(
    ctx,
    `select ${RECORD_COLUMNS} from products p where p.id = ? and p.team_id = ? and p.deleted_at is null
      ${options.publishedOnly ? `and p.status = 'published'` : ''}${options.lock ? ' for update' : ''}`,
    [id, ctx.teamId],
  );
  return row && recordOf(row);
}

/** The statement of readProductWithLive per visibility and lock, prepared: every product read and write runs one. */
const WITH_LIVE: Record<string, PreparedSql> = Object.fromEntries(
  [false, true].flatMap((publishedOnly) =>
    [false, true].map((lock) => [
      `${publishedOnly}/${lock}`,
      preparedSql(
        `products.withLive.${publishedOnly ? 'published' : 'all'}${lock ? '.lock' : ''}`,
        `select ${RECORD_COLUMNS},
            (select coalesce(jsonb_agg(jsonb_build_array(r.id, ${VISIBLE_ID})), '[]'::jsonb) from ${VISIBLE_FROM}
              where r.team_id = p.team_id and r.id = any(p.media_file_ids) and ${VISIBLE_WHERE}) as "liveFiles"
           from products p where p.id = ? and p.team_id = ? and p.deleted_at is null
          ${publishedOnly ? `and p.status = 'published'` : ''}${lock ? ' for update of p' : ''}`,
      ),
    ]),
  ),
);

/**
 * One live product of the caller's team with its references that resolve to a live file, each to
 * the file shown for it (as visibleFileIds answers them), in one statement: what a read's ETag and
 * a write's If-Match are computed over. `lock` takes the product's row (not the files') for the rest
 * of the transaction.
 */
export async function readProductWithLive(
  ctx: TeamScope,
  id: number,
  options: { publishedOnly?: boolean; lock?: boolean } = {},
): Promise<{ record: ProductRecord; live: Map<number, number> } | null> {
  const row = await queryOne<Record<string, unknown>>(ctx, WITH_LIVE[`${options.publishedOnly === true}/${options.lock === true}`]!, [id, ctx.teamId]);
  if (!row) return null;
  const live = new Map<number, number>();
  for (const pair of jsonList(row.liveFiles, 'liveFiles')) {
    const [requested, shown] = jsonList(pair, 'liveFiles[]');
    live.set(int(requested, 'liveFiles[][0]'), int(shown, 'liveFiles[][1]'));
  }
  return { record: recordOf(row), live };
}

/** Live products of the caller's team among `ids` (within visibility), in no particular order. */
export async function readProductsByIds(ctx: TeamScope, ids: readonly number[], publishedOnly: boolean): Promise<ProductRecord[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    ctx,
    `select ${RECORD_COLUMNS} from products p where p.team_id = ? and p.deleted_at is null and p.id = any(?::int[])
      ${publishedOnly ? `and p.status = 'published'` : ''}`,
    [ctx.teamId, intArray(ids)],
  );
  return rows.map(recordOf);
}

/** The ids among `ids` the caller can see (spec 4.5 rule 5: filters do not apply). */
export async function visibleProductIds(ctx: TeamScope, ids: readonly number[], publishedOnly: boolean): Promise<Set<number>> {
  const rows = await queryRows<Record<string, unknown>>(
    ctx,
    `select p.id from products p where p.team_id = ? and p.deleted_at is null and p.id = any(?::int[])
      ${publishedOnly ? `and p.status = 'published'` : ''}`,
    [ctx.teamId, intArray(ids)],
  );
  return new Set(rows.map((r) => int(r.id, 'id')));
}

/** The condition of an ordinary list (filters and search) and its parameters; whether it searches. */
function listCondition(teamId: number, filters: ProductFilters): { sql: string; params: unknown[]; searching: boolean } {
  const where = filterSql(teamId, filters);
  const search = filters.search === null ? null : searchSql(teamId, filters.search);
  return {
    sql: search ? `${where.sql} and ${search.sql}` : where.sql,
    params: [...where.params, ...(search?.params ?? [])],
    searching: search !== null,
  };
}

/**
 * A page of an ordinary listing (spec 4.5): updatedAt then id descending, offset pagination. The
 * page is chosen on the narrow index columns first and only its rows are read and rendered.
 */
export async function readListPageRecords(ctx: TeamScope, filters: ProductFilters, limit: number, offset: number): Promise<ProductRecord[]> {
  const condition = listCondition(ctx.teamId, filters);
  const pageSql = `with page as (
       select p.id, p.updated_at from products p where ${condition.sql} order by p.updated_at desc, p.id desc limit ? offset ?
     )
     select ${LISTED_RECORD_COLUMNS} from page join products p on p.id = page.id order by page.updated_at desc, page.id desc`;
  const rows = await queryRows<Record<string, unknown>>(ctx, statementFor('list', pageSql, !condition.searching), [...condition.params, limit, offset]);
  return rows.map(recordOf);
}

/** How many products an ordinary listing holds (the exact total; product-totals.ts memoizes it). */
export async function countListed(ctx: TeamScope, filters: ProductFilters): Promise<number> {
  const condition = listCondition(ctx.teamId, filters);
  const countSql = `select count(*)::int as n from products p where ${condition.sql}`;
  const counted = await queryOne<Record<string, unknown>>(ctx, statementFor('count', countSql, !condition.searching), condition.params);
  return int(counted!.n, 'n');
}

const PRODUCT_VERSION = preparedSql('products.version', `select coalesce((select version from product_versions where team_id = ?), 0)::text as version`);
const PRODUCT_AND_LIBRARY_VERSION = preparedSql(
  'products.versionWithLibrary',
  `select coalesce((select version from product_versions where team_id = ?), 0)::text || '.' ||
          coalesce((select version from library_versions where team_id = ?), 0)::text as version`,
);

/** The team's product version (with `withLibrary`, joined with its library version), as text: what a memoized total is keyed by. */
export async function productCountVersion(ctx: TeamScope, withLibrary: boolean): Promise<string> {
  const row = withLibrary
    ? await queryOne<Record<string, unknown>>(ctx, PRODUCT_AND_LIBRARY_VERSION, [ctx.teamId, ctx.teamId])
    : await queryOne<Record<string, unknown>>(ctx, PRODUCT_VERSION, [ctx.teamId]);
  return text(row!.version, 'version');
}

/** Spec 4.5 sync bounds, from the database clock: the fixed upper bound and the normalized lower bound. */
export async function readSyncBounds(ctx: UnitOfWork, updatedAfter: string | null): Promise<{ upper: string; lower: string | null }> {
  const row = await queryOne<Record<string, unknown>>(
    ctx,
    `select ${isoSql(`(now() - interval '30 seconds')`)} as upper, ${isoSql('?::timestamptz')} as lower`,
    [updatedAfter],
  );
  return { upper: text(row!.upper, 'upper'), lower: nullableText(row!.lower, 'lower') };
}

/** An RFC 3339 timestamp with 0-6 fractional digits as six digits in UTC (parsed by PostgreSQL, never by Date). */
export async function normalizeTimestamp(ctx: UnitOfWork, value: string): Promise<string> {
  const row = await queryOne<Record<string, unknown>>(ctx, `select ${isoSql('?::timestamptz')} as t`, [value]);
  return text(row!.t, 't');
}

export interface SyncWindow {
  lower: string | null;
  upper: string;
  /** The last row of the previous page (exclusive); null on the first page. */
  after: SyncPosition | null;
}

/** The condition of a sync window (filters, bounds, after the cursor's position) on `products p`. */
function windowCondition(teamId: number, filters: ProductFilters, window: SyncWindow): { sql: string; params: unknown[] } {
  const where = filterSql(teamId, filters);
  const parts = [where.sql, 'p.updated_at < ?::timestamptz'];
  const params = [...where.params, window.upper];
  if (window.lower !== null) {
    parts.push('p.updated_at >= ?::timestamptz');
    params.push(window.lower);
  }
  if (window.after !== null) {
    parts.push('(p.updated_at, p.id) > (?::timestamptz, ?)');
    params.push(window.after.updatedAt, window.after.id);
  }
  return { sql: parts.join(' and '), params };
}

/** The first `limit` products of a sync window without search, (updatedAt, id) ascending. */
export async function readSyncRecords(ctx: TeamScope, filters: ProductFilters, window: SyncWindow, limit: number): Promise<ProductRecord[]> {
  const condition = windowCondition(ctx.teamId, filters, window);
  const sql = `select ${LISTED_RECORD_COLUMNS} from products p where ${condition.sql} order by p.updated_at, p.id limit ?`;
  const rows = await queryRows<Record<string, unknown>>(ctx, statementFor('sync', sql, true), [...condition.params, limit]);
  return rows.map(recordOf);
}

/** What a searching sync scan examined: how many window rows, the last of them, and the hits among them. */
export interface SyncScan {
  scanned: number;
  /** The last row examined; null when none was. */
  last: SyncPosition | null;
  records: ProductRecord[];
}

/**
 * A searching sync scan: at most `scanLimit` rows of the window ((updatedAt, id) ascending) are
 * examined, and the first `hitLimit` of them that match the search are read.
 */
export async function scanSyncSearch(
  ctx: TeamScope,
  filters: ProductFilters & { search: string },
  window: SyncWindow,
  scanLimit: number,
  hitLimit: number,
): Promise<SyncScan> {
  const condition = windowCondition(ctx.teamId, filters, window);
  const search = searchSql(ctx.teamId, filters.search);
  const row = await queryOne<Record<string, unknown>>(
    ctx,
    `with scanned as (
       select p.id, p.updated_at, ${search.sql} as hit from products p where ${condition.sql}
        order by p.updated_at, p.id limit ?
     ), hits as (
       select id, updated_at from scanned where hit order by updated_at, id limit ?
     ), last as (
       select ${isoSql('updated_at')} as at, id from scanned order by updated_at desc, id desc limit 1
     )
     select (select count(*)::int from scanned) as scanned, (select at from last) as "lastAt", (select id from last) as "lastId",
       coalesce((select json_agg(x order by x."updatedAt", x.id) from (
         select ${LISTED_RECORD_COLUMNS} from hits h join products p on p.id = h.id) x), '[]') as rows`,
    [...search.params, ...condition.params, scanLimit, hitLimit],
  );
  const lastAt = nullableText(row!.lastAt, 'lastAt');
  return {
    scanned: int(row!.scanned, 'scanned'),
    last: lastAt === null ? null : { updatedAt: lastAt, id: int(row!.lastId, 'lastId') },
    records: jsonList(row!.rows, 'rows').map((record) => recordOf(record as object)),
  };
}

/** For the category deletion guard (spec 3.2): whether a live product references any of the categories. */
export async function hasLiveProductInCategories(tx: TeamScope, categoryIds: readonly number[]): Promise<boolean> {
  if (categoryIds.length === 0) return false;
  const row = await queryOne(tx, 'select 1 from products where team_id = ? and deleted_at is null and category_id = any(?::int[]) limit 1', [
    tx.teamId,
    intArray(categoryIds),
  ]);
  return row !== null;
}

/** For the brand deletion guard (spec 3.2): whether the brand has live products. */
export async function hasLiveProductInBrand(tx: TeamScope, brandId: number): Promise<boolean> {
  const row = await queryOne(tx, 'select 1 from products where team_id = ? and brand_id = ? and deleted_at is null limit 1', [tx.teamId, brandId]);
  return row !== null;
}

/**
 * A page of the live products pinned to one template version, by id ascending, with their total,
 * within the caller's visibility (the bulk template-upgrade preview; index products_live_template_version).
 * Their template fields are deferred (LISTED_RECORD_COLUMNS): read batch by batch by completeListed.
 */
export async function readPinnedProductsPage(
  ctx: TeamScope,
  versionId: string,
  publishedOnly: boolean,
  limit: number,
  offset: number,
): Promise<{ records: ProductRecord[]; total: number }> {
  const where = `p.team_id = ? and p.template_version_id = ? and p.deleted_at is null${publishedOnly ? ` and p.status = 'published'` : ''}`;
  const [count, rows] = await Promise.all([
    queryOne<Record<string, unknown>>(ctx, `select count(*)::int as n from products p where ${where}`, [ctx.teamId, versionId]),
    queryRows<Record<string, unknown>>(ctx, `select ${LISTED_RECORD_COLUMNS} from products p where ${where} order by p.id limit ? offset ?`, [
      ctx.teamId,
      versionId,
      limit,
      offset,
    ]),
  ]);
  return { records: rows.map(recordOf), total: int(count!.n, 'n') };
}

/** The columns a draft writes (creation and edits alike): each column, its parameter's cast, and its value. */
const DRAFT_COLUMNS: readonly { column: string; cast: string; value: (draft: ProductDraft) => unknown }[] = [
  { column: 'name', cast: '', value: (draft) => draft.name },
  { column: 'spu', cast: '', value: (draft) => draft.spu },
  { column: 'description', cast: '', value: (draft) => draft.description },
  { column: 'brand_id', cast: '', value: (draft) => draft.brandId },
  { column: 'category_id', cast: '', value: (draft) => draft.categoryId },
  { column: 'owner_id', cast: '', value: (draft) => draft.ownerUserId },
  { column: 'template_fields', cast: '::jsonb', value: (draft) => JSON.stringify(draft.values.templateFields) },
  { column: 'media_fields', cast: '::jsonb', value: (draft) => JSON.stringify(draft.values.mediaFields) },
  { column: 'cover_file_id', cast: '', value: (draft) => draft.coverFileId },
  { column: 'image_file_ids', cast: '::int[]', value: (draft) => intArray(draft.imageFileIds) },
  { column: 'related_file_ids', cast: '::int[]', value: (draft) => intArray(draft.relatedFileIds) },
  { column: 'media_file_ids', cast: '::int[]', value: (draft) => intArray(allFileIds({ ...draft, mediaFields: draft.values.mediaFields })) },
];

const DRAFT_INSERT_COLUMNS = DRAFT_COLUMNS.map((c) => c.column).join(', ');
const DRAFT_INSERT_VALUES = DRAFT_COLUMNS.map((c) => `?${c.cast}`).join(', ');
const DRAFT_ASSIGNMENTS = DRAFT_COLUMNS.map((c) => `${c.column} = ?${c.cast}`).join(', ');

function draftParams(draft: ProductDraft): unknown[] {
  return DRAFT_COLUMNS.map((c) => c.value(draft));
}

/**
 * Inserts a draft (spec 3.1: creation always makes a draft). created_at and updated_at come from
 * one clock_timestamp(): the moment of the write, not of the transaction start, which keeps the
 * gap between a row's updatedAt and its commit as small as possible for sync (docs/products.md).
 */
export async function insertDraft(
  tx: TeamScope,
  draft: ProductDraft,
  pin: { templateId: string; versionId: string } | null,
  draftReason: string | null,
): Promise<ProductRecord> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into products as p (team_id, status, draft_reason, template_id, template_version_id, ${DRAFT_INSERT_COLUMNS}, created_at, updated_at)
     select ?, 'draft', ?, ?, ?, ${DRAFT_INSERT_VALUES}, c.t, c.t
       from (select clock_timestamp() as t) c
     returning ${RECORD_COLUMNS}`,
    [tx.teamId, draftReason, pin?.templateId ?? null, pin?.versionId ?? null, ...draftParams(draft)],
  );
  return recordOf(row!);
}

/** Writes the draft's fields over a locked product and bumps updatedAt from the database clock. */
export async function updateFields(tx: TeamScope, id: number, draft: ProductDraft, draftReason: string | null): Promise<ProductRecord> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update products p set draft_reason = ?, ${DRAFT_ASSIGNMENTS}, updated_at = clock_timestamp()
      where p.id = ? and p.team_id = ?
     returning ${RECORD_COLUMNS}`,
    [draftReason, ...draftParams(draft), id, tx.teamId],
  );
  return recordOf(row!);
}

/** Moves a locked product's pin to another version of its template (a template upgrade); updateFields then writes its values. */
export async function repinTemplateVersion(tx: TeamScope, id: number, versionId: string): Promise<void> {
  await queryOne(tx, 'update products set template_version_id = ? where id = ? and team_id = ? returning id', [versionId, id, tx.teamId]);
}

/** Sets the status columns of a locked product (assignments written here, with their parameters) and bumps updatedAt from the database clock. */
async function setStatus(tx: TeamScope, id: number, assignments: string, params: unknown[]): Promise<ProductRecord> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update products p set ${assignments}, updated_at = c.t from (select clock_timestamp() as t) c
      where p.id = ? and p.team_id = ? returning ${RECORD_COLUMNS}`,
    [...params, id, tx.teamId],
  );
  return recordOf(row!);
}

/** Publishes a locked product: publishedAt now, no draft reason. */
export async function publishProduct(tx: TeamScope, id: number): Promise<ProductRecord> {
  return setStatus(tx, id, `status = 'published', published_at = c.t, draft_reason = null`, []);
}

/** Makes a locked product a draft again, with why it cannot be published as it stands. */
export async function unpublishProduct(tx: TeamScope, id: number, draftReason: string | null): Promise<ProductRecord> {
  return setStatus(tx, id, `status = 'draft', published_at = null, draft_reason = ?`, [draftReason]);
}

/** Soft-deletes a locked product (its row and spu stay). */
export async function softDeleteProduct(tx: TeamScope, id: number): Promise<ProductRecord> {
  return setStatus(tx, id, 'deleted_at = c.t', []);
}
