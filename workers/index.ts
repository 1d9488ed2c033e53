import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../src/config.ts';
import type { Core } from '../src/core/core.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import { redisConnection, type Queues } from '../src/queues.ts';
import { processorRegistry } from './registry.ts';

/** The repeatable jobs every deployment runs; BullMQ keys them by id, so many workers schedule them once. */
async function scheduleRepeatables(queues: Queues): Promise<void> {
  await queues.get('maintenance').upsertJobScheduler('purge-idempotency', { every: 60 * 60 * 1000 }, { name: 'purge-idempotency' });
}

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs, lets active ones finish (or returns them to the queue), then closes. */
  close(): Promise<void>;
}

export async function startWorkers(deps: { core: Core; config: Config; queues: Queues; metrics: Metrics; logger: Logger }): Promise<RunningWorkers> {
  const connection = redisConnection(deps.config);
  const workers = [...processorRegistry(deps.core)].map(([name, processor]) => {
    const worker = new Worker(name, processor, { connection, prefix: deps.config.queuePrefix, concurrency: 4 });
    worker.on('completed', () => deps.metrics.jobsProcessed.labels(name, 'completed').inc());
    worker.on('failed', (job, err) => {
      deps.metrics.jobsProcessed.labels(name, 'failed').inc();
      deps.logger.warn({ queue: name, jobId: job?.id, err }, 'job failed');
    });
    worker.on('error', (err) => deps.logger.error({ queue: name, err }, 'worker error'));
    return worker;
  });
  await scheduleRepeatables(deps.queues);
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
