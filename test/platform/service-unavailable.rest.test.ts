import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type Core, createCore } from '../../src/core/core.ts';
import { ensureDatabase, migrateUp, openOrm } from '../../src/db/orm.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { publicUrls } from '../../src/public-urls.ts';
import { Queues } from '../../src/queues.ts';
import { buildApp } from '../../src/rest/app.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl } from '../support/databases.ts';
import { type PrivatePostgres, privatePostgres } from '../support/private-postgres.ts';

let pg: PrivatePostgres;
let orm: MikroORM;
let core: Core;
let queues: Queues;
let app: FastifyInstance;
let key: string;
let databaseUrl: string;

beforeAll(async () => {
  pg = await privatePostgres();
  databaseUrl = pg.url('shelf');
  await ensureDatabase(databaseUrl);
  orm = await openOrm({ databaseUrl, poolMax: 4 });
  await migrateUp(orm);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    LINK_SIGNING_SECRET: 'test-secret-test-secret-test-secret-0123',
    QUEUE_PREFIX: `shelf-test-unavailable-${process.pid}`,
    LOG_LEVEL: 'silent',
  });
  core = createCore(orm, config, publicUrls(config.publicBaseUrl));
  queues = new Queues(config);
  app = await buildApp({ core, queues, metrics: createMetrics({ orm, queues: () => queues.all() }) });
  await app.ready();
  const { teamId } = await core.access.createTeam(core.operatorCtx(), { name: 'T' });
  key = (await core.access.createKey(core.operatorCtx(), { teamId, role: 'manage' })).key;
}, 120_000);
afterAll(async () => {
  await app.close();
  await queues.close();
  await orm.close().catch(() => undefined);
  await pg.remove();
});

const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    payload: body ? JSON.stringify(body) : undefined,
  });

describe('PostgreSQL unreachable: 503 service_unavailable with Retry-After in every envelope', () => {
  it('serves normally while the database is up', async () => {
    expect((await call('GET', '/v1/brands')).statusCode).toBe(200);
  });

  it('answers each area with 503, Retry-After and its envelope while the database is stopped, then recovers', async () => {
    await pg.stop();
    const v1 = await call('GET', '/v1/brands');
    expect(v1.statusCode).toBe(503);
    expect(v1.headers['retry-after']).toBe('5');
    expect(v1.json()).toMatchObject({ success: false, data: null, code: 'service_unavailable' });
    const open = await call('POST', '/open/search-assets', {});
    expect(open.statusCode).toBe(503);
    expect(open.json()).toMatchObject({ code: 'service_unavailable', result: null });
    const approval = await call('POST', '/approval', { service: 'listTemplates' });
    expect(approval.statusCode).toBe(503);
    expect(approval.json()).toMatchObject({ code: 'service_unavailable', result: null });
    const gql = await call('POST', '/graphql', { query: '{ brands { items { id } } }' });
    expect(gql.statusCode).toBe(503);
    expect(gql.json().errors[0].extensions.code).toBe('service_unavailable');
    await pg.start();
    await expect.poll(async () => (await call('GET', '/v1/brands')).statusCode).toBe(200);
  }, 60_000);
});

/** Polls until a read answers again after the private cluster restarted. */
async function expectRecovered(): Promise<void> {
  await expect.poll(async () => (await call('GET', '/v1/brands')).statusCode, { timeout: 30_000, interval: 100 }).toBe(200);
}

describe('PostgreSQL unreachable: every read maps database errors the same way, beyond the API envelopes', () => {
  it('shows the share page /s/:token as its 503 page with Retry-After, not the 500 page, and recovers', async () => {
    // a well-formed token, so the page reaches the database to look it up
    const url = `/s/${'a'.repeat(43)}`;
    expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
    await pg.stop();
    try {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(503);
      expect(page.headers['retry-after']).toBe('5');
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('Temporarily unavailable');
      expect(page.body).not.toContain('Something went wrong');
    } finally {
      await pg.start();
    }
    await expectRecovered();
    expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
  }, 60_000);

  it('answers a CLI command with {"error":{"code":"service_unavailable"}} and a non-zero exit, and changes nothing', async () => {
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LINK_SIGNING_SECRET: 'test-secret-test-secret-test-secret-0123' };
    const before = await runCli(['team', 'create', '--name', 'Up'], env);
    expect(before.json).toMatchObject({ teamId: expect.any(Number) });
    await pg.stop();
    try {
      const down = await runCli(['team', 'create', '--name', 'Down'], env);
      expect(down.code).not.toBe(0);
      expect(down.json).toMatchObject({ error: { code: 'service_unavailable' } });
    } finally {
      await pg.start();
    }
    await expectRecovered();
    const teams = await orm.em.fork().execute<{ name: string }[]>('select name from teams order by id');
    expect(teams.map((t) => t.name)).toEqual(['T', 'Up']);
  }, 90_000);
});
