import { QueueEvents } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisConnection } from '../../src/queues.ts';
import { startWorkers, type RunningWorkers } from '../../workers/index.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let workers: RunningWorkers;
let events: QueueEvents;

beforeAll(async () => {
  env = await createTestEnv();
  workers = await startWorkers({ core: env.core, config: env.config, queues: env.queues, metrics: env.metrics, logger: pino({ level: 'silent' }) });
  events = new QueueEvents('maintenance', { connection: redisConnection(env.config), prefix: env.config.queuePrefix });
  await events.waitUntilReady();
});
afterAll(async () => {
  await events.close();
  await workers.close();
  await env.close();
});

describe('maintenance worker (BullMQ on Redis)', () => {
  it('schedules the hourly idempotency purge once, keyed by id', async () => {
    const schedulers = await env.queues.get('maintenance').getJobSchedulers();
    expect(schedulers.map((s) => s.key)).toEqual(['purge-idempotency']);
  });

  it('purges idempotency records past the 24-hour window and keeps the recent ones', async () => {
    const key = await given(env).key(await given(env).team(), 'manage');
    for (const idem of ['old-1', 'old-2', 'fresh-1']) {
      await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: idem }, headers: { 'idempotency-key': idem } });
    }
    await env.orm.em.fork().execute(`update idempotency_records set created_at = now() - interval '25 hours' where idempotency_key like 'old-%'`);
    const job = await env.queues.get('maintenance').add('purge-idempotency', {});
    const result = await job.waitUntilFinished(events, 20_000);
    expect(result).toEqual({ purged: 2 });
    const left = await env.orm.em.fork().execute<{ idempotency_key: string }[]>('select idempotency_key from idempotency_records');
    expect(left.map((r) => r.idempotency_key)).toEqual(['fresh-1']);
  });
});
