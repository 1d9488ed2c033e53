import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/platform/errors.ts';
import { buildApp } from '../../src/rest/app.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let manager: GivenKey;
/** A second app of the same core with two extra routes that fail on purpose, to test the error mapping. */
let failing: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnv();
  manager = await given(env).key(await given(env).team(), 'manage');
  failing = await buildApp({ core: env.core, queues: env.queues, metrics: env.metrics });
  failing.get('/v1-test/conflict', async () => {
    throw new DomainError('write_conflict', 'conflict');
  });
  failing.get('/v1-test/crash', async () => {
    throw new Error('database password=hunter2 at /srv/secret.ts:12');
  });
  await failing.ready();
});
afterAll(async () => {
  await failing.close();
  await env.close();
});

async function brandCount(): Promise<number> {
  const rows = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from brands');
  return Number(rows[0]!.n);
}

describe('X-Request-Id and Cache-Control on every response', () => {
  const cases: Array<[string, () => Promise<{ status: number; headers: Record<string, string | undefined>; body: any }>]> = [
    ['a successful read', () => send(env, { url: '/v1/brands', key: manager.key })],
    ['a 401', () => send(env, { url: '/v1/brands' })],
    ['a 404 for an unknown route', () => send(env, { url: '/v1/unknown', key: manager.key })],
    ['a 422', () => send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: {} })],
    ['the health check', () => send(env, { url: '/healthz' })],
    ['the OpenAPI document', () => send(env, { url: '/v1/openapi.json' })],
  ];
  for (const [label, request] of cases) {
    it(`sets both headers on ${label}`, async () => {
      const res = await request();
      expect(res.headers['x-request-id']).toMatch(/^[\w.:-]+$/);
      expect(res.headers['cache-control']).toBe('no-store');
      if (res.body?.requestId !== undefined) expect(res.body.requestId).toBe(res.headers['x-request-id']);
    });
  }

  it("keeps a client's sane X-Request-Id and replaces an unusable one", async () => {
    const kept = await send(env, { url: '/v1/brands', key: manager.key, headers: { 'x-request-id': 'client-123' } });
    expect(kept.headers['x-request-id']).toBe('client-123');
    expect(kept.body.requestId).toBe('client-123');
    const replaced = await send(env, { url: '/v1/brands', key: manager.key, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
  });
});

describe('unknown routes', () => {
  it('answers 404 not_found in the envelope, with or without a key', async () => {
    for (const key of [manager.key, null]) {
      const res = await send(env, { method: 'POST', url: '/v1/nothing-here', key, body: {} });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'not_found' });
    }
  });
});

describe('the 1 MiB body limit on every request (spec 8)', () => {
  const big = JSON.stringify({ name: 'x', description: 'd'.repeat(1_048_576) });

  it('refuses a POST body over 1 MiB with 413 payload_too_large and writes nothing', async () => {
    const before = await brandCount();
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, code: 'payload_too_large' });
    expect(await brandCount()).toBe(before);
  });

  it('refuses a GET with a body over 1 MiB with 413', async () => {
    const res = await send(env, { method: 'GET', url: '/v1/brands', key: manager.key, rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('refuses a chunked GET body over 1 MiB (no Content-Length) with 413', async () => {
    const chunks = (async function* () {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(65_536, 97);
    })();
    const res = await env.app.inject({
      method: 'GET',
      url: '/v1/brands',
      headers: { authorization: `Bearer ${manager.key}`, 'transfer-encoding': 'chunked' },
      payload: (await import('node:stream')).Readable.from(chunks),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
  });

  it('accepts a GET with a small body and ignores it', async () => {
    const res = await send(env, { method: 'GET', url: '/v1/brands', key: manager.key, rawBody: '{"x":1}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
  });
});

describe('error mapping', () => {
  it('maps write_conflict to 503 with Retry-After: 1', async () => {
    const res = await failing.inject({ method: 'GET', url: '/v1-test/conflict' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ success: false, code: 'write_conflict' });
  });

  it('maps an unexpected error to 500 internal_server_error without leaking its message, stack or paths', async () => {
    const res = await failing.inject({ method: 'GET', url: '/v1-test/crash' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ success: false, data: null, code: 'internal_server_error', message: 'Internal server error' });
    expect(res.body).not.toMatch(/hunter2|secret|\.ts|at /);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});
