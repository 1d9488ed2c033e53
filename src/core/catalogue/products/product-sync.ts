import { hasPermission, isRole } from '../../access/roles.ts';
import { type Ctx, requireKey } from '../../platform/ctx.ts';
import { DEFAULT_PAGE_SIZE } from '../../platform/pagination.ts';
import type { ProductTombstone, SyncPagination } from './product.schemas.ts';
import { requireRetainedSince } from './product-changes-retention.ts';
import type { ProductRecord } from './product-projection.ts';
import type { SyncQuery } from './product-query.ts';
import { readSyncSlice } from './product-read.ts';
import { FEED_KIND, type FeedEntry, type FeedKind, readFeedSlice, readRoleAt } from './product-sync-feed.queries.ts';
import { normalizeTimestamp, type ProductFilters, readSyncBounds } from './products.queries.ts';
import { decodeCursor, encodeCursor, type FeedView, requireSameScope, type SyncPosition, type SyncScope } from './sync-cursor.ts';

/** A sync page's item: a product as stored, or (under changes=true) a tombstone. */
export type SyncItem = ProductRecord | ProductTombstone;

export function isTombstone(item: SyncItem): item is ProductTombstone {
  return (item as ProductTombstone).removed === true;
}

/**
 * Spec 4.5 synchronization: a scan of (updatedAt, id) ascending within [updatedAfter, upper),
 * where `upper` is fixed by the first request at the database time minus 30 seconds. Pages are
 * keyset pages; the cursor (HMAC-signed) carries the scan's scope and the last position, so a
 * continuation needs no other parameter, and a changed one is refused. With changes=true the scan
 * is the sync feed (docs/products.md "Sync feed"): the same order and bounds, plus tombstones and
 * linked changes from the change log, refused (on every page) once the cycle's updatedAfter is
 * older than the log's retention.
 */
export async function syncPage(
  ctx: Ctx,
  query: SyncQuery,
  options: { secret: string; scanLimit: number; changesRetentionDays: number },
): Promise<{ items: SyncItem[]; pagination: SyncPagination }> {
  const key = requireKey(ctx.actor);
  const caller = { keyId: key.keyId, role: key.role, teamId: ctx.teamId };
  let scope: SyncScope;
  let after: SyncPosition | null;
  if (query.cursor !== undefined) {
    const opened = decodeCursor(options.secret, query.cursor);
    const lower = query.updatedAfter === undefined ? undefined : await normalizeTimestamp(ctx, query.updatedAfter);
    requireSameScope(opened.scope, caller, { pageSize: query.pageSize, lower, filters: query.sentFilters, changes: query.changes });
    scope = opened.scope;
    after = opened.position;
  } else {
    const bounds = await readSyncBounds(ctx, query.updatedAfter ?? null);
    scope = { ...caller, filters: query.sentFilters, pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, lower: bounds.lower, upper: bounds.upper };
    if (query.changes === true) scope.feed = { view: await viewSince(ctx, key.keyId, key.role, bounds.lower) };
    after = null;
  }
  const filters: ProductFilters = {
    // the role is bound in the cursor and equal to the caller's (requireSameScope), so visibility cannot change mid-scan
    publishedOnly: query.filters.publishedOnly,
    status: scope.filters.status as ProductFilters['status'],
    brandId: scope.filters.brandId as number | null,
    categoryId: scope.filters.categoryId as number | null,
    search: scope.filters.search as string | null,
  };
  const page = scope.feed
    ? await feedPage(ctx, filters, scope, scope.feed.view, after)
    : await readSyncSlice(ctx, filters, { lower: scope.lower, upper: scope.upper, after }, scope.pageSize, options.scanLimit).then((slice) => ({
        items: slice.records as SyncItem[],
        next: slice.next,
      }));
  // after the read (requireRetainedSince says why), on every page: a cycle can pass the horizon mid-scan
  if (scope.feed) await requireRetainedSince(ctx, scope.lower, options.changesRetentionDays);
  const nextCursor = page.next === null ? null : encodeCursor(options.secret, scope, page.next);
  return {
    items: page.items,
    pagination: { pageSize: scope.pageSize, syncedUntil: scope.upper, nextCursor, hasMore: nextCursor !== null },
  };
}

/** One feed page: pageSize entries at most, and where the next page starts (null at the end). */
async function feedPage(
  ctx: Ctx,
  filters: ProductFilters,
  scope: SyncScope,
  view: FeedView,
  after: SyncPosition | null,
): Promise<{ items: SyncItem[]; next: SyncPosition | null }> {
  const entries = await readFeedSlice(
    ctx,
    filters,
    {
      // a key that gained sight of drafts gets every product it may now see, as a full scan would
      productsLower: view === 'widened' ? null : scope.lower,
      changesLower: scope.lower,
      upper: scope.upper,
      after: after === null ? null : { updatedAt: after.updatedAt, id: after.id, kind: (after.kind ?? FEED_KIND.updated) as FeedKind },
      narrowedAt: view === 'narrowed' ? scope.lower : null,
    },
    scope.pageSize + 1,
  );
  const shown = entries.slice(0, scope.pageSize);
  const last = shown.at(-1);
  const next = entries.length > scope.pageSize && last ? { updatedAt: last.at, id: idOf(last), kind: last.kind } : null;
  return { items: shown.map(itemOf), next };
}

function idOf(entry: FeedEntry): number {
  return 'record' in entry ? entry.record.id : entry.id;
}

function itemOf(entry: FeedEntry): SyncItem {
  if ('record' in entry) return entry.record;
  return { id: entry.id, removed: true, reason: entry.kind === FEED_KIND.deleted ? 'deleted' : 'hidden', at: entry.at };
}

/**
 * How the key's sight of drafts changed since the cycle's lower bound: its role then was the one
 * its first role change since then started from (a full scan, without a lower bound, has no "then").
 */
async function viewSince(ctx: Ctx, keyId: number, role: string, lower: string | null): Promise<FeedView> {
  if (lower === null) return 'same';
  const then = await readRoleAt(ctx, keyId, lower);
  if (then === null || !isRole(then) || !isRole(role)) return 'same';
  const sawDrafts = hasPermission(then, 'products:read_drafts');
  const seesDrafts = hasPermission(role, 'products:read_drafts');
  if (sawDrafts === seesDrafts) return 'same';
  return seesDrafts ? 'widened' : 'narrowed';
}
