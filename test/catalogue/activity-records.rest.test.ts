import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';

let env: TestEnv;
let manager: GivenKey;
let editor: GivenKey;
let stranger: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  const team = await given(env).team('Activity');
  manager = await given(env).key(team, 'manage');
  editor = await given(env).key(team, 'editable');
  stranger = await given(env).key(await given(env).team('Other'), 'manage');
});
afterAll(() => env.close());

const records = (query = '', key: GivenKey = manager) => send(env, { url: `/v1/activity-records${query}`, key: key.key });

describe('GET /v1/activity-records', () => {
  it('logs every catalogue write with resource, action, actor, key, role and request id, newest first', async () => {
    const brand = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: manager.key,
      body: { name: 'Logged' },
      headers: { 'x-request-id': 'req-brand-1' },
    });
    await send(env, { method: 'PATCH', url: `/v1/brands/${brand.body.data.id}`, key: manager.key, body: { description: 'x' } });
    const category = await send(env, { method: 'POST', url: '/v1/categories', key: manager.key, body: { brandId: brand.body.data.id, name: 'Cat' } });
    const product = await send(env, { method: 'POST', url: '/v1/products', key: editor.key, body: { name: 'P' } });
    await send(env, { method: 'DELETE', url: `/v1/categories/${category.body.data.id}`, key: manager.key });
    const res = await records();
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.body.data.map((r: { resourceType: string; action: string }) => `${r.resourceType}:${r.action}`)).toEqual([
      'category:deleted',
      'product:created',
      'category:created',
      'brand:updated',
      'brand:created',
    ]);
    expect(res.body.data[1]).toMatchObject({ resourceId: String(product.body.data.id), actor: `key:${editor.keyId}`, keyId: editor.keyId, role: 'editable' });
    expect(res.body.data[4]).toMatchObject({ resourceId: String(brand.body.data.id), requestId: 'req-brand-1', at: expect.stringMatching(/\.\d{6}Z$/) });
  });

  it('filters by resource type and id, by key, and by time', async () => {
    expect((await records('?resourceType=brand')).body.data.map((r: { action: string }) => r.action)).toEqual(['updated', 'created']);
    expect((await records(`?actorKeyId=${editor.keyId}`)).body.data.map((r: { resourceType: string }) => r.resourceType)).toEqual(['product']);
    expect((await records('?to=2000-01-01T00:00:00Z')).body.data).toEqual([]);
    const res = await records('?resourceType=spaceship');
    expect(res).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'resourceType' }] } });
  });

  it('writes no record for a refused write', async () => {
    const before = (await records()).body.pagination.totalCount;
    expect((await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: '' } })).status).toBe(422);
    expect((await records()).body.pagination.totalCount).toBe(before);
  });

  it('refuses a key below manage with 403, and shows another team nothing', async () => {
    expect((await records('', editor)).status).toBe(403);
    expect((await records('', stranger)).body.data).toEqual([]);
  });

  it('purges records older than a date (manage only), recording the purge itself', async () => {
    expect((await send(env, { method: 'POST', url: '/v1/activity-records/purge', key: editor.key, body: { before: '2999-01-01T00:00:00Z' } })).status).toBe(
      403,
    );
    const res = await send(env, { method: 'POST', url: '/v1/activity-records/purge', key: manager.key, body: { before: '2999-01-01T00:00:00Z' } });
    expect(res.status).toBe(200);
    expect(res.body.data.purged).toBeGreaterThanOrEqual(5);
    expect((await records()).body.data).toEqual([
      expect.objectContaining({ resourceType: 'activity_records', action: 'purged', resourceId: '2999-01-01T00:00:00Z' }),
    ]);
  });

  it('is exposed through GraphQL with product history', async () => {
    const product = await send(env, { method: 'POST', url: '/v1/products', key: editor.key, body: { name: 'G' } });
    const res = await graphql(
      env,
      manager.key,
      'query($id: Int!) { activityRecords(resourceType: PRODUCT) { items { action resourceId resourceType role } } productHistory(id: $id) { items { action changes } } }',
      { id: product.body.data.id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.activityRecords.items[0]).toEqual({
      action: 'CREATED',
      resourceId: String(product.body.data.id),
      resourceType: 'PRODUCT',
      role: 'EDITABLE',
    });
    expect(res.body.data.productHistory.items[0].action).toBe('CREATED');
  });
});
