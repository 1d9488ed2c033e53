import type { TeamScope } from '../../platform/ctx.ts';
import type { VersionedMemo } from '../../platform/versioned-memo.ts';
import type { ProductRecord } from './product-projection.ts';
import { readCountVersion } from './product-totals.ts';
import {
  countListed,
  deferredFieldsSize,
  type ProductFilters,
  readListPageRecords,
  readProductsByIds,
  readSyncRecords,
  readTemplateFieldsOf,
  type SyncWindow,
  scanSyncSearch,
} from './products.queries.ts';
import type { SyncPosition } from './sync-cursor.ts';

/*
 * The product reads that decide more than one statement does: an ordinary page with its memoized
 * total, and a sync page. Their statements are in products.queries.ts, with every other statement
 * on products.
 */

/**
 * Ordinary listing (spec 4.5): updatedAt then id descending, offset pagination. The total is exact
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
  const [records, version] = await Promise.all([readListPageRecords(ctx, filters, limit, offset), readCountVersion(ctx, filters.search !== null)]);
  const total = await totals.get(ctx.teamId, version, filterKey(filters), () => countListed(ctx, filters));
  return { records, total };
}

/** The memo key of a filtered set: visibility and every filter (search as trimmed). */
function filterKey(f: ProductFilters): string {
  return JSON.stringify([f.publishedOnly, f.status, f.brandId, f.categoryId, f.search]);
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
  if (filters.search === null) return sliceOf(await readSyncRecords(ctx, filters, window, pageSize + 1), pageSize, null);
  const scan = await scanSyncSearch(ctx, { ...filters, search: filters.search }, window, scanLimit, pageSize + 1);
  const exhausted = scan.scanned < scanLimit;
  return sliceOf(scan.records, pageSize, exhausted ? null : scan.last);
}

function sliceOf(records: ProductRecord[], pageSize: number, lastScanned: SyncPosition | null): SyncSlice {
  if (records.length > pageSize) {
    const page = records.slice(0, pageSize);
    const last = page[page.length - 1]!;
    return { records: page, next: { updatedAt: last.updatedAt, id: last.id } };
  }
  return { records, next: lastScanned };
}

/** What a listed record's answer costs in stored bytes: its deferred template fields and the rest of the row (names, media ids). */
export function listedRecordBytes(record: ProductRecord): number {
  return (deferredFieldsSize(record) ?? 0) + LISTED_ROW_BYTES;
}

/** About what a product's columns besides its template fields take (names, description, media ids). */
const LISTED_ROW_BYTES = 4096;

/**
 * Listed records with their template fields read (the batch of a sized page): a product changed
 * since its page was chosen is read again whole, so a record never mixes two versions; one deleted
 * or hidden meanwhile is left out. Other items (tombstones, records that carry their fields) pass
 * through.
 */
export async function completeListed<T extends object>(ctx: TeamScope, items: T[], publishedOnly: boolean): Promise<T[]> {
  const listed = items.filter((item): item is T & ProductRecord => 'templateFields' in item && deferredFieldsSize(item as unknown as ProductRecord) !== null);
  if (listed.length === 0) return items;
  const current = await readTemplateFieldsOf(ctx, [...new Set(listed.map((r) => r.id))], publishedOnly);
  const changed = listed.filter((r) => current.has(r.id) && current.get(r.id)!.updatedAt !== r.updatedAt).map((r) => r.id);
  const fresh = new Map((await readProductsByIds(ctx, changed, publishedOnly)).map((r) => [r.id, r]));
  const deferred = new Set<object>(listed);
  return items.flatMap((item) => {
    if (!deferred.has(item)) return [item];
    const record = item as T & ProductRecord;
    const now = current.get(record.id);
    if (now === undefined) return [];
    if (now.updatedAt === record.updatedAt) return [{ ...record, templateFields: now.templateFields }];
    const reread = fresh.get(record.id);
    return reread === undefined ? [] : [{ ...record, ...reread }];
  });
}
