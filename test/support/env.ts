import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Core, createCore } from '../../src/core/core.ts';
import { openOrm } from '../../src/db/orm.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { publicUrls } from '../../src/public-urls.ts';
import { Queues } from '../../src/queues.ts';
import { buildApp } from '../../src/rest/app.ts';
import { adminUrl, databaseUrlFor, redisUrl } from './databases.ts';

/** One test file's world: its own database cloned from the migrated template, its own Redis prefix. */
export interface TestEnv {
  config: Config;
  orm: MikroORM;
  core: Core;
  queues: Queues;
  metrics: Metrics;
  app: FastifyInstance;
  databaseName: string;
  close(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestEnv(overrides: Record<string, string> = {}): Promise<TestEnv> {
  const databaseName = `shelf_t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const template = inject('templateDatabase');
  await admin((c) => c.query(`create database "${databaseName}" template "${template}"`));
  return openTestEnv(databaseName, overrides);
}

/**
 * A test world over an existing database of this server (a restored backup, say), with a Redis
 * prefix of its own; `close()` drops the database, as for createTestEnv's.
 */
export async function openTestEnv(databaseName: string, overrides: Record<string, string> = {}): Promise<TestEnv> {
  const config = loadConfig({
    DATABASE_URL: databaseUrlFor(databaseName),
    REDIS_URL: redisUrl,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    LINK_SIGNING_SECRET: 'test-secret-test-secret-test-secret-0123',
    QUEUE_PREFIX: `shelf-test-${databaseName}`,
    LOG_LEVEL: 'silent',
    ...overrides,
  });
  const orm = await openOrm({ databaseUrl: config.databaseUrl, poolMax: 10 });
  const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
  // as src/main.mjs does before it listens
  await core.platform.attemptLimiter.connect();
  const queues = new Queues(config);
  const metrics = createMetrics({ orm, queues: () => queues.all(), outboxLagSeconds: () => core.events.deliveries.lagSeconds(core.operatorCtx()) });
  const app = await buildApp({ core, queues, metrics });
  await app.ready();
  return {
    config,
    orm,
    core,
    queues,
    metrics,
    app,
    databaseName,
    async close() {
      await app.close();
      await queues.close();
      await core.platform.attemptLimiter.close();
      await core.platform.outbound.close();
      await orm.close();
      await admin((c) => c.query(`drop database if exists "${databaseName}" with (force)`));
    },
  };
}
