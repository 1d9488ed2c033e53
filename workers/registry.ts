import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Core } from '../src/core/core.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import { QUEUE_NAMES, type QueueName, type Queues } from '../src/queues.ts';
import { approvalTimeoutProcessor } from './approval-timeout.worker.ts';
import { maintenanceProcessor } from './maintenance.worker.ts';
import { webhookDeliveryProcessor } from './webhook-delivery.worker.ts';

export type Processor = (job: Job) => Promise<unknown>;

export interface ProcessorDeps {
  core: Core;
  queues: Queues;
  metrics: Metrics;
  logger: Logger;
}

/** Refuses a registry with a queue that has no processor (start-up fails rather than leaving jobs unserved). */
export function checkRegistry(registry: Map<QueueName, Processor>, names: readonly QueueName[] = QUEUE_NAMES): Map<QueueName, Processor> {
  const missing = names.filter((name) => !registry.has(name));
  if (missing.length > 0) throw new Error(`no processor for queue(s): ${missing.join(', ')}`);
  return registry;
}

/** Maps every queue to exactly one processor; start-up fails on a gap. */
export function processorRegistry(deps: ProcessorDeps): Map<QueueName, Processor> {
  return checkRegistry(
    new Map<QueueName, Processor>([
      ['maintenance', maintenanceProcessor(deps.core)],
      ['webhook-delivery', webhookDeliveryProcessor(deps)],
      ['approval-timeout', approvalTimeoutProcessor(deps.core)],
    ]),
  );
}
