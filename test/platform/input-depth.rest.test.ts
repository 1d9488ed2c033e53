import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH, refuseUnsafeInput } from '../../src/core/platform/json-input.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';

/*
 * Deeply nested JSON (3,000 levels fit in a 6 KB body, 100,000 in 200 KB) used to overflow the
 * stack of the recursive NUL check on every JSON route and in GraphQL variables. Nesting is now
 * bounded (MAX_INPUT_DEPTH) by an iterative walk, answered as each area's validation failure.
 */

let env: TestEnv;
let key: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  key = await given(env).key(await given(env).team('Deep'), 'manage');
});
afterAll(() => env.close());

/** A JSON text of `levels` nested arrays: `[[[...]]]`. */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** The same as a value, built without recursion. */
function nestedValue(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

const count = async (table: string) => (await env.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from ${table}`))[0]!.n;

describe('refuseUnsafeInput: the nesting bound', () => {
  it(`accepts ${MAX_INPUT_DEPTH} levels and refuses ${MAX_INPUT_DEPTH + 1}, naming where the limit was passed`, () => {
    expect(() => refuseUnsafeInput({ a: nestedValue(MAX_INPUT_DEPTH - 1) })).not.toThrow();
    expect(() => refuseUnsafeInput({ a: nestedValue(MAX_INPUT_DEPTH) })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        reason: 'nesting_too_deep',
        details: [{ field: `a${'[0]'.repeat(MAX_INPUT_DEPTH - 1)}`, message: expect.stringContaining('64 levels') }],
      }),
    );
  });

  it("walks 200,000 levels without recursion (it stops at the limit) and still names every NUL character (a key's by its object)", () => {
    expect(() => refuseUnsafeInput(nestedValue(200_000))).toThrow(expect.objectContaining({ reason: 'nesting_too_deep' }));
    expect(() => refuseUnsafeInput({ a: ['x', 'y\u0000'], 'k\u0000': { b: 'z\u0000' } }, 'variables')).toThrow(
      expect.objectContaining({
        reason: 'nul_character',
        details: [
          { field: 'variables', message: expect.any(String) },
          { field: 'variables.a[1]', message: expect.any(String) },
          { field: 'variables.k\u0000.b', message: expect.any(String) },
        ],
      }),
    );
  });
});

describe("a JSON body nested past 64 levels is each area's validation failure, and nothing is stored", () => {
  it.each([3_000, 100_000])('answers a /v1 body of %i levels with 422 validation_failed and creates no brand', async (levels) => {
    const before = await count('brands');
    const rawBody = `{"name":"Deep","description":${nested(levels)}}`;
    expect(rawBody.length).toBeLessThan(1_048_576);
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      success: false,
      code: 'validation_failed',
      requestId: res.headers['x-request-id'],
      details: [{ field: expect.stringMatching(/^description\[0\]/) }],
    });
    expect(await count('brands')).toBe(before);
  });

  it('answers /open with 400 nesting_too_deep in the open envelope', async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/open/search-assets',
      key: key.key,
      rawBody: `{"region":${nested(3_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'nesting_too_deep',
      result: null,
      traceId: res.headers['x-request-id'],
      details: [{ field: expect.stringMatching(/^region/) }],
    });
  });

  it('answers /approval with 400 invalid_payload:nesting_too_deep and creates no task', async () => {
    const before = await count('approval_tasks');
    const rawBody = `{"service":"createApproval","templateId":"t","createdBy":1,"assets":[],"sourceContext":${nested(100_000)}}`;
    const res = await send(env, { method: 'POST', url: '/approval', key: key.key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_payload:nesting_too_deep', result: null } });
    expect(await count('approval_tasks')).toBe(before);
  });

  it.each([3_000, 100_000])('answers GraphQL variables of %i levels with errors[] validation_failed and creates no brand', async (levels) => {
    const before = await count('brands');
    const rawBody = `{"query":"mutation($n: String!) { createBrand(input: { name: $n }) { brand { id } } }","variables":{"n":"Deep","extra":${nested(levels)}}}`;
    const res = await send(env, { method: 'POST', url: '/graphql', key: key.key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: expect.stringMatching(/^variables\.extra\[0\]/) }] });
    expect(res.body.data ?? null).toBeNull();
    expect(await count('brands')).toBe(before);
  });

  it('still takes a body at the limit (63 levels under a field)', async () => {
    const res = await send(env, { method: 'POST', url: '/open/search-assets', key: key.key, body: { region: null, extensions: ['png'] } });
    expect(res.status).toBe(200);
    expect(() => refuseUnsafeInput(JSON.parse(`{"region":${nested(MAX_INPUT_DEPTH - 1)}}`))).not.toThrow();
    const graph = await graphql(env, key.key, 'mutation($n: String!) { createBrand(input: { name: $n }) { brand { id } } }', {
      n: 'Shallow',
      extra: nestedValue(MAX_INPUT_DEPTH - 2),
    });
    expect(graph.body.errors).toBeUndefined();
  });
});
