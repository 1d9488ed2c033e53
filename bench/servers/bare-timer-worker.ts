/**
 * The floor of the timer part of bench/approvals.bench.ts: a bare BullMQ worker (in its own
 * process, as Shelf's worker is) for delayed jobs that carry their due time, with the same
 * concurrency as Shelf's timer worker, doing nothing but noting how late each job started: no
 * database, no callback. What BullMQ's delayed jobs alone achieve on this machine at this load.
 * Messages: 'report' sends back {lateness}; 'stop' closes the worker and exits.
 */
import { Worker } from 'bullmq';

const env = process.env;
const url = new URL(env.REDIS_URL!);
const lateness: number[] = [];
const worker = new Worker(
  env.QUEUE_NAME!,
  async (job) => {
    lateness.push(Date.now() - (job.data as { due: number }).due);
  },
  {
    connection: { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null },
    prefix: env.QUEUE_PREFIX,
    concurrency: Number(env.CONCURRENCY ?? 4),
  },
);
worker.on('ready', () => process.send!({ type: 'ready' }));
process.on('message', async (message) => {
  if (message === 'report') process.send!({ type: 'report', lateness });
  if (message === 'stop') {
    await worker.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
