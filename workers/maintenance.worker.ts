import { type Job, type Queue, type RepeatOptions, UnrecoverableError } from 'bullmq';
import type { Core } from '../src/core/core.ts';

/** A housekeeping job of the maintenance queue: its name (the job's and its scheduler's), when it repeats, and the core operation it runs. */
export interface MaintenanceJob {
  name: string;
  repeat: Omit<RepeatOptions, 'key'>;
  run: (core: Core) => Promise<unknown>;
}

const HOURLY = { every: 60 * 60 * 1000 };

/** Refuses a list that names a job twice (a second scheduler would replace the first); the registry by name. */
export function maintenanceRegistry(jobs: readonly MaintenanceJob[]): ReadonlyMap<string, MaintenanceJob> {
  const registry = new Map<string, MaintenanceJob>();
  for (const job of jobs) {
    if (registry.has(job.name)) throw new Error(`maintenance job ${job.name} is registered twice`);
    registry.set(job.name, job);
  }
  return registry;
}

/** Every maintenance job, named once: the scheduler and the processor both read this registry. */
export const MAINTENANCE_JOBS = maintenanceRegistry([
  // idempotency records past their 24-hour window
  { name: 'purge-idempotency', repeat: HOURLY, run: async (core) => ({ purged: await core.housekeeping.purgeIdempotencyRecords() }) },
  // events past their 30-day replay window
  { name: 'purge-events', repeat: HOURLY, run: async (core) => ({ purged: await core.housekeeping.purgeEvents() }) },
  {
    name: 'purge-activity',
    repeat: HOURLY,
    run: async (core) => ({ purged: await core.housekeeping.purgeActivity() }),
  },
  // the products sync feed's change log and role log (docs/products.md "Retention")
  { name: 'purge-product-changes', repeat: HOURLY, run: (core) => core.housekeeping.purgeProductChanges() },
  // uploads past their expiry: their parts and rows (docs/library.md "Uploads")
  { name: 'purge-uploads', repeat: { every: 15 * 60 * 1000 }, run: async (core) => ({ purged: await core.assets.uploads.purgeExpired(core.operatorCtx()) }) },
  // daily, just after midnight UTC: files whose validity period started or ended (docs/library.md "Validity")
  { name: 'validity-check', repeat: { pattern: '5 0 * * *', tz: 'UTC' }, run: (core) => core.assets.fileValidity.checkAll(core.operatorCtx()) },
]);

/** Schedules every registered job, keyed by its name, so many workers schedule each once. */
export async function scheduleMaintenance(queue: Queue, registry: ReadonlyMap<string, MaintenanceJob> = MAINTENANCE_JOBS): Promise<void> {
  for (const job of registry.values()) await queue.upsertJobScheduler(job.name, job.repeat, { name: job.name });
}

/** Runs the registered job a maintenance job names; a name the registry does not know fails the job for good instead of passing silently. */
export function maintenanceProcessor(core: Core, registry: ReadonlyMap<string, MaintenanceJob> = MAINTENANCE_JOBS) {
  return async (job: Job): Promise<unknown> => {
    const entry = registry.get(job.name);
    if (!entry) throw new UnrecoverableError(`no maintenance job is named ${job.name}`);
    return entry.run(core);
  };
}
