import { tmpdir } from 'node:os';
import { QueueEvents } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisConnection } from '../../src/queues.ts';
import { type RunningWorkers, startWorkers } from '../../workers/index.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { givenProducts } from '../support/given-products.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let workers: RunningWorkers;
let events: QueueEvents;

beforeAll(async () => {
  env = await createTestEnv();
  workers = await startWorkers({ core: env.core, config: env.config, queues: env.queues, metrics: env.metrics, logger: pino({ level: 'silent' }) });
  events = new QueueEvents('maintenance', { connection: redisConnection(env.config), prefix: env.config.queuePrefix });
  await events.waitUntilReady();
  // The hourly purges run once as soon as they are scheduled; on a busy machine that first run can
  // come late enough to purge a test's rows before its own job does. Let the five finish first.
  const queue = env.queues.get('maintenance');
  await vi.waitUntil(
    async () => {
      const counts = await queue.getJobCounts('completed', 'failed');
      return (counts.completed ?? 0) + (counts.failed ?? 0) >= 5;
    },
    { timeout: 60_000, interval: 50 },
  );
});
afterAll(async () => {
  await events.close();
  await workers.close();
  await env.close();
});

describe('maintenance worker (BullMQ on Redis)', () => {
  it('schedules the hourly idempotency, event, activity and product change log purges, the upload purge and the daily validity check once each, keyed by id', async () => {
    const schedulers = await env.queues.get('maintenance').getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual([
      'purge-activity',
      'purge-events',
      'purge-idempotency',
      'purge-product-changes',
      'purge-uploads',
      'validity-check',
    ]);
  });

  it('deletes finished deliveries, their attempts and events past the 30-day replay window, keeping pending ones', async () => {
    const team = await given(env).team('Events');
    await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: team.teamId });
    const db = (sql: string, params: unknown[] = []) => env.orm.em.fork().execute(sql, params);
    const key = await given(env).key(team, 'manage');
    const [endpoint] = (await db(
      `insert into webhook_endpoints (team_id, api_key_id, url, secret) values (?, ?, 'https://example.com/h', 'whsec_x') returning id`,
      [team.teamId, key.keyId],
    )) as [{ id: number }];
    // The pending delivery is not ready, so the running delivery worker leaves it (and its attempt row) alone.
    for (const [name, status, age] of [
      ['old-done', 'succeeded', 31],
      ['old-pending', 'pending', 31],
      ['recent-done', 'succeeded', 1],
    ] as const) {
      const [event] = (await db(
        `insert into outbox_events (team_id, event_id, event_type, ordering_key, body, actor, created_at) values (?, gen_random_uuid(), 'MATERIAL_DELETED', ?, '{}', 'key:1', now() - ? * interval '1 day') returning id`,
        [team.teamId, name, age],
      )) as [{ id: string }];
      const [delivery] = (await db(
        `insert into webhook_deliveries (team_id, endpoint_id, event_id, ordering_key, sequence, ready, status, finished_at) values (?, ?, ?, ?, 1, ? <> 'pending', ?, case when ? = 'succeeded' then now() - ? * interval '1 day' end) returning id`,
        [team.teamId, endpoint.id, event.id, name, status, status, status, age],
      )) as [{ id: string }];
      await db(`insert into webhook_attempts (team_id, delivery_id, attempt, started_at, duration_ms) values (?, ?, 1, now(), 5)`, [team.teamId, delivery.id]);
    }
    const job = await env.queues.get('maintenance').add('purge-events', {});
    expect(await job.waitUntilFinished(events, 20_000)).toEqual({ purged: 1 });
    const left = (await db(`select ordering_key from outbox_events order by ordering_key`)) as { ordering_key: string }[];
    expect(left.map((r) => r.ordering_key)).toEqual(['old-pending', 'recent-done']);
    expect(((await db('select count(*)::int as n from webhook_attempts')) as [{ n: number }])[0].n).toBe(2);
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

  it('purges the products sync feed change log and role log past PRODUCT_CHANGES_RETENTION_DAYS (400 by default) and keeps newer entries', async () => {
    const team = await given(env).team('Changes');
    const key = await given(env).key(team, 'manage');
    const product = await givenProducts(env, tmpdir()).product(key);
    const db = (sql: string, params: unknown[] = []) => env.orm.em.fork().execute(sql, params);
    for (const age of ['401 days', '400 days 1 minute', '399 days 23 hours', '1 hour']) {
      await db(`insert into product_changes (team_id, product_id, kind, at) values (?, ?, 3, now() - ?::interval)`, [team.teamId, product.id, age]);
    }
    for (const age of ['401 days', '1 hour']) {
      await db(`insert into api_key_role_changes (team_id, key_id, from_role, to_role, at) values (?, ?, 'usable', 'manage', now() - ?::interval)`, [
        team.teamId,
        key.keyId,
        age,
      ]);
    }
    const job = await env.queues.get('maintenance').add('purge-product-changes', {});
    expect(await job.waitUntilFinished(events, 20_000)).toEqual({ purged: 2, roleChangesPurged: 1 });
    const roleAges = (await db(`select count(*)::int as n from api_key_role_changes where team_id = ? and at > now() - interval '1 day'`, [team.teamId])) as [
      { n: number },
    ];
    expect(roleAges[0].n).toBe(1);
    expect(((await db('select count(*)::int as n from api_key_role_changes where team_id = ?', [team.teamId])) as [{ n: number }])[0].n).toBe(1);
    const left = (await db(`select count(*)::int as n from product_changes where team_id = ? and at > now() - interval '400 days'`, [team.teamId])) as [
      { n: number },
    ];
    expect(left[0].n).toBe(2);
    expect(((await db('select count(*)::int as n from product_changes where team_id = ?', [team.teamId])) as [{ n: number }])[0].n).toBe(2);
  });
});
