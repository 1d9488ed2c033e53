import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

let env: TestEnv;
let receiver: WebhookReceiver;
let team: GivenTeam;
let other: GivenTeam;
let key: GivenKey;
let secondKey: GivenKey;
let otherKey: GivenKey;
let folderA: number;
let folderOfOther: number;

async function folder(k: GivenKey, name: string): Promise<number> {
  const ctx = await given(env).ctx(k);
  return (await env.core.assets.folderEdit.create(ctx, { name })).id;
}

beforeAll(async () => {
  receiver = await startReceiver();
  env = await createTestEnv({ OUTBOUND_ALLOW_HOSTS: receiver.hostPort });
  team = await given(env).team('A');
  other = await given(env).team('B');
  key = await given(env).key(team, 'view_only');
  secondKey = await given(env).key(team, 'manage');
  otherKey = await given(env).key(other, 'manage');
  folderA = await folder(secondKey, 'campaigns');
  folderOfOther = await folder(otherKey, 'theirs');
});
afterAll(async () => {
  await env.close();
  await receiver.close();
});

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);
const stored = async () =>
  (await db<{ s: string }>(`select (select count(*) from event_subscriptions) || '/' || (select count(*) from webhook_endpoints) as s`))[0]!.s;
const post = (url: string, body: unknown, k: GivenKey = key) => send(env, { method: 'POST', url, key: k.key, body });

describe('POST /open/folder-subscribe (spec 4.7)', () => {
  it('subscribes the calling key to a folder with the default event type and operation, and answers result true', async () => {
    const res = await post('/open/folder-subscribe', { folderIds: [folderA], callbackUrl: `${receiver.url}/folders` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: '0', result: true });
    const rows = await db<{ kind: string; event_type: string; folder_id: number; api_key_id: number; secret: string; team_id: number }>(
      `select s.kind, s.event_type, s.folder_id, e.api_key_id, e.secret, s.team_id from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id`,
    );
    expect(rows).toEqual([
      {
        kind: 'folder',
        event_type: 'FOLDER_CONTENT_UPDATE',
        folder_id: folderA,
        api_key_id: key.keyId,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32}$/),
        team_id: team.teamId,
      },
    ]);
  });

  it('is a no-op when subscribed again, and DELETE cancels the subscription', async () => {
    const before = await stored();
    expect((await post('/open/folder-subscribe', { folderIds: [folderA, folderA], callbackUrl: `${receiver.url}/folders`, operation: 'ADD' })).status).toBe(
      200,
    );
    expect(await stored()).toBe(before);
    const res = await post('/open/folder-subscribe', { folderIds: [folderA], callbackUrl: `${receiver.url}/folders`, operation: 'DELETE' });
    expect(res.body).toMatchObject({ code: '0', result: true });
    expect((await db<{ n: number }>('select count(*)::int as n from event_subscriptions'))[0]!.n).toBe(0);
  });

  it("refuses another team's folder with 404 folder_not_found naming it, and stores nothing", async () => {
    const before = await stored();
    const res = await post('/open/folder-subscribe', { folderIds: [folderA, folderOfOther], callbackUrl: `${receiver.url}/x` });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      code: 'folder_not_found',
      result: null,
      details: [{ field: 'folderIds', message: `${folderOfOther} is not a folder of this team` }],
    });
    expect(await stored()).toBe(before);
  });

  it('refuses an unknown folder id with 404 folder_not_found and stores nothing', async () => {
    const before = await stored();
    expect((await post('/open/folder-subscribe', { folderIds: [987654], callbackUrl: `${receiver.url}/x` })).body.code).toBe('folder_not_found');
    expect(await stored()).toBe(before);
  });

  it.each([
    ['a missing callbackUrl', { folderIds: [1] }, 'invalid_parameter', 'callbackUrl'],
    ['missing folderIds', { callbackUrl: 'https://example.com/x' }, 'invalid_parameter', 'folderIds'],
    ['empty folderIds', { folderIds: [], callbackUrl: 'https://example.com/x' }, 'invalid_parameter', 'folderIds'],
    ['an unknown field', { folderIds: [1], callbackUrl: 'https://example.com/x', extra: 1 }, 'invalid_parameter', 'extra'],
    ['an unknown operation', { folderIds: [1], callbackUrl: 'https://example.com/x', operation: 'UPSERT' }, 'unknown_operation', 'operation'],
    ['an unknown event type', { folderIds: [1], callbackUrl: 'https://example.com/x', eventType: 'MATERIAL_DELETED' }, 'unknown_event_type', 'eventType'],
  ])('refuses %s with 400 %s naming the field, and stores nothing', async (_what, body, code, field) => {
    const before = await stored();
    const res = await post('/open/folder-subscribe', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await stored()).toBe(before);
  });

  it.each([
    ['a non-HTTP scheme', 'ftp://example.com/hook', 'callback_url_invalid'],
    ['a URL with credentials', 'https://user:pass@example.com/hook', 'callback_url_invalid'],
    ['a relative URL', '/hook', 'callback_url_invalid'],
    ['loopback not in the allowlist', 'http://127.0.0.1:9/hook', 'callback_url_not_allowed'],
    ['a private address', 'http://10.1.2.3/hook', 'callback_url_not_allowed'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data', 'callback_url_not_allowed'],
    ['an IPv6 loopback', 'http://[::1]:8080/hook', 'callback_url_not_allowed'],
    ['IPv4-compatible IPv6 loopback ::127.0.0.1', 'http://[::127.0.0.1]:8080/hook', 'callback_url_not_allowed'],
    ['NAT64 over the metadata address', 'http://[64:ff9b::169.254.169.254]/hook', 'callback_url_not_allowed'],
    ['the IPv6 unspecified address', 'http://[::]:8080/hook', 'callback_url_not_allowed'],
    ['a decimal spelling of loopback', 'http://2130706433/hook', 'callback_url_not_allowed'],
  ])('refuses %s as callbackUrl with 400 %s and stores nothing', async (_what, callbackUrl, code) => {
    const before = await stored();
    const res = await post('/open/folder-subscribe', { folderIds: [folderA], callbackUrl });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, result: null, details: [{ field: 'callbackUrl' }] });
    expect(await stored()).toBe(before);
  });

  it('tells the caller of a refused private callbackUrl that OUTBOUND_ALLOW_HOSTS exists', async () => {
    const res = await post('/open/folder-subscribe', { folderIds: [folderA], callbackUrl: 'http://127.0.0.1:9/hook' });
    expect(res.body.code).toBe('callback_url_not_allowed');
    expect(res.body.details[0].message).toContain('OUTBOUND_ALLOW_HOSTS');
  });

  it('refuses a request without a key with 401 in the open envelope', async () => {
    const res = await send(env, { method: 'POST', url: '/open/folder-subscribe', body: { folderIds: [folderA], callbackUrl: receiver.url } });
    expect(res).toMatchObject({ status: 401, body: { code: 'invalid_credentials', result: null } });
  });
});

describe('material automation subscriptions (spec 4.7)', () => {
  it('refuses a team without the subscription capability with 403 subscriptions_not_enabled and stores nothing', async () => {
    const before = await stored();
    const res = await post('/open/material-automation-subscribe', { callbackUrl: `${receiver.url}/m`, eventTypes: ['MATERIAL_DELETED'] });
    expect(res).toMatchObject({ status: 403, body: { code: 'subscriptions_not_enabled', result: null } });
    expect(await stored()).toBe(before);
  });

  it('lists exactly the five event types of 6.2, none subscribed yet', async () => {
    const res = await send(env, { url: '/open/material-automation-event-types', key: key.key });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual(
      ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED', 'MATERIAL_VERSION_CHANGED', 'MATERIAL_DELETED'].map((code) => ({
        code,
        desc: expect.any(String),
        needsConfig: false,
        subscribed: false,
      })),
    );
  });

  it('subscribes several types once the capability is on, and shows them subscribed for the calling key only', async () => {
    await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: team.teamId });
    const res = await post('/open/material-automation-subscribe', {
      callbackUrl: `${receiver.url}/m`,
      eventTypes: ['MATERIAL_DELETED', 'MATERIAL_ADDED_TO_FOLDER'],
    });
    expect(res.body).toMatchObject({ code: '0', result: true });
    const mine = await send(env, { url: '/open/material-automation-event-types', key: key.key });
    expect(mine.body.result.filter((t: { subscribed: boolean }) => t.subscribed).map((t: { code: string }) => t.code)).toEqual([
      'MATERIAL_ADDED_TO_FOLDER',
      'MATERIAL_DELETED',
    ]);
    const theirs = await send(env, { url: '/open/material-automation-event-types', key: secondKey.key });
    expect(theirs.body.result.some((t: { subscribed: boolean }) => t.subscribed)).toBe(false);
  });

  it('cancels by key, callbackUrl and event type with DELETE', async () => {
    await post('/open/material-automation-subscribe', { callbackUrl: `${receiver.url}/m`, eventTypes: ['MATERIAL_DELETED'], operation: 'DELETE' });
    const after = await send(env, { url: '/open/material-automation-event-types', key: key.key });
    expect(after.body.result.filter((t: { subscribed: boolean }) => t.subscribed).map((t: { code: string }) => t.code)).toEqual(['MATERIAL_ADDED_TO_FOLDER']);
  });

  it('refuses an unknown event type with 400 unknown_event_type and stores nothing', async () => {
    const before = await stored();
    const res = await post('/open/material-automation-subscribe', { callbackUrl: `${receiver.url}/m`, eventTypes: ['MATERIAL_ADDED_TO_FOLDER', 'NOPE'] });
    expect(res).toMatchObject({ status: 400, body: { code: 'unknown_event_type', details: [{ field: 'eventTypes' }] } });
    expect(await stored()).toBe(before);
  });

  it('refuses missing eventTypes or callbackUrl with 400 invalid_parameter and stores nothing', async () => {
    const before = await stored();
    expect((await post('/open/material-automation-subscribe', { callbackUrl: `${receiver.url}/m` })).body.code).toBe('invalid_parameter');
    expect((await post('/open/material-automation-subscribe', { eventTypes: ['MATERIAL_DELETED'] })).body.code).toBe('invalid_parameter');
    expect(await stored()).toBe(before);
  });
});
