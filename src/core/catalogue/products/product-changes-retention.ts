import type { UnitOfWork } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { deleteExpiredProductChanges, deleteExpiredRoleChanges, isBeforeRetention } from './product-changes-retention.queries.ts';

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
  return inBatches(() => deleteExpiredProductChanges(op, days, batch), batch, maxBatches);
}

/**
 * The same job's second part: every role-log row (api_key_role_changes) older than `days` days,
 * with no exception, in the same bounded batches. How many were deleted.
 *
 * Why none older than the horizon is kept: readRoleAt (product-sync-feed.queries.ts) answers
 * "the key's role at T" with the `from_role` of the key's FIRST change at or after T (or, when
 * there is none, the key's current role, which the purge does not touch). It never reads a change
 * before T. The only T it is asked for is a feed cycle's lower bound, and a cycle is answered only
 * when that bound is inside the window (requireRetainedSince). So a row older than the horizon is
 * never read by an answered cycle, and deleting all of them leaves every answer for a T inside
 * the window unchanged; in particular the role AT the horizon is the `from_role` of the first change
 * at or after it, which is inside the window and kept. The same clocks as the change log's make it
 * race-free: the role is read before that check, the check uses clock_timestamp(), and this purge
 * deletes only rows older than its own start minus `days`; one that committed before the read began
 * started before the check, so it deleted only rows older than the accepted bound. (Were readRoleAt
 * changed to take the `to_role` of the LAST change before T, each key's last change before the
 * horizon would have to be kept: change this purge with it.)
 */
export async function purgeExpiredRoleChanges(op: UnitOfWork, days: number, batch = 10_000, maxBatches = 100): Promise<number> {
  return inBatches(() => deleteExpiredRoleChanges(op, days, batch), batch, maxBatches);
}

/**
 * The maintenance job `purge-product-changes`: the feed's change log, then the role log it reads,
 * both past the same window (the feed's retention), since a cycle inside it needs both.
 */
export async function purgeExpiredSyncFeedLogs(op: UnitOfWork, days: number): Promise<{ purged: number; roleChangesPurged: number }> {
  const purged = await purgeExpiredProductChanges(op, days);
  return { purged, roleChangesPurged: await purgeExpiredRoleChanges(op, days) };
}

/** Runs `deleteBatch` until it deletes fewer than `batch` rows, at most `maxBatches` times; the total. */
async function inBatches(deleteBatch: () => Promise<number>, batch: number, maxBatches: number): Promise<number> {
  let purged = 0;
  for (let run = 0; run < maxBatches; run++) {
    const deleted = await deleteBatch();
    purged += deleted;
    if (deleted < batch) break;
  }
  return purged;
}
