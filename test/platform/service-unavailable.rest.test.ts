import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createCore, type Core } from '../../src/core/core.ts';
import { ensureDatabase, migrateUp, openOrm } from '../../src/db/orm.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { Queues } from '../../src/queues.ts';
import { buildApp } from '../../src/rest/app.ts';
import { redisUrl } from '../support/databases.ts';
import { privatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';

let pg: PrivatePostgres;
let orm: MikroORM;
let core: Core;
let queues: Queues;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  pg = await privatePostgres();
  const databaseUrl = pg.url('shelf');
  await ensureDatabase(databaseUrl);
  orm = await openOrm({ databaseUrl, poolMax: 4 });
  await migrateUp(orm);
  const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LINK_SIGNING_SECRET: 'test-secret-test-secret-test-secret-0123', QUEUE_PREFIX: `shelf-test-unavailable-${process.pid}`, LOG_LEVEL: 'silent' });
  core = createCore(orm, config);
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
  app.inject({ method, url, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined });

describe('PostgreSQL unreachable: 503 service_unavailable with Retry-After in every envelope (issue 12 item 7)', () => {
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
