import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../src/config.ts';
import type { Core } from '../src/core/core.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import { redisConnection, type Queues } from '../src/queues.ts';
import { OutboxRelay } from './outbox-relay.ts';
import { processorRegistry } from './registry.ts';

/** The repeatable jobs every deployment runs; BullMQ keys them by id, so many workers schedule them once. */
async function scheduleRepeatables(queues: Queues): Promise<void> {
  await queues.get('maintenance').upsertJobScheduler('purge-idempotency', { every: 60 * 60 * 1000 }, { name: 'purge-idempotency' });
  await queues.get('maintenance').upsertJobScheduler('purge-events', { every: 60 * 60 * 1000 }, { name: 'purge-events' });
  await queues.get('maintenance').upsertJobScheduler('purge-activity', { every: 60 * 60 * 1000 }, { name: 'purge-activity' });
  // the products sync feed's change log (docs/products.md "Retention")
  await queues.get('maintenance').upsertJobScheduler('purge-product-changes', { every: 60 * 60 * 1000 }, { name: 'purge-product-changes' });
  // uploads past their expiry: their parts and rows (docs/library.md "Uploads")
  await queues.get('maintenance').upsertJobScheduler('purge-uploads', { every: 15 * 60 * 1000 }, { name: 'purge-uploads' });
  // daily, just after midnight UTC: files whose validity period started or ended (docs/library.md "Validity")
  await queues.get('maintenance').upsertJobScheduler('validity-check', { pattern: '5 0 * * *', tz: 'UTC' }, { name: 'validity-check' });
}

export interface RunningWorkers {
  workers: Worker[];
  relay: OutboxRelay;
  /** Stops taking jobs, lets active ones finish (or returns them to the queue), then closes. */
  close(): Promise<void>;
}

export async function startWorkers(deps: { core: Core; config: Config; queues: Queues; metrics: Metrics; logger: Logger }): Promise<RunningWorkers> {
  const connection = redisConnection(deps.config);
  const concurrency: Partial<Record<string, number>> = { 'webhook-delivery': deps.config.webhookConcurrency };
  const workers = [...processorRegistry(deps)].map(([name, processor]) => {
    const worker = new Worker(name, processor, { connection, prefix: deps.config.queuePrefix, concurrency: concurrency[name] ?? 4 });
    worker.on('completed', () => deps.metrics.jobsProcessed.labels(name, 'completed').inc());
    worker.on('failed', (job, err) => {
      deps.metrics.jobsProcessed.labels(name, 'failed').inc();
      deps.logger.warn({ queue: name, jobId: job?.id, err }, 'job failed');
    });
    worker.on('error', (err) => deps.logger.error({ queue: name, err }, 'worker error'));
    return worker;
  });
  await scheduleRepeatables(deps.queues);
  const relay = new OutboxRelay({
    core: deps.core,
    queues: deps.queues,
    logger: deps.logger.child({ component: 'outbox-relay' }),
    intervalMs: deps.config.relayIntervalMs,
    maxWaitingJobs: deps.config.webhookConcurrency,
  });
  relay.start();
  return {
    workers,
    relay,
    close: async () => {
      // the relay stops queueing first; workers then finish their in-flight attempts
      await relay.stop();
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
