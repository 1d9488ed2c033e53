import type { UnitOfWork, TeamScope } from '../../platform/ctx.ts';
import { escapeLike, intArray, preparedSql, queryOne, queryRows, type PreparedSql } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { ProductRecord } from './product-projection.ts';
import type { ProductStatus } from './product.schemas.ts';
import type { VersionedMemo } from '../../platform/versioned-memo.ts';
import { readCountVersion } from './product-totals.ts';
import type { SyncPosition } from './sync-cursor.ts';

/*
 * Every read of the products table, in lean SQL, in one place so the list and sync statements can
 * be measured (bench/) and tuned together with their indexes (product.entity.ts):
 * - products_live_updated (team_id, updated_at, id) where live: list order (backwards) and sync order;
 * - products_live_published_updated: the same for roles that see published products only;
 * - products_live_brand_updated / products_live_category_updated: the brandId / categoryId filters;
 * - trigram indexes on name and spu, and the GIN index on media_file_ids, for search.
 */

/** The ProductRecord columns of `products p`. */
export const RECORD_COLUMNS = `p.id, p.name, p.spu, p.description, p.status, p.brand_id as "brandId", p.category_id as "categoryId",
  p.owner_id as "ownerUserId", ${isoSql('p.published_at')} as "publishedAt", ${isoSql('p.created_at')} as "createdAt",
  ${isoSql('p.updated_at')} as "updatedAt", p.draft_reason as "draftReason", p.template_id as "templateId",
  p.template_version_id as "templateVersionId", p.template_fields as "templateFields", p.media_fields as "mediaFields",
  p.cover_file_id as "coverFileId", p.image_file_ids as "imageFileIds", p.related_file_ids as "relatedFileIds"`;

/** Rows from pg (or from json_agg) into records: int[] may arrive as strings through some paths. */
export function recordOf(row: ProductRecord): ProductRecord {
  const ints = (ids: unknown[]) => ids.map(Number);
  const mediaFields: Record<string, number[]> = {};
  for (const [field, ids] of Object.entries(row.mediaFields ?? {})) mediaFields[field] = ints(ids);
  return {
    ...row,
    templateFields: row.templateFields ?? {},
    mediaFields,
    imageFileIds: ints(row.imageFileIds ?? []),
    relatedFileIds: ints(row.relatedFileIds ?? []),
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

/** One live product of the caller's team; `lock` takes its row for the rest of the transaction. */
export async function readProduct(ctx: TeamScope, id: number, options: { publishedOnly?: boolean; lock?: boolean } = {}): Promise<ProductRecord | null> {
  const row = await queryOne<ProductRecord>(
    ctx,
    `select ${RECORD_COLUMNS} from products p where p.id = ? and p.team_id = ? and p.deleted_at is null
      ${options.publishedOnly ? `and p.status = 'published'` : ''}${options.lock ? ' for update' : ''}`,
    [id, ctx.teamId],
  );
  return row && recordOf(row);
}

/** Live products of the caller's team among `ids` (within visibility), in no particular order. */
export async function readProductsByIds(ctx: TeamScope, ids: readonly number[], publishedOnly: boolean): Promise<ProductRecord[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<ProductRecord>(
    ctx,
    `select ${RECORD_COLUMNS} from products p where p.team_id = ? and p.deleted_at is null and p.id = any(?::int[])
      ${publishedOnly ? `and p.status = 'published'` : ''}`,
    [ctx.teamId, intArray(ids)],
  );
  return rows.map(recordOf);
}

/** The ids among `ids` the caller can see (spec 4.5 rule 5: filters do not apply). */
export async function visibleProductIds(ctx: TeamScope, ids: readonly number[], publishedOnly: boolean): Promise<Set<number>> {
  const rows = await queryRows<{ id: number }>(
    ctx,
    `select p.id from products p where p.team_id = ? and p.deleted_at is null and p.id = any(?::int[])
      ${publishedOnly ? `and p.status = 'published'` : ''}`,
    [ctx.teamId, intArray(ids)],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Ordinary listing (spec 4.5): updatedAt then id descending, offset pagination. The page is chosen
 * on the narrow index columns first and only its rows are read and rendered. The total is exact
 * and memoized by the team's product version (product-totals.ts): a window count over the
 * filtered set cost the whole index range on every request (at 1,000,000 products, every request
 * of the benchmark timed out). The version is read alongside the page, before any count runs.
 */
export async function readListPage(
  ctx: TeamScope,
  filters: ProductFilters,
  limit: number,
  offset: number,
  totals: VersionedMemo<number>,
): Promise<{ records: ProductRecord[]; total: number }> {
  const where = filterSql(ctx.teamId, filters);
  const search = filters.search === null ? null : searchSql(ctx.teamId, filters.search);
  const condition = search ? `${where.sql} and ${search.sql}` : where.sql;
  const params = [...where.params, ...(search?.params ?? [])];
  const pageSql = `with page as (
       select p.id, p.updated_at from products p where ${condition} order by p.updated_at desc, p.id desc limit ? offset ?
     )
     select ${RECORD_COLUMNS} from page join products p on p.id = page.id order by page.updated_at desc, page.id desc`;
  const countSql = `select count(*)::int as n from products p where ${condition}`;
  const [rows, version] = await Promise.all([
    queryRows<ProductRecord>(ctx, statementFor('list', pageSql, search === null), [...params, limit, offset]),
    readCountVersion(ctx, search !== null),
  ]);
  const total = await totals.get(ctx.teamId, version, filterKey(filters), async () => {
    const counted = await queryOne<{ n: number }>(ctx, statementFor('count', countSql, search === null), params);
    return counted!.n;
  });
  return { records: rows.map(recordOf), total };
}

/** The memo key of a filtered set: visibility and every filter (search as trimmed). */
function filterKey(f: ProductFilters): string {
  return JSON.stringify([f.publishedOnly, f.status, f.brandId, f.categoryId, f.search]);
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

/** Spec 4.5 sync bounds, from the database clock: the fixed upper bound and the normalized lower bound. */
export async function readSyncBounds(ctx: UnitOfWork, updatedAfter: string | null): Promise<{ upper: string; lower: string | null }> {
  const row = await queryOne<{ upper: string; lower: string | null }>(
    ctx,
    `select ${isoSql(`(now() - interval '30 seconds')`)} as upper, ${isoSql('?::timestamptz')} as lower`,
    [updatedAfter],
  );
  return row!;
}

/** An RFC 3339 timestamp with 0-6 fractional digits as six digits in UTC (parsed by PostgreSQL, never by Date). */
export async function normalizeTimestamp(ctx: UnitOfWork, value: string): Promise<string> {
  const row = await queryOne<{ t: string }>(ctx, `select ${isoSql('?::timestamptz')} as t`, [value]);
  return row!.t;
}

export interface SyncWindow {
  lower: string | null;
  upper: string;
  /** The last row of the previous page (exclusive); null on the first page. */
  after: SyncPosition | null;
}

export interface SyncSlice {
  records: ProductRecord[];
  /** Where the next page starts, or null when the window is exhausted. */
  next: SyncPosition | null;
}

/**
 * One sync page (spec 4.5): (updatedAt, id) ascending within [lower, upper), after the cursor's
 * position, keyset style. Without search, pageSize + 1 rows tell whether more follow. With search,
 * at most `scanLimit` window rows are examined per page, so a rare term cannot make one request
 * walk the whole table: a page may then come back short or empty with a cursor to continue from
 * the last row examined (hasMore true).
 */
export async function readSyncSlice(ctx: TeamScope, filters: ProductFilters, window: SyncWindow, pageSize: number, scanLimit: number): Promise<SyncSlice> {
  const where = filterSql(ctx.teamId, filters);
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
  const condition = parts.join(' and ');
  if (filters.search === null) {
    const sql = `select ${RECORD_COLUMNS} from products p where ${condition} order by p.updated_at, p.id limit ?`;
    const rows = await queryRows<ProductRecord>(ctx, statementFor('sync', sql, true), [...params, pageSize + 1]);
    return sliceOf(rows.map(recordOf), pageSize, null);
  }
  const search = searchSql(ctx.teamId, filters.search);
  const row = await queryOne<{ scanned: number; lastAt: string | null; lastId: number | null; rows: ProductRecord[] }>(
    ctx,
    `with scanned as (
       select p.id, p.updated_at, ${search.sql} as hit from products p where ${condition}
        order by p.updated_at, p.id limit ?
     ), hits as (
       select id, updated_at from scanned where hit order by updated_at, id limit ?
     ), last as (
       select ${isoSql('updated_at')} as at, id from scanned order by updated_at desc, id desc limit 1
     )
     select (select count(*)::int from scanned) as scanned, (select at from last) as "lastAt", (select id from last) as "lastId",
       coalesce((select json_agg(x order by x."updatedAt", x.id) from (
         select ${RECORD_COLUMNS} from hits h join products p on p.id = h.id) x), '[]') as rows`,
    [...search.params, ...params, scanLimit, pageSize + 1],
  );
  const exhausted = row!.scanned < scanLimit;
  const lastScanned = exhausted || row!.lastAt === null ? null : { updatedAt: row!.lastAt, id: row!.lastId! };
  return sliceOf(row!.rows.map(recordOf), pageSize, lastScanned);
}

function sliceOf(records: ProductRecord[], pageSize: number, lastScanned: SyncPosition | null): SyncSlice {
  if (records.length > pageSize) {
    const page = records.slice(0, pageSize);
    const last = page[page.length - 1]!;
    return { records: page, next: { updatedAt: last.updatedAt, id: last.id } };
  }
  return { records, next: lastScanned };
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
    queryOne<{ n: number }>(ctx, `select count(*)::int as n from products p where ${where}`, [ctx.teamId, versionId]),
    queryRows<ProductRecord>(ctx, `select ${RECORD_COLUMNS} from products p where ${where} order by p.id limit ? offset ?`, [
      ctx.teamId,
      versionId,
      limit,
      offset,
    ]),
  ]);
  return { records: rows.map(recordOf), total: count!.n };
}
