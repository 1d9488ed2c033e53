import { requireKey, type Ctx } from '../../platform/ctx.ts';
import { DEFAULT_PAGE_SIZE } from '../../platform/pagination.ts';
import type { ProductRecord } from './product-projection.ts';
import type { SyncQuery } from './product-query.ts';
import { normalizeTimestamp, readSyncBounds, readSyncSlice, type ProductFilters } from './product-read.ts';
import type { SyncPagination } from './product.schemas.ts';
import { decodeCursor, encodeCursor, requireSameScope, type SyncPosition, type SyncScope } from './sync-cursor.ts';

/**
 * Spec 4.5 synchronization: a scan of (updatedAt, id) ascending within [updatedAfter, upper),
 * where `upper` is fixed by the first request at the database time minus 30 seconds. Pages are
 * keyset pages; the cursor (HMAC-signed) carries the scan's scope and the last position, so a
 * continuation needs no other parameter, and a changed one is refused.
 */
export async function syncPage(
  ctx: Ctx,
  query: SyncQuery,
  options: { secret: string; scanLimit: number },
): Promise<{ records: ProductRecord[]; pagination: SyncPagination }> {
  const key = requireKey(ctx.actor);
  const caller = { keyId: key.keyId, role: key.role, teamId: ctx.teamId };
  let scope: SyncScope;
  let after: SyncPosition | null;
  if (query.cursor !== undefined) {
    const opened = decodeCursor(options.secret, query.cursor);
    const lower = query.updatedAfter === undefined ? undefined : await normalizeTimestamp(ctx, query.updatedAfter);
    requireSameScope(opened.scope, caller, { pageSize: query.pageSize, lower, filters: query.sentFilters });
    scope = opened.scope;
    after = opened.position;
  } else {
    const bounds = await readSyncBounds(ctx, query.updatedAfter ?? null);
    scope = { ...caller, filters: query.sentFilters, pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, lower: bounds.lower, upper: bounds.upper };
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
  const slice = await readSyncSlice(ctx, filters, { lower: scope.lower, upper: scope.upper, after }, scope.pageSize, options.scanLimit);
  const nextCursor = slice.next === null ? null : encodeCursor(options.secret, scope, slice.next);
  return {
    records: slice.records,
    pagination: { pageSize: scope.pageSize, syncedUntil: scope.upper, nextCursor, hasMore: nextCursor !== null },
  };
}
