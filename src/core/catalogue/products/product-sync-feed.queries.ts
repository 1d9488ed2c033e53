import type { TeamScope } from '../../platform/ctx.ts';
import { type PreparedSql, preparedSql, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { ProductRecord } from './product-projection.ts';
import { filterSql, LISTED_RECORD_COLUMNS, type ProductFilters, RECORD_NAMES, recordOf } from './products.queries.ts';

/*
 * The SQL of the sync feed (docs/products.md "Sync feed"), in lean SQL next to the service:
 * - products_live_updated / products_live_published_updated (team_id, updated_at, id): the
 *   products' own updates, exactly as the plain sync scan reads them;
 * - product_changes_feed_order (team_id, at, product_id, kind): deletions, unpublishes and
 *   linked changes, in the same order;
 * - api_key_role_changes_key_at (team_id, key_id, at): which role a key had when a cycle began.
 * Both streams are read keyset-style from the cursor's position, at most pageSize + 1 rows each,
 * and merged in (at, id, kind) order: a page costs two short index range scans.
 */

/**
 * Feed entry kinds, in their order among entries of one product at one instant: the product's own
 * update (0), then the change log's kinds (product_changes.kind).
 */
export const FEED_KIND = { updated: 0, deleted: 1, unpublished: 2, linked: 3 } as const;
export type FeedKind = (typeof FEED_KIND)[keyof typeof FEED_KIND];

/** The last entry returned, keyset style. */
export interface FeedPosition {
  updatedAt: string;
  id: number;
  kind: FeedKind;
}

export interface FeedWindow {
  /** Inclusive lower bound of the products' own updates; null for all (a full scan, or a widened view). */
  productsLower: string | null;
  /** Inclusive lower bound of logged changes; null for all. */
  changesLower: string | null;
  /** Exclusive upper bound of both (the scan's fixed syncedUntil). */
  upper: string;
  after: FeedPosition | null;
  /**
   * Set when the key lost sight of drafts since the cycle's lower bound: every live draft is
   * reported hidden at this instant (the lower bound), and deletions of drafts are reported too.
   */
  narrowedAt: string | null;
}

export type FeedEntry =
  | { kind: typeof FEED_KIND.updated | typeof FEED_KIND.linked; at: string; record: ProductRecord }
  | { kind: typeof FEED_KIND.deleted | typeof FEED_KIND.unpublished; at: string; id: number };

interface FeedRow extends ProductRecord {
  kind: FeedKind;
  itemId: number;
  at: string;
}

const statements = new Map<string, PreparedSql>();

/** One named statement per distinct text (the text depends only on which filters and options are present). */
function statementFor(sql: string): PreparedSql {
  let statement = statements.get(sql);
  if (!statement) {
    statement = preparedSql(`products.feed.${statements.size + 1}`, sql);
    statements.set(sql, statement);
  }
  return statement;
}

/**
 * One page of the feed: up to `limit` entries after `window.after`, in (at, id, kind) order, and
 * whether more follow (the caller asks for pageSize + 1). Entries a caller must not see are left
 * out in SQL: a deletion of a product that was a draft (for roles that see published products
 * only, unless their view narrowed), an unpublish for roles that see drafts (their product row
 * already shows it), an unpublish of a product published again since, and a linked change of a
 * product the caller cannot see or the filters exclude. Tombstones ignore the brand, category and
 * status filters, as the visibility check does (spec 4.5 rule 5).
 */
export async function readFeedSlice(ctx: TeamScope, filters: ProductFilters, window: FeedWindow, limit: number): Promise<FeedEntry[]> {
  const products = filterSql(ctx.teamId, filters);
  const productParts = [products.sql, 'p.updated_at < ?::timestamptz'];
  const productParams: unknown[] = [...products.params, window.upper];
  if (window.productsLower !== null) {
    productParts.push('p.updated_at >= ?::timestamptz');
    productParams.push(window.productsLower);
  }
  if (window.after !== null) {
    // an update sorts first among its instant's entries (kind 0), so only (at, id) decide
    productParts.push('(p.updated_at, p.id) > (?::timestamptz, ?::int)');
    productParams.push(window.after.updatedAt, window.after.id);
  }

  // linked changes show the product as it is now, so the product must pass visibility and filters now
  const linked = filterSql(ctx.teamId, filters);
  const changeParts = ['c.team_id = ?', 'c.at < ?::timestamptz'];
  const changeParams: unknown[] = [ctx.teamId, window.upper];
  if (window.changesLower !== null) {
    changeParts.push('c.at >= ?::timestamptz');
    changeParams.push(window.changesLower);
  }
  if (window.after !== null) {
    changeParts.push('(c.at, c.product_id, c.kind) > (?::timestamptz, ?::int, ?::smallint)');
    changeParams.push(window.after.updatedAt, window.after.id, window.after.kind);
  }
  const seesDrafts = !filters.publishedOnly;
  const deletionShown = seesDrafts || window.narrowedAt !== null ? 'true' : 'c.was_published';
  const unpublishShown = seesDrafts
    ? 'false'
    : `not exists (select 1 from products q where q.id = c.product_id and q.deleted_at is null and q.status = 'published')`;
  // a CASE, not an OR of kinds: the planner turned the OR into a BitmapOr over every logged change
  // of the team (then sorted them), instead of walking the feed-order index from the cursor
  const kinds = `(case c.kind when ${FEED_KIND.deleted} then ${deletionShown}
      when ${FEED_KIND.unpublished} then ${unpublishShown}
      when ${FEED_KIND.linked} then p.id is not null else false end)`;

  const branches = [
    `(select ${FEED_KIND.updated}::smallint as kind, p.id as "itemId", p.updated_at as sort_at, ${LISTED_RECORD_COLUMNS}
        from products p where ${productParts.join(' and ')} order by p.updated_at, p.id limit ?)`,
    `(select c.kind, c.product_id as "itemId", c.at as sort_at, ${LISTED_RECORD_COLUMNS}
        from product_changes c left join products p on c.kind = ${FEED_KIND.linked} and p.id = c.product_id and ${linked.sql}
       where ${changeParts.join(' and ')} and ${kinds}
       order by c.at, c.product_id, c.kind limit ?)`,
  ];
  const params: unknown[] = [...productParams, limit, ...linked.params, ...changeParams, limit];
  if (window.narrowedAt !== null) {
    // every live draft left the narrowed view at the cycle's lower bound (the cycle saw none of them since)
    const hiddenParts = ['p.team_id = ?', 'p.deleted_at is null', `p.status = 'draft'`, '?::timestamptz < ?::timestamptz'];
    const hiddenParams: unknown[] = [ctx.teamId, window.narrowedAt, window.upper];
    if (window.after !== null) {
      hiddenParts.push(`(?::timestamptz, p.id, ${FEED_KIND.unpublished}::smallint) > (?::timestamptz, ?::int, ?::smallint)`);
      hiddenParams.push(window.narrowedAt, window.after.updatedAt, window.after.id, window.after.kind);
    }
    branches.push(`(select ${FEED_KIND.unpublished}::smallint as kind, p.id as "itemId", ?::timestamptz as sort_at, ${nullRecordColumns()}
        from products p where ${hiddenParts.join(' and ')} order by p.id limit ?)`);
    params.push(window.narrowedAt, ...hiddenParams, limit);
  }
  const sql = `select kind, "itemId", ${isoSql('sort_at')} as at, ${recordAliases()}
      from (${branches.join(' union all ')}) feed order by sort_at, "itemId", kind limit ?`;
  const rows = await queryRows<FeedRow>(ctx, statementFor(sql), [...params, limit]);
  return rows.map(entryOf);
}

function recordAliases(): string {
  return RECORD_NAMES.map((name) => `"${name}"`).join(', ');
}

/** Null in every record column, for entries that carry no product (the narrowed view's hidden drafts). */
function nullRecordColumns(): string {
  return RECORD_NAMES.map((name) => `null as "${name}"`).join(', ');
}

function entryOf(row: FeedRow): FeedEntry {
  const kind = Number(row.kind) as FeedKind;
  if (kind === FEED_KIND.updated || kind === FEED_KIND.linked) {
    const { kind: _kind, itemId: _itemId, at, ...record } = row;
    return { kind, at, record: recordOf(record as ProductRecord) };
  }
  return { kind, at: row.at, id: row.itemId };
}

/**
 * The role a key had at `since`: the role it changed from in its first role change at or after
 * that instant, or its current role when it has not changed since.
 */
export async function readRoleAt(ctx: TeamScope, keyId: number, since: string): Promise<string | null> {
  const row = await queryOne<{ role: string }>(ctx, ROLE_AT, [ctx.teamId, keyId, since]);
  return row?.role ?? null;
}

const ROLE_AT = preparedSql(
  'products.feed.roleAt',
  `select from_role as role from api_key_role_changes where team_id = ? and key_id = ? and at >= ?::timestamptz order by at, id limit 1`,
);
