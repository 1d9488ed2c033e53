import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';

let env: TestEnv;
let key: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  const team = await given(env).team();
  key = await given(env).key(team, 'manage');
});
afterAll(() => env.close());

const brandCount = async () => (await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from brands'))[0]!.n;

describe('a NUL character (U+0000) is refused where each area validates input', () => {
  it('answers a /v1 body with 422 validation_failed naming the field, and stores nothing', async () => {
    const before = await brandCount();
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'a\u0000b' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'validation_failed', details: [{ field: 'name', message: expect.stringContaining('NUL') }] });
    expect(await brandCount()).toBe(before);
  });

  it('answers a /v1 PATCH the same way and leaves the brand as it was', async () => {
    const created = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'Plain' } });
    const res = await send(env, { method: 'PATCH', url: `/v1/brands/${created.body.data.id}`, key: key.key, body: { description: 'x\u0000' } });
    expect(res).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'description' }] } });
    expect((await send(env, { url: `/v1/brands/${created.body.data.id}`, key: key.key })).body.data.description).toBeNull();
  });

  it('answers a /v1 query string with 422 validation_failed naming the parameter', async () => {
    const res = await send(env, { url: '/v1/products?search=a%00b', key: key.key });
    expect(res).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'search' }] } });
  });

  it('answers /open with 400 in the open envelope', async () => {
    const res = await send(env, { method: 'POST', url: '/open/search-assets', key: key.key, body: { keywords: ['a\u0000'] } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'nul_character', result: null, details: [{ field: 'keywords[0]' }] });
  });

  it('answers GraphQL variables and literals with extensions.code validation_failed, creating nothing', async () => {
    const before = await brandCount();
    const variables = await graphql(env, key.key, 'mutation($n: String!) { createBrand(input: { name: $n }) { brand { id } } }', { n: 'a\u0000b' });
    expect(variables.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'variables.n' }] });
    const literal = await graphql(env, key.key, 'mutation { createBrand(input: { name: "a\u0000b" }) { brand { id } } }');
    expect(literal.body.errors[0].extensions.code).toBe('validation_failed');
    expect(await brandCount()).toBe(before);
  });
});
