import type { Job } from 'bullmq';
import type { Core } from '../src/core/core.ts';
import { QUEUE_NAMES, type QueueName } from '../src/queues.ts';
import { maintenanceProcessor } from './maintenance.worker.ts';

export type Processor = (job: Job) => Promise<unknown>;

/** Maps every queue to exactly one processor; start-up fails on a gap or an unknown queue. */
export function processorRegistry(core: Core): Map<QueueName, Processor> {
  const registry = new Map<QueueName, Processor>([['maintenance', maintenanceProcessor(core)]]);
  const missing = QUEUE_NAMES.filter((name) => !registry.has(name));
  if (missing.length > 0) throw new Error(`no processor for queue(s): ${missing.join(', ')}`);
  return registry;
}
