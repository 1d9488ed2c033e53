import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  manager = await g.key(await g.team('A'), 'manage');
});
afterAll(async () => env.close());

describe('Authorization: Bearer <API key> on every Area A request (spec 5)', () => {
  const badHeaders: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['an empty Bearer value', { authorization: 'Bearer ' }],
    ['the Basic scheme', { authorization: 'Basic dXNlcjpwdw==' }],
    ['an unknown key', { authorization: 'Bearer shelf_not-a-real-key' }],
    ['two tokens', { authorization: 'Bearer a b' }],
  ];
  for (const [label, headers] of badHeaders) {
    it(`answers ${label} with 401 invalid_credentials in the envelope`, async () => {
      const res = await send(env, { url: '/v1/brands', headers });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'invalid_credentials' });
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
    });
  }

  it('answers a revoked key with 401 key_inactive on its very next request', async () => {
    const key = await g.key(await g.team(), 'manage');
    expect((await send(env, { url: '/v1/brands', key: key.key })).status).toBe(200);
    await env.core.access.revokeKey(env.core.operatorCtx(), { keyId: key.keyId });
    const res = await send(env, { url: '/v1/brands', key: key.key });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('key_inactive');
  });

  it('answers an expired key with 401 key_inactive', async () => {
    const key = await g.key(await g.team(), 'manage', '2020-01-01T00:00:00Z');
    const res = await send(env, { url: '/v1/brands', key: key.key });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('key_inactive');
  });

  it('accepts a key whose expiry is in the future', async () => {
    const key = await g.key(await g.team(), 'view_only', '2999-01-01T00:00:00Z');
    expect((await send(env, { url: '/v1/brands', key: key.key })).status).toBe(200);
  });

  it('applies a changed role on the very next request', async () => {
    const key = await g.key(await g.team(), 'view_only');
    const denied = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    await env.core.access.setKeyRole(env.core.operatorCtx(), { keyId: key.keyId, role: 'manage' });
    const allowed = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'x' } });
    expect(allowed.status).toBe(201);
    await env.core.access.setKeyRole(env.core.operatorCtx(), { keyId: key.keyId, role: 'usable' });
    expect((await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'y' } })).status).toBe(403);
  });

  it('checks the role before validating the body: a view_only key sending an invalid body gets 403', async () => {
    const key = await g.key(await g.team(), 'view_only');
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { bogus: true } });
    expect(res.status).toBe(403);
  });

  it('authenticates before anything else: an unknown key gets 401 even for an invalid body', async () => {
    const res = await send(env, { method: 'POST', url: '/v1/brands', headers: { authorization: 'Bearer nope' }, body: { bogus: true } });
    expect(res.status).toBe(401);
  });
});

describe('brand role matrix (spec 4.2: reads for any role, writes for manage)', () => {
  const roles: Role[] = ['view_only', 'usable', 'editable', 'manage'];
  for (const role of roles) {
    const canWrite = role === 'manage';
    it(`${role}: list and get 200; create, update, delete ${canWrite ? 'allowed' : '403 forbidden with nothing changed'}`, async () => {
      const team = await g.team();
      const owner = await g.key(team, 'manage');
      const key = await g.key(team, role);
      const brand = await g.brand(owner, { name: 'Matrix' });
      expect((await send(env, { url: '/v1/brands', key: key.key })).status).toBe(200);
      expect((await send(env, { url: `/v1/brands/${brand.id}`, key: key.key })).status).toBe(200);
      const create = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'New' } });
      const update = await send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: key.key, body: { name: 'Renamed' } });
      const expected = canWrite ? [201, 200] : [403, 403];
      expect([create.status, update.status]).toEqual(expected);
      const del = await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: key.key });
      expect(del.status).toBe(canWrite ? 200 : 403);
      if (!canWrite) {
        for (const res of [create, update, del]) expect(res.body.code).toBe('forbidden');
        const list = await send(env, { url: '/v1/brands', key: owner.key });
        expect(list.body.data).toEqual([brand]);
      }
    });
  }

  it('revoked key: every brand operation gets 401 key_inactive', async () => {
    const team = await g.team();
    const owner = await g.key(team, 'manage');
    const brand = await g.brand(owner);
    const key = await g.key(team, 'manage');
    await env.core.access.revokeKey(env.core.operatorCtx(), { keyId: key.keyId });
    const results = await Promise.all([
      send(env, { url: '/v1/brands', key: key.key }),
      send(env, { url: `/v1/brands/${brand.id}`, key: key.key }),
      send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'x' } }),
      send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: key.key, body: { name: 'x' } }),
      send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: key.key }),
    ]);
    for (const res of results) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('key_inactive');
    }
    expect((await send(env, { url: `/v1/brands/${brand.id}`, key: owner.key })).body.data).toEqual(brand);
  });
});

describe('cross-team isolation of brands', () => {
  it("a key of team B gets 404 for every operation on team A's brand, which stays unchanged", async () => {
    const brandA = await g.brand(manager, { name: 'A only' });
    const keyB = await g.key(await g.team('B'), 'manage');
    const results = await Promise.all([
      send(env, { url: `/v1/brands/${brandA.id}`, key: keyB.key }),
      send(env, { method: 'PATCH', url: `/v1/brands/${brandA.id}`, key: keyB.key, body: { name: 'hijacked' } }),
      send(env, { method: 'DELETE', url: `/v1/brands/${brandA.id}`, key: keyB.key }),
    ]);
    for (const res of results) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await send(env, { url: `/v1/brands/${brandA.id}`, key: manager.key })).body.data).toEqual(brandA);
  });

  it("team B's list never shows team A's brands", async () => {
    await g.brand(manager, { name: 'Secret A' });
    const keyB = await g.key(await g.team('B2'), 'view_only');
    const list = await send(env, { url: '/v1/brands?pageSize=100', key: keyB.key });
    expect(list.body.data).toEqual([]);
    expect(list.body.pagination.totalCount).toBe(0);
  });
});
