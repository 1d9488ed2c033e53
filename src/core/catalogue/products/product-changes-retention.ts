import type { UnitOfWork } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { deleteExpiredProductChanges, isBeforeRetention } from './product-changes-retention.queries.ts';

/*
 * Retention of the sync feed's change log (docs/products.md "Sync feed", "Retention"): entries
 * older than PRODUCT_CHANGES_RETENTION_DAYS are deleted by the hourly maintenance job, so a feed
 * cycle that starts before that horizon would miss the deletions and unpublishes logged before
 * it. Such a cycle is refused; a full scan (no updatedAfter) is always answered.
 */

/** Default of PRODUCT_CHANGES_RETENTION_DAYS (src/config.ts). */
export const DEFAULT_PRODUCT_CHANGES_RETENTION_DAYS = 400;

/**
 * Refuses a feed cycle whose lower bound (updatedAfter, sent or carried by its cursor) lies more
 * than `days` days in the past: 422 validation_failed on updatedAfter.
 *
 * Call it after the page was read. The purge deletes only entries older than its own start minus
 * `days`; one that committed before the page's read began did so before this check's clock
 * (clock_timestamp()), so a lower bound inside the window here had none of its entries deleted
 * before the read. Checking first would leave a purge room to commit between the check and the read.
 */
export async function requireRetainedSince(op: UnitOfWork, lower: string | null, days: number): Promise<void> {
  if (lower === null || !(await isBeforeRetention(op, lower, days))) return;
  throw invalid(
    'updatedAfter',
    `the change log keeps ${days} days and this is older, so changes before it are no longer known; ` +
      'run a full scan (omit updatedAfter and cursor) and replace your copies with its result',
  );
}

/**
 * The retention job (maintenance worker, `purge-product-changes`): every team's change-log
 * entries older than `days` days, in batches of `batch` rows, each its own statement and
 * transaction (no long lock), at most `maxBatches` per run so one run stays bounded; the hourly
 * schedule takes up the rest. How many were deleted.
 */
export async function purgeExpiredProductChanges(op: UnitOfWork, days: number, batch = 10_000, maxBatches = 100): Promise<number> {
  let purged = 0;
  for (let run = 0; run < maxBatches; run++) {
    const deleted = await deleteExpiredProductChanges(op, days, batch);
    purged += deleted;
    if (deleted < batch) break;
  }
  return purged;
}
