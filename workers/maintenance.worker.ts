import type { Job } from 'bullmq';
import type { Core } from '../src/core/core.ts';
import { purgeExpiredActivity } from '../src/core/catalogue/activity/activity-records.ts';
import { purgeExpiredSyncFeedLogs } from '../src/core/catalogue/products/product-changes-retention.ts';
import { purgeExpiredEvents } from '../src/core/events/webhook-admin.service.ts';
import { purgeExpiredIdempotencyRecords } from '../src/core/platform/idempotency.ts';
import type { ValidityCheckResult } from '../src/core/assets/files/file-validity.service.ts';

/** Housekeeping jobs: idempotency records past their 24-hour window, events past their 30-day replay window, activity records and the products sync feed's change log and role log past their retention; uploads past their expiry; the daily validity check. */
export function maintenanceProcessor(core: Core) {
  return async (job: Job): Promise<{ purged: number; roleChangesPurged?: number } | ValidityCheckResult | 'skipped'> => {
    if (job.name === 'purge-idempotency') return { purged: await purgeExpiredIdempotencyRecords(core.operatorCtx()) };
    if (job.name === 'purge-events') return { purged: await purgeExpiredEvents(core.operatorCtx()) };
    if (job.name === 'purge-activity') return { purged: await purgeExpiredActivity(core.operatorCtx(), core.config.activityRetentionDays) };
    if (job.name === 'purge-product-changes') return purgeExpiredSyncFeedLogs(core.operatorCtx(), core.config.productChangesRetentionDays);
    if (job.name === 'purge-uploads') return { purged: await core.assets.uploads.purgeExpired(core.operatorCtx()) };
    if (job.name === 'validity-check') return core.assets.fileValidity.checkAll(core.operatorCtx());
    return 'skipped';
  };
}
