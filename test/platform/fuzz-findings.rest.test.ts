import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

/** What the long fuzz run (bench:fuzz, seed 7) found, each kept answered in its envelope. */
let env: TestEnv;
let key: GivenKey;
let port: number;

beforeAll(async () => {
  env = await createTestEnv();
  key = await given(env).key(await given(env).team('Findings'), 'manage');
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  port = (env.app.server.address() as AddressInfo).port;
});
afterAll(() => env.close());

const brands = async () => (await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from brands'))[0]!.n;

describe('numbers that are not finite', () => {
  it('refuses the path id "Infinity" with 422 naming id (Ajv coerced it to a number its integer check let through)', async () => {
    for (const url of ['/v1/products/Infinity', '/v1/brands/-Infinity', '/v1/products/Infinity/shares']) {
      const res = await send(env, { url, key: key.key });
      expect(res.status, url).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'id' }] });
    }
  });

  it('refuses 1e999 in a JSON body (JSON.parse makes it Infinity) with 422 naming the field, writing nothing', async () => {
    const before = await brands();
    const res = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: key.key,
      rawBody: '{"name":"x","sortOrder":1e999}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'sortOrder', message: expect.stringContaining('finite') }]);
    expect(await brands()).toBe(before);
  });
});

describe('large arrays', () => {
  it('answers a 100,000-item id list full of duplicates with 422 naming the list (its errors are listed from the first items only)', async () => {
    const product = await send(env, { method: 'POST', url: '/v1/products', key: key.key, body: { name: 'p' } });
    const ids = Array.from({ length: 100_000 }, (_, i) => (i % 2 ? i + 1 : 1));
    const res = await send(env, { method: 'PATCH', url: `/v1/products/${product.body.data.id}`, key: key.key, body: { imageAssetIds: ids } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'imageAssetIds', message: 'must not have more than 100 items' }]);
  });
});

describe('GraphQL over GET', () => {
  it('answers variables that are not JSON with 400 validation_failed, not 500', async () => {
    const query = encodeURIComponent('query Q { brands { items { id } } }');
    const res = await send(env, { url: `/graphql?query=${query}&variables=%7Bbad`, key: key.key });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
  });
});

describe('a malformed request line', () => {
  it('answers a method with a space on /open in the open envelope', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.on('data', (d: Buffer) => (data += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(data));
      socket.write('GE T /open/search-assets HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1.1 400/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'bad_request', result: null, traceId: expect.any(String) });
  });
});
