import type { UnitOfWork } from './ctx.ts';
import { insertLiveRows, type LiveRowInput } from './live-log.queries.ts';

export type { LiveRowInput };

/**
 * Writes live rows in the caller's transaction: they commit, or roll back, with the change. Each
 * writer builds its rows beside the change it records (outbox/outbox.ts, access/access.service.ts,
 * catalogue/products/product-live-row.ts); the live room reads them (docs/graphql.md "Live updates").
 */
export function recordLive(tx: UnitOfWork, rows: readonly LiveRowInput[]): Promise<void> {
  return insertLiveRows(tx, rows);
}
