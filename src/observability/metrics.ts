import type { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one process: HTTP latency by route and status, the database pool, queue depth. */
export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  jobsProcessed: Counter<'queue' | 'outcome'>;
  /** Webhook attempts by outcome (succeeded, retry_scheduled, failed, endpoint_disabled, skipped). */
  webhookAttempts: Counter<'outcome'>;
  /** Duration of webhook attempts that reached the receiver or timed out. */
  webhookAttemptDuration: Histogram<'outcome'>;
  /** GraphQL requests by how they were served: `fast` (a query yoga had validated, rest/graphql-fast-path.ts) or `yoga`. */
  graphqlRequests: Counter<'path'>;
}

export function createMetrics(options: { orm: MikroORM; queues: () => Queue[]; outboxLagSeconds?: () => Promise<number> }): Metrics {
  // one registry per app instance: tests build several apps in one process
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const httpDuration = new Histogram({
    name: 'shelf_http_request_duration_seconds',
    help: 'HTTP request latency by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  const jobsProcessed = new Counter({
    name: 'shelf_jobs_processed_total',
    help: 'Background jobs finished, by queue and outcome',
    labelNames: ['queue', 'outcome'] as const,
    registers: [registry],
  });

  new Gauge({
    name: 'shelf_db_pool_connections',
    help: 'PostgreSQL pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const pool = await options.orm.em.getConnection().getNativeClient();
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });

  new Gauge({
    name: 'shelf_queue_jobs',
    help: 'BullMQ jobs by queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      for (const queue of options.queues()) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
        for (const [state, count] of Object.entries(counts)) this.set({ queue: queue.name, state }, count);
      }
    },
  });

  const webhookAttempts = new Counter({
    name: 'shelf_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const webhookAttemptDuration = new Histogram({
    name: 'shelf_webhook_attempt_duration_seconds',
    help: 'Webhook attempt latency (request sent to answer read), by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });

  const graphqlRequests = new Counter({
    name: 'shelf_graphql_requests_total',
    help: 'GraphQL requests by how they were served: fast (a query already validated, without yoga) or yoga',
    labelNames: ['path'] as const,
    registers: [registry],
  });

  const outboxLag = options.outboxLagSeconds;
  if (outboxLag) {
    new Gauge({
      name: 'shelf_outbox_lag_seconds',
      help: 'How long the oldest due webhook delivery has waited to be sent',
      registers: [registry],
      async collect() {
        this.set(await outboxLag());
      },
    });
  }

  return { registry, httpDuration, jobsProcessed, webhookAttempts, webhookAttemptDuration, graphqlRequests };
}
