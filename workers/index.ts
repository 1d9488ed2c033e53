import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../src/config.ts';
import type { Core } from '../src/core/core.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import { type Queues, redisConnection } from '../src/queues.ts';
import { scheduleMaintenance } from './maintenance.worker.ts';
import { OutboxRelay } from './outbox-relay.ts';
import { processorRegistry } from './registry.ts';

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
  await scheduleMaintenance(deps.queues.get('maintenance'));
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
