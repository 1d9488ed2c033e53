import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { type Received, send } from '../support/http.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

let env: TestEnv;
let receiver: WebhookReceiver;
let team: GivenTeam;
let key: GivenKey;
let folderA: number;

beforeAll(async () => {
  receiver = await startReceiver();
  env = await createTestEnv({ OUTBOUND_ALLOW_HOSTS: receiver.hostPort });
  team = await given(env).team('Idem');
  key = await given(env).key(team, 'manage');
  folderA = (await env.core.assets.folderEdit.create(await given(env).ctx(key), { name: 'campaigns' })).id;
});
afterAll(async () => {
  await env.close();
  await receiver.close();
});

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);
/** Subscriptions and endpoints: what a refused request must leave as it was. */
const stored = async () =>
  (await db<{ s: string }>(`select (select count(*) from event_subscriptions) || '/' || (select count(*) from webhook_endpoints) as s`))[0]!.s;
const subscriptionsAt = async (url: string) =>
  (await db<{ n: number }>('select count(*)::int as n from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id where e.url = ?', [url]))[0]!
    .n;
const post = (url: string, body: unknown, idem: string, k: GivenKey = key) =>
  send(env, { method: 'POST', url, key: k.key, body, headers: { 'idempotency-key': idem } });
const replayedCount = (answers: Received[]) => answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length;

describe('Idempotency-Key on /open subscription changes (docs/events.md "Idempotency-Key")', () => {
  it('makes 20 concurrent folder-subscribe with one key subscribe once, every answer true and the repeats replayed', async () => {
    const callbackUrl = `${receiver.url}/race`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/open/folder-subscribe', { folderIds: [folderA], callbackUrl }, 'folder-race')));
    expect(answers.map((a) => [a.status, a.body.code, a.body.result])).toEqual(Array(20).fill([200, '0', true]));
    expect(replayedCount(answers)).toBe(19);
    expect(await subscriptionsAt(`${callbackUrl}`)).toBe(1);
  });

  it('answers a repeat after a DELETE with the first result and subscribes nothing again', async () => {
    const callbackUrl = `${receiver.url}/again`;
    const body = { folderIds: [folderA], callbackUrl };
    expect((await post('/open/folder-subscribe', body, 'folder-again')).headers['idempotent-replayed']).toBeUndefined();
    await send(env, { method: 'POST', url: '/open/folder-subscribe', key: key.key, body: { ...body, operation: 'DELETE' } });
    expect(await subscriptionsAt(callbackUrl)).toBe(0);
    const repeat = await post('/open/folder-subscribe', body, 'folder-again');
    expect(repeat).toMatchObject({ status: 200, body: { code: '0', result: true } });
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(await subscriptionsAt(callbackUrl)).toBe(0);
  });

  it('refuses the same key with another body with 409 idempotency_key_reused in the open envelope and stores nothing', async () => {
    await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: team.teamId });
    await post('/open/material-automation-subscribe', { callbackUrl: `${receiver.url}/m1`, eventTypes: ['MATERIAL_DELETED'] }, 'material-reuse');
    const before = await stored();
    const res = await post('/open/material-automation-subscribe', { callbackUrl: `${receiver.url}/m2`, eventTypes: ['MATERIAL_DELETED'] }, 'material-reuse');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'idempotency_key_reused', result: null, traceId: expect.any(String) });
    expect(await stored()).toBe(before);
    expect(await subscriptionsAt(`${receiver.url}/m2`)).toBe(0);
  });

  it.each([
    ['a blank key', '   '],
    ['a 256-character key', 'k'.repeat(256)],
    ['a key with a control character', 'abc\u0001def'],
  ])('refuses %s with 400 invalid_parameter naming Idempotency-Key and stores nothing', async (_label, idem) => {
    const before = await stored();
    const res = await post('/open/folder-subscribe', { folderIds: [folderA], callbackUrl: `${receiver.url}/bad-key` }, idem);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_parameter', result: null, details: [{ field: 'Idempotency-Key', message: expect.any(String) }] });
    expect(await stored()).toBe(before);
  });

  it('does not use up a key when the change fails: after 403 subscriptions_not_enabled the same key and body subscribe once the team may', async () => {
    const late = await given(env).team('Late');
    const lateKey = await given(env).key(late, 'manage');
    const body = { callbackUrl: `${receiver.url}/late`, eventTypes: ['MATERIAL_ADDED_TO_FOLDER'] };
    const refused = await post('/open/material-automation-subscribe', body, 'late-1', lateKey);
    expect(refused).toMatchObject({ status: 403, body: { code: 'subscriptions_not_enabled' } });
    await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: late.teamId });
    const accepted = await post('/open/material-automation-subscribe', body, 'late-1', lateKey);
    expect(accepted).toMatchObject({ status: 200, body: { code: '0', result: true } });
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
    expect(await subscriptionsAt(`${receiver.url}/late`)).toBe(1);
  });

  it('ignores the key on the searches, which create nothing', async () => {
    const res = await post('/open/search-assets', {}, '   ');
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('Idempotency-Key on subscriptionChange (docs/approvals.md "Idempotency-Key")', () => {
  const change = (body: Record<string, unknown>, idem: string, k: GivenKey = key) => post('/approval', { service: 'subscriptionChange', ...body }, idem, k);

  it('makes 20 concurrent ADDs with one key subscribe once, every answer the same subscription', async () => {
    const own = await given(env).key(team, 'manage');
    const callbackUrl = `${receiver.url}/approvals`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => change({ operation: 'ADD', callbackUrl }, 'approval-race', own)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers[0]!.body.result).toMatchObject({ subscribed: true, callbackUrl, state: 'active', createdAt: expect.any(String) });
    expect(answers.map((a) => a.body.result)).toEqual(Array(20).fill(answers[0]!.body.result));
    expect(replayedCount(answers)).toBe(19);
    const rows = await db<{ n: number }>(
      `select count(*)::int as n from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id where e.api_key_id = ? and s.kind = 'approval'`,
      [own.keyId],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('refuses the same key with another body with 400 invalid_payload:idempotency_key_reused and changes nothing', async () => {
    await change({ operation: 'ADD', callbackUrl: `${receiver.url}/a1` }, 'approval-reuse');
    const before = await stored();
    const res = await change({ operation: 'ADD', callbackUrl: `${receiver.url}/a2` }, 'approval-reuse');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_payload:idempotency_key_reused', result: null });
    expect(await stored()).toBe(before);
    const query = await send(env, { method: 'POST', url: '/approval', key: key.key, body: { service: 'subscriptionQuery' } });
    expect(query.body.result.callbackUrl).toBe(`${receiver.url}/a1`);
  });

  it('refuses a malformed key with 400 invalid_payload:invalid_parameter naming Idempotency-Key and changes nothing', async () => {
    const before = await stored();
    const res = await change({ operation: 'ADD', callbackUrl: `${receiver.url}/a3` }, 'k'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_payload:invalid_parameter', details: [{ field: 'Idempotency-Key' }] });
    expect(await stored()).toBe(before);
  });

  it('does not use up a key when the change fails: after a refused ADD the same key takes a corrected body', async () => {
    const refused = await change({ operation: 'ADD' }, 'approval-failed');
    expect(refused.body.code).toBe('invalid_payload:missing_callback_url');
    const corrected = await change({ operation: 'ADD', callbackUrl: `${receiver.url}/a4` }, 'approval-failed');
    expect(corrected).toMatchObject({ status: 200, body: { code: '0', result: { subscribed: true, callbackUrl: `${receiver.url}/a4` } } });
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });
});
