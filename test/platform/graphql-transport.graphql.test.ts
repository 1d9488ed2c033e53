import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';

let env: TestEnv;
let port: number;
let key: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  const g = given(env);
  key = await g.key(await g.team('Transport'), 'manage');
  for (let i = 0; i < 30; i++) await g.brand(key, { name: `Brand ${i} ${'x'.repeat(40)}` });
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  port = (env.app.server.address() as AddressInfo).port;
});
afterAll(() => env.close());

/** POSTs a body to /graphql in chunks, without Content-Length (Transfer-Encoding: chunked). */
function postChunked(chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` } },
      (res) => {
        const received: Buffer[] = [];
        res.on('data', (c: Buffer) => received.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(received).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** POSTs to /graphql over a real socket and returns the status, headers and body as sent. */
function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('a GraphQL answer is one body with its length, as a REST answer', () => {
  it('sends a result with Content-Length (not chunked), its content type and the whole JSON', async () => {
    const res = await post({ query: '{ brands(pageSize: 30) { items { id name } pagination { totalCount } } }' });
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const parsed = JSON.parse(res.body);
    expect(parsed.data.brands.items).toHaveLength(30);
    expect(parsed.data.brands.pagination.totalCount).toBe(30);
  });

  it('sends an error answer the same way, with its status and code', async () => {
    const res = await post({ query: '{ brands { items { nope } } }' }, { accept: 'application/graphql-response+json' });
    expect(res.status).toBe(400);
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('validation_failed');
  });

  it('refuses a chunked body over 1 MiB without Content-Length with 413 payload_too_large (Fastify counts it, not yoga)', async () => {
    const before = await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from brands');
    const padding = 'x'.repeat(64 * 1024);
    const chunks = ['{"query":"{ brands { items { id } } }","extensions":{"pad":"', ...Array.from({ length: 17 }, () => padding), '"}}'];
    const res = await postChunked(chunks);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('payload_too_large');
    const after = await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from brands');
    expect(after).toEqual(before);
  });

  it('answers a chunked body within the limit as any other', async () => {
    const res = await postChunked(['{"query":"{ brands(pageSize: 2) ', '{ items { id } } }"}']);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.brands.items).toHaveLength(2);
  });
});

describe('a query yoga has validated before is answered on the fast path, exactly as yoga answers it', () => {
  const served = async (): Promise<Record<string, number>> => {
    const metric = await env.metrics.graphqlRequests.get();
    return Object.fromEntries(metric.values.map((v) => [String(v.labels.path), v.value]));
  };
  /** The same request twice: the first goes through yoga (it parses and validates the document), the second takes the fast path. */
  async function twice(body: unknown, headers: Record<string, string> = {}) {
    const before = await served();
    const first = await post(body, headers);
    const middle = await served();
    const second = await post(body, headers);
    const after = await served();
    const delta = (a: Record<string, number>, b: Record<string, number>) => ({ fast: (b.fast ?? 0) - (a.fast ?? 0), yoga: (b.yoga ?? 0) - (a.yoga ?? 0) });
    const comparable = (res: Awaited<ReturnType<typeof post>>) => {
      const { date: _d, 'x-request-id': _r, 'keep-alive': _k, ...rest } = res.headers;
      return { status: res.status, headers: rest, body: res.body };
    };
    return { first: comparable(first), second: comparable(second), paths: [delta(before, middle), delta(middle, after)] };
  }

  it('answers a successful query with the same status, headers and body as yoga', async () => {
    const query = `{ brands(pageSize: 7) { items { id name } pagination { totalCount } } } # ${Math.random()}`;
    const run = await twice({ query });
    expect(run.paths).toEqual([
      { fast: 0, yoga: 1 },
      { fast: 1, yoga: 0 },
    ]);
    expect(run.second).toEqual(run.first);
    expect(JSON.parse(run.second.body).data.brands.items).toHaveLength(7);
  });

  it('answers application/graphql-response+json, variables and an operation name as yoga does', async () => {
    const query = `query Few($n: Int) { brands(pageSize: $n) { items { id } } } query Other { brands { pagination { totalCount } } } # ${Math.random()}`;
    const run = await twice({ query, variables: { n: 3 }, operationName: 'Few' }, { accept: 'application/graphql-response+json' });
    expect(run.paths[1]).toEqual({ fast: 1, yoga: 0 });
    expect(run.second).toEqual(run.first);
    expect(run.second.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
  });

  it("answers a domain error with yoga's status, code and body (not_found)", async () => {
    const query = `query($id: Int!) { category(id: $id) { etag } } # ${Math.random()}`;
    const run = await twice({ query, variables: { id: 999_999 } });
    expect(run.paths[1]).toEqual({ fast: 1, yoga: 0 });
    expect(run.second).toEqual(run.first);
    expect(JSON.parse(run.second.body).errors[0].extensions.code).toBe('not_found');
  });

  it("checks the limits with each request's variables before anything runs: a larger page is refused as yoga refuses it", async () => {
    const query = `query($n: Int) { brands(pageSize: $n) { items { id name } } } # ${Math.random()}`;
    expect((await twice({ query, variables: { n: 5 } })).paths[1]).toEqual({ fast: 1, yoga: 0 });
    // the same document with variables over the cost limit: refused, by yoga, with its code
    const deep = `query($n: Int) { categories(pageSize: $n) { items { children { children { id } } } } } # ${Math.random()}`;
    const refused = await twice({ query: deep, variables: { n: 100 } });
    expect(refused.paths).toEqual([
      { fast: 0, yoga: 1 },
      { fast: 0, yoga: 1 },
    ]);
    expect(JSON.parse(refused.second.body).errors[0].extensions.code).toBe('query_too_complex');
  });

  it('leaves to yoga a bad key, an Origin, a batch, a mutation and a stream, which answer as before', async () => {
    const query = `{ brands(pageSize: 1) { items { id } } } # ${Math.random()}`;
    await post({ query });
    const before = await served();
    const badKey = await post({ query }, { authorization: 'Bearer nope' });
    expect(badKey.status).toBe(401);
    expect(JSON.parse(badKey.body).errors[0].extensions.code).toBe('invalid_credentials');
    const cors = await post({ query }, { origin: 'http://127.0.0.1:9' });
    expect(cors.status).toBe(200);
    expect(cors.headers['access-control-allow-origin']).toBeDefined();
    const batch = await post([{ query }]);
    expect(JSON.parse(batch.body).errors[0].extensions.code).toBe('validation_failed');
    const mutation = `mutation { createBrand(input: { name: "Fast ${Math.random()}" }) { brand { id } } }`;
    await post({ query: mutation.replace('Fast', 'Slow') });
    const created = await post({ query: mutation });
    expect(JSON.parse(created.body).data.createBrand.brand.id).toBeGreaterThan(0);
    const after = await served();
    expect((after.fast ?? 0) - (before.fast ?? 0)).toBe(0);
    expect((after.yoga ?? 0) - (before.yoga ?? 0)).toBe(5);
  });
});
