import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey } from '../support/given.ts';

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
