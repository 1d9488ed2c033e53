import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/rest/graphql-route.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';

let env: TestEnv;
let off: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
  off = await createTestEnv({ GRAPHIQL: 'off' });
});
afterAll(async () => {
  await env.close();
  await off.close();
});

/** Every URL a page's script, stylesheet, icon or image tags load. */
function loadedUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
}

const external = (url: string) => /^(https?:)?\/\//i.test(url);

describe('the GraphQL schema is public; its data is not', () => {
  const introspect = (authorization?: string, query = '{ __schema { queryType { name } } }') =>
    send(env, { method: 'POST', url: '/graphql', body: { query }, headers: authorization ? { authorization } : {} });

  it("answers an introspection-only query without a key, and with GraphiQL's placeholder key", async () => {
    for (const authorization of [undefined, 'Bearer <your API key>']) {
      const res = await introspect(authorization);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    }
    const viaFragment = await introspect(undefined, 'query Q { ...T __typename } fragment T on Query { __type(name: "Brand") { name } }');
    expect(viaFragment.body.data.__type).toEqual({ name: 'Brand' });
  });

  it('still refuses without a key any operation that reads data, also next to introspection, with invalid_credentials', async () => {
    for (const query of [
      '{ brands { items { id } } }',
      '{ __typename brands { items { id } } }',
      'query A { __typename } query B { brands { items { id } } }',
    ]) {
      const res = await send(env, { method: 'POST', url: '/graphql', body: { query, operationName: query.includes('query B') ? 'B' : undefined } });
      expect(res.body.errors?.[0]?.extensions?.code, query).toBe('invalid_credentials');
      expect(res.body.data ?? null).toBeNull();
    }
  });
});

describe('the API reference works on a machine that reaches nothing but Shelf', () => {
  it('serves GraphiQL on GET /graphql from a browser, loading nothing from another origin', async () => {
    const res = await send(env, { url: '/graphql', headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<title>Shelf GraphQL</title>');
    expect(loadedUrls(res.text).filter(external)).toEqual([]);
    expect(res.text).not.toMatch(/unpkg\.com|jsdelivr|githubusercontent/);
  });

  it('opens GraphiQL with a default query that runs as it is, once a key is in the headers', async () => {
    const team = await given(env).team();
    const key = await given(env).key(team, 'view_only');
    const res = await graphql(env, key.key, GRAPHIQL_DEFAULT_QUERY);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.brands.pagination.totalCount).toBe(0);
  });

  it('turns GraphiQL off with GRAPHIQL=off', async () => {
    const res = await send(off, { url: '/graphql', headers: { accept: 'text/html' } });
    expect(res.text).not.toContain('<title>Shelf GraphQL</title>');
  });

  it('serves /docs (Swagger UI) loading nothing from another origin', async () => {
    const res = await send(env, { url: '/docs/', headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const urls = loadedUrls(res.text);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter(external)).toEqual([]);
  });
});
