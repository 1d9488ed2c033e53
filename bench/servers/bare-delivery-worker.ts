/**
 * The floor of bench/webhooks.bench.ts: a bare BullMQ worker that POSTs each job's payload to its
 * URL with undici (keep-alive), with the same concurrency as Shelf's delivery workers, and nothing
 * else: no outbox, no claim, no attempt record, no signature, no log.
 */
import { Worker } from 'bullmq';
import { Agent, request } from 'undici';

const env = process.env;
const agent = new Agent({ keepAliveTimeout: 10_000 });
const url = new URL(env.REDIS_URL!);
const worker = new Worker(
  'bare-delivery',
  async (job) => {
    const { target, body, id } = job.data as { target: string; body: string; id: string };
    const response = await request(target, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-bench-id': id }, dispatcher: agent });
    await response.body.dump();
    if (response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}`);
  },
  {
    connection: { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null },
    prefix: env.QUEUE_PREFIX,
    concurrency: Number(env.CONCURRENCY ?? 50),
  },
);
worker.on('ready', () => process.send!({ type: 'ready' }));
process.on('message', async (message) => {
  if (message === 'stop') {
    await worker.close();
    process.exit(0);
  }
});
