import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/core/outbox/outbox.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { writtenDeliveries } from '../support/outbox.ts';
import { until } from '../support/wait.ts';

let world: EventWorld;

beforeAll(async () => {
  world = await createEventWorld({ WEBHOOK_TIMEOUT_MS: '500' });
  await world.startWorkers();
});
afterAll(() => world.close());

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);

/** Subscribes `key` at `path` of the receiver to MATERIAL_DELETED; returns the endpoint id and secret. */
async function subscribe(path: string, key: GivenKey = world.key): Promise<{ endpointId: number; secret: string }> {
  const res = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: key.key,
    body: { callbackUrl: `${world.receiver.url}${path}`, eventTypes: ['MATERIAL_DELETED'] },
  });
  expect(res.body.code).toBe('0');
  const [row] = await db<{ id: number; secret: string }>('select id, secret from webhook_endpoints where url = ? and api_key_id = ?', [
    `${world.receiver.url}${path}`,
    key.keyId,
  ]);
  return { endpointId: row!.id, secret: row!.secret };
}

/** Commits one MATERIAL_DELETED event of material `materialId` as `key`'s team, as a library deletion does. */
async function emit(materialId: number, key: GivenKey = world.key, rollBack = false): Promise<void> {
  const ctx = await given(world.env).ctx(key);
  await inTransaction(ctx, async (tx) => {
    await recordEvent(tx, {
      eventType: 'MATERIAL_DELETED',
      audience: { kind: 'material' },
      orderingKey: `material:${materialId}`,
      fields: { payload: { materialIds: [materialId], deleteAction: 'RECYCLE' } },
    });
    if (rollBack) throw new Error('roll back');
  }).catch((e: Error) => {
    if (!rollBack) throw e;
  });
}

const on = (path: string) => world.receiver.received.filter((r) => r.path === path);

/** The materials of the events written for the endpoint at `path`, of any team: all it will ever be sent (support/outbox.ts). */
const writtenTo = async (path: string) => (await writtenDeliveries(world.env)).filter((d) => d.path === path).map((d) => d.body.payload.materialIds);

describe('webhook delivery: at least once, retried, recorded', () => {
  it('delivers an event three times with one eventId to a receiver that answers 500 twice, and records every attempt', async () => {
    await subscribe('/flaky');
    world.receiver.answer('/flaky', 500, 500, 200);
    await emit(101);
    const got = await until(
      () => on('/flaky'),
      (r) => r.length >= 3,
    );
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.body.eventId)).size).toBe(1);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(got.map((r) => r.body.eventId));
    const attempts = await until(
      () =>
        db<{ attempt: number; status_code: number; error: string | null }>(`select a.attempt, a.status_code, a.error from webhook_attempts a order by a.id`),
      (rows) => rows.length >= 3,
    );
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    const [delivery] = await db<{ status: string; attempts: number }>(`select status, attempts from webhook_deliveries`);
    expect(delivery).toEqual({ status: 'succeeded', attempts: 3 });
  });

  it('sends a body exactly as 6.2 with eventId, eventType, eventTime in milliseconds, actor, payload and the per-key sequence', async () => {
    const [first] = on('/flaky');
    expect(first!.headers['content-type']).toBe('application/json');
    expect(first!.body).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      eventType: 'MATERIAL_DELETED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'key', id: world.key.keyId },
      payload: { materialIds: [101], deleteAction: 'RECYCLE' },
      sequence: 1,
    });
  });

  it('signs every delivery so that the standardwebhooks library verifies it with the endpoint secret', async () => {
    const [row] = await db<{ secret: string }>('select secret from webhook_endpoints where url like ?', ['%/flaky']);
    const receiver = new Webhook(row!.secret);
    for (const request of on('/flaky')) {
      expect(receiver.verify(request.raw, request.headers as Record<string, string>)).toEqual(request.body);
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`).verify(on('/flaky')[0]!.raw, on('/flaky')[0]!.headers as Record<string, string>),
    ).toThrow();
  });

  it('never sends an event whose change rolled back', async () => {
    await subscribe('/rollback');
    await emit(202, world.key, true);
    await emit(203);
    const got = await until(
      () => on('/rollback'),
      (r) => r.length >= 1,
    );
    expect(await writtenTo('/rollback')).toEqual([[203]]);
    expect(on('/rollback').map((r) => r.body.payload.materialIds)).toEqual([[203]]);
    expect(got[0]!.body.sequence).toBe(1);
  });

  it('disables the endpoint at once on 410 Gone and sends it nothing more', async () => {
    const { endpointId } = await subscribe('/gone');
    world.receiver.answer('/gone', 410);
    await emit(301);
    await until(
      () => db<{ state: string }>('select state from webhook_endpoints where id = ?', [endpointId]),
      (r) => r[0]!.state === 'disabled',
    );
    const [endpoint] = await db<{ state: string; disabled_reason: string }>('select state, disabled_reason from webhook_endpoints where id = ?', [endpointId]);
    expect(endpoint).toEqual({ state: 'disabled', disabled_reason: 'The receiver answered 410 Gone' });
    await emit(302);
    expect(await writtenTo('/gone')).toEqual([[301]]);
    expect(on('/gone')).toHaveLength(1);
  });

  it('honours Retry-After on 429 and 503', async () => {
    await subscribe('/busy');
    world.receiver.answer('/busy', { status: 503, headers: { 'retry-after': '1' } }, 200);
    await emit(401);
    const got = await until(
      () => on('/busy'),
      (r) => r.length >= 2,
    );
    expect(got).toHaveLength(2);
    // the schedule alone would retry after 160-240 ms
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('times out a slow receiver and retries it, recording the timeout', async () => {
    await subscribe('/slow');
    world.receiver.answer('/slow', { status: 200, delayMs: 2_000 }, 200);
    await emit(501);
    await until(
      () => on('/slow'),
      (r) => r.length >= 2,
    );
    const attempts = await until(
      () =>
        db<{ attempt: number; status_code: number | null; error: string | null }>(
          `select a.attempt, a.status_code, a.error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id join webhook_endpoints e on e.id = d.endpoint_id where e.url like '%/slow' order by a.attempt`,
        ),
      (rows) => rows.length >= 2,
    );
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: expect.stringMatching(/timeout/i) });
    expect(attempts[1]).toMatchObject({ attempt: 2, status_code: 200, error: null });
  });
});

describe('webhook delivery: order per key', () => {
  it("holds back a key's later events behind a failing one, while another key's events keep flowing", async () => {
    await subscribe('/order');
    // 601's first attempt is refused with a 3 s Retry-After, so "602 is not held behind it" does
    // not depend on how fast a loaded machine commits the next event (the plain schedule's first
    // retry, 160-240 ms, could beat it)
    world.receiver.answer('/order', { status: 503, headers: { 'retry-after': '3' } });
    await emit(601);
    await emit(601);
    await until(
      () => on('/order'),
      (r) => r.length >= 1,
    );
    await emit(602);
    const got = await until(
      () => on('/order'),
      (r) => r.length >= 4,
    );
    const sequenceOf = (material: number) => got.filter((r) => r.body.payload.materialIds[0] === material).map((r) => r.body.sequence);
    expect(sequenceOf(601)).toEqual([1, 1, 2]);
    expect(sequenceOf(602)).toEqual([1]);
    const order = got.map((r) => `${r.body.payload.materialIds[0]}#${r.body.sequence}`);
    // 602 arrives before 601's retry; 601#2 only after 601#1 succeeded
    expect(order.indexOf('602#1')).toBeLessThan(order.lastIndexOf('601#1'));
    expect(order.indexOf('601#2')).toBeGreaterThan(order.lastIndexOf('601#1'));
  });
});

describe('webhook delivery: isolation between teams', () => {
  it("never sends one team's events to another team's endpoints", async () => {
    const other = await given(world.env).team('Other');
    await world.env.core.access.enableSubscriptions(world.env.core.operatorCtx(), { teamId: other.teamId });
    const otherKey = await given(world.env).key(other, 'manage');
    await subscribe('/other-team', otherKey);
    await emit(701);
    await emit(702, otherKey);
    const got = await until(
      () => on('/other-team'),
      (r) => r.length >= 1,
    );
    expect(await writtenTo('/other-team')).toEqual([[702]]);
    expect(got.map((r) => r.body.payload.materialIds)).toEqual([[702]]);
    expect(on('/other-team')).toHaveLength(1);
  });
});
