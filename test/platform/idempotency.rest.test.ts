import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withIdempotency } from '../../src/core/platform/idempotency.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  manager = await g.key(await g.team(), 'manage');
});
afterAll(async () => env.close());

async function brandsNamed(name: string): Promise<number> {
  const rows = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from brands where name = ?', [name]);
  return Number(rows[0]!.n);
}

const create = (key: string, idem: string, body: unknown) => send(env, { method: 'POST', url: '/v1/brands', key, body, headers: { 'idempotency-key': idem } });

describe('Idempotency-Key on creates (spec 4.1, 8)', () => {
  it('replays the original status, body and ETag, creating one resource', async () => {
    const first = await create(manager.key, 'replay-1', { name: 'Once' });
    const second = await create(manager.key, 'replay-1', { name: 'Once' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(await brandsNamed('Once')).toBe(1);
  });

  it('keeps the previous release working during a rolling deploy: its records replay here, and ours carry the status it reads', async () => {
    // what the previous release reads back on a replay of a record written by this one
    await create(manager.key, 'rolling-1', { name: 'Rolling' });
    const [ours] = await env.orm.em
      .fork()
      .execute<{ response_status: number }[]>(`select response_status from idempotency_records where idempotency_key = 'rolling-1'`);
    expect(ours!.response_status).toBe(201);
    // a record the previous release wrote, naming the column, replays here as any other
    const first = await create(manager.key, 'rolling-2', { name: 'Rolled' });
    await env.orm.em.fork().execute(`update idempotency_records set response_status = 201 where idempotency_key = 'rolling-2'`);
    const replay = await create(manager.key, 'rolling-2', { name: 'Rolled' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
  });

  it('treats the same input with keys in another order as the same request', async () => {
    const first = await create(manager.key, 'order-1', { name: 'Ordered', description: 'd' });
    const second = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: manager.key,
      rawBody: '{"description":"d","name":"Ordered"}',
      headers: { 'idempotency-key': 'order-1', 'content-type': 'application/json' },
    });
    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(first.body.data.id);
  });

  it('refuses the same key with changed input with 409 idempotency_key_reused and creates nothing', async () => {
    await create(manager.key, 'reuse-1', { name: 'Original' });
    const res = await create(manager.key, 'reuse-1', { name: 'Different' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await brandsNamed('Different')).toBe(0);
  });

  it('scopes keys per API key: another key of the same team with the same Idempotency-Key creates its own resource', async () => {
    const other = await g.key({ teamId: manager.teamId }, 'manage');
    const a = await create(manager.key, 'scope-1', { name: 'Scoped' });
    const b = await create(other.key, 'scope-1', { name: 'Scoped' });
    expect(a.body.data.id).not.toBe(b.body.data.id);
    expect(await brandsNamed('Scoped')).toBe(2);
  });

  it('scopes keys per operation: one key used for two operations runs both', async () => {
    const ctx = await g.ctx(manager);
    const one = await withIdempotency(ctx, { operation: 'test.one', key: 'op-scope', input: {} }, async () => ({ body: 'one', etag: null }));
    const two = await withIdempotency(ctx, { operation: 'test.two', key: 'op-scope', input: {} }, async () => ({ body: 'two', etag: null }));
    expect([one.body, one.replayed, two.body, two.replayed]).toEqual(['one', false, 'two', false]);
  });

  it('makes two concurrent requests with one key create one resource, both answered with it', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => create(manager.key, 'race-1', { name: 'Raced' })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(await brandsNamed('Raced')).toBe(1);
  });

  it('forgets a key after the 24-hour window: the same key then creates again', async () => {
    await create(manager.key, 'window-1', { name: 'Windowed' });
    await env.orm.em.fork().execute(`update idempotency_records set created_at = now() - interval '24 hours 1 second' where idempotency_key = 'window-1'`);
    const again = await create(manager.key, 'window-1', { name: 'Windowed' });
    expect(again.status).toBe(201);
    expect(await brandsNamed('Windowed')).toBe(2);
  });

  it('still replays just inside the window', async () => {
    await create(manager.key, 'window-2', { name: 'Inside' });
    await env.orm.em.fork().execute(`update idempotency_records set created_at = now() - interval '23 hours 59 minutes' where idempotency_key = 'window-2'`);
    await create(manager.key, 'window-2', { name: 'Inside' });
    expect(await brandsNamed('Inside')).toBe(1);
  });

  it('does not consume a key when the create fails: after a 422 the same key works with valid input', async () => {
    const bad = await create(manager.key, 'failed-1', { name: '' });
    expect(bad.status).toBe(422);
    const good = await create(manager.key, 'failed-1', { name: 'Recovered' });
    expect(good.status).toBe(201);
  });

  const badKeys: Array<[string, string]> = [
    ['a blank key', '   '],
    ['a 256-character key', 'k'.repeat(256)],
    ['a key with a control character', 'abc\u0001def'],
    ['a key with a tab', 'abc\tdef'],
  ];
  for (const [label, key] of badKeys) {
    it(`rejects ${label} with 422 validation_failed and creates nothing`, async () => {
      const name = `bad-key-${label}`;
      const res = await send(env, {
        method: 'POST',
        url: '/v1/brands',
        key: manager.key,
        body: { name: name.slice(0, 100) },
        headers: { 'idempotency-key': key },
      });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details[0].field).toBe('Idempotency-Key');
      expect(await brandsNamed(name.slice(0, 100))).toBe(0);
    });
  }

  it('accepts a 255-character key', async () => {
    const res = await create(manager.key, 'k'.repeat(255), { name: 'Long key' });
    expect(res.status).toBe(201);
  });
});
