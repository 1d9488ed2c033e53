import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/core/outbox/outbox.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type PrivateRedis, privateRedis } from '../support/private-redis.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let redis: PrivateRedis;
let world: EventWorld;
const children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await privateRedis();
  world = await createEventWorld({ REDIS_URL: redis.url, WEBHOOK_TIMEOUT_MS: '1000', RELAY_INTERVAL_MS: '100' });
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await world.close();
  await redis.stop();
});

async function subscribe(path: string): Promise<void> {
  const res = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: world.key.key,
    body: { callbackUrl: `${world.receiver.url}${path}`, eventTypes: ['MATERIAL_DELETED'] },
  });
  expect(res.body.code).toBe('0');
}

async function emit(materialId: number): Promise<void> {
  const ctx = await given(world.env).ctx(world.key);
  await inTransaction(ctx, (tx) =>
    recordEvent(tx, {
      eventType: 'MATERIAL_DELETED',
      audience: { kind: 'material' },
      orderingKey: `material:${materialId}`,
      fields: { payload: { materialIds: [materialId] } },
    }),
  );
}

const on = (path: string) => world.receiver.received.filter((r) => r.path === path);

/** Waits until `read` counts at least `target`; the worker processes doing the work may still be starting. */
async function until(read: () => number, target: number): Promise<void> {
  await expect.poll(read, { timeout: SPAWNING_TEST_TIMEOUT_MS - 10_000 }).toBeGreaterThanOrEqual(target);
}

/** The deliveries to the endpoint at `path`: how many there are in each status, and how many attempts they have taken in all. */
async function deliveriesTo(path: string): Promise<{ statuses: Record<string, number>; attempts: number }> {
  const rows = await world.env.orm.em
    .fork()
    .execute<{ status: string; n: number; attempts: number }[]>(
      `select d.status, count(*)::int as n, sum(d.attempts)::int as attempts from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.url like ? group by d.status`,
      [`%${path}`],
    );
  return { statuses: Object.fromEntries(rows.map((r) => [r.status, r.n])), attempts: rows.reduce((sum, r) => sum + r.attempts, 0) };
}

/** A worker process of its own (ROLE=worker npm start), on the test's database, Redis and queue prefix. */
function workerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['src/main.mjs'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      ROLE: 'worker',
      DATABASE_URL: world.env.config.databaseUrl,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: world.env.config.queuePrefix,
      OUTBOUND_ALLOW_HOSTS: world.receiver.hostPort,
      WEBHOOK_RETRY_SCHEDULE: '200ms,400ms',
      WEBHOOK_TIMEOUT_MS: '1000',
      RELAY_INTERVAL_MS: '100',
      LINK_SIGNING_SECRET: world.env.config.linkSigningSecret!,
      LOG_LEVEL: 'silent',
    },
  });
  children.push(child);
  return child;
}

describe('delivery faults (private Redis and worker processes)', () => {
  it(
    'delivers every event committed while Redis was down, once Redis is back',
    async () => {
      await subscribe('/redis');
      await world.startWorkers();
      await redis.stop();
      await emit(1);
      await emit(2);
      await emit(3);
      // committed, not lost: three deliveries wait for the relay, which cannot queue them without Redis
      expect(await deliveriesTo('/redis')).toEqual({ statuses: { pending: 3 }, attempts: 0 });
      expect(on('/redis')).toHaveLength(0);
      await redis.start();
      await until(() => on('/redis').length, 3);
      expect(
        on('/redis')
          .map((r) => r.body.payload.materialIds[0])
          .sort(),
      ).toEqual([1, 2, 3]);
      await world.workers!.close();
      world.workers = null;
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    'delivers again, with the same eventId, an event whose worker was killed mid-attempt',
    async () => {
      await subscribe('/killed');
      world.receiver.answer('/killed', 'hang');
      const doomed = workerProcess();
      await emit(10);
      await until(() => on('/killed').length, 1);
      expect(on('/killed')).toHaveLength(1);
      doomed.kill('SIGKILL');
      workerProcess();
      await until(() => on('/killed').length, 2);
      const [first, second] = on('/killed');
      expect(second!.body.eventId).toBe(first!.body.eventId);
      const statusOf = async () =>
        (
          await world.env.orm.em
            .fork()
            .execute<{ status: string; attempts: number }[]>(
              `select d.status, d.attempts from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.url like '%/killed'`,
            )
        )[0];
      await expect.poll(statusOf).toEqual({ status: 'succeeded', attempts: 2 });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    'delivers each event once per success with two worker processes running',
    async () => {
      await subscribe('/two');
      workerProcess();
      for (let i = 0; i < 30; i++) await emit(100 + (i % 7));
      await until(() => on('/two').length, 30);
      // once every delivery has succeeded none is claimed again; a claim counts its attempt before it
      // sends, so the receiver got one request per attempt (30 unless a loaded machine timed one out)
      await expect.poll(async () => (await deliveriesTo('/two')).statuses).toEqual({ succeeded: 30 });
      const ids = on('/two').map((r) => r.body.eventId);
      expect(ids).toHaveLength((await deliveriesTo('/two')).attempts);
      expect(new Set(ids).size).toBe(30);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});
