import type { Job } from 'bullmq';
import type { Core } from '../src/core/core.ts';
import { purgeExpiredIdempotencyRecords } from '../src/core/platform/idempotency.ts';

/** Housekeeping jobs: forget idempotency records past their 24-hour replay window. */
export function maintenanceProcessor(core: Core) {
  return async (job: Job): Promise<{ purged: number } | 'skipped'> => {
    if (job.name !== 'purge-idempotency') return 'skipped';
    return { purged: await purgeExpiredIdempotencyRecords(core.operatorCtx()) };
  };
}
