import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadSigningSecret } from '../../src/core/platform/settings.ts';
import { ensureDatabase, migrateUp, openOrm } from '../../src/db/orm.ts';
import { adminUrl, databaseUrlFor, redisUrl } from '../support/databases.ts';
import { SPAWNING_TEST_TIMEOUT_MS, until } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const created: string[] = [];

// every test starts Node processes of its own
vi.setConfig({ testTimeout: SPAWNING_TEST_TIMEOUT_MS });

afterAll(async () => {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  for (const name of created) await client.query(`drop database if exists "${name}" with (force)`);
  await client.end();
});

function freshDatabaseName(): string {
  const name = `shelf_s_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  created.push(name);
  return name;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startShelf(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['src/main.mjs'], { cwd: ROOT, env: { ...process.env, ...env } });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The first answer of `url`, once the process listens (its start takes tens of seconds on a busy two-core machine). */
async function waitFor(url: string): Promise<Response> {
  return until(
    () => fetch(url).catch(() => null),
    (res) => res !== null,
    { timeout: SPAWNING_TEST_TIMEOUT_MS - 10_000 },
  ) as Promise<Response>;
}

describe('start-up: database creation and migrations', () => {
  it('creates a missing database, and two processes migrating at once apply each migration exactly once', async () => {
    const url = databaseUrlFor(freshDatabaseName());
    await Promise.all([ensureDatabase(url), ensureDatabase(url)]);
    const [a, b] = await Promise.all([openOrm({ databaseUrl: url, poolMax: 2 }), openOrm({ databaseUrl: url, poolMax: 2 })]);
    try {
      const [appliedA, appliedB] = await Promise.all([migrateUp(a), migrateUp(b)]);
      const all = [...appliedA, ...appliedB];
      expect(all.length).toBeGreaterThan(0);
      expect(new Set(all).size).toBe(all.length);
      expect(await migrateUp(a)).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('generates the link-signing secret once and keeps it in the database', async () => {
    const url = databaseUrlFor(freshDatabaseName());
    await ensureDatabase(url);
    const orm = await openOrm({ databaseUrl: url, poolMax: 2 });
    try {
      await migrateUp(orm);
      const first = await loadSigningSecret({ em: orm.em.fork() }, null);
      const second = await loadSigningSecret({ em: orm.em.fork() }, null);
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(second).toBe(first);
      expect(await loadSigningSecret({ em: orm.em.fork() }, 'configured-secret-configured-secret')).toBe('configured-secret-configured-secret');
    } finally {
      await orm.close();
    }
  });
});

describe('the service process (npm start / ROLE)', () => {
  it('serves health, readiness and metrics, logs JSON lines with the request id, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const shelf = startShelf({
      PORT: String(port),
      DATABASE_URL: databaseUrlFor(freshDatabaseName()),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `shelf-start-${port}`,
      LOG_LEVEL: 'info',
    });
    try {
      const health = await waitFor(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', postgres: 'ok', redis: 'ok' });
      await fetch(`http://127.0.0.1:${port}/v1/brands`, { headers: { 'x-request-id': 'trace-me-42' } });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/shelf_http_request_duration_seconds_count\{method="GET",route="\/v1\/brands",status="401"\} 1/);
      expect(metrics).toMatch(/shelf_db_pool_connections\{state="total"\}/);
      expect(metrics).toMatch(/shelf_queue_jobs\{queue="maintenance",state="waiting"\}/);
      const logLine = shelf
        .output()
        .split('\n')
        .find((line) => line.includes('trace-me-42'));
      expect(JSON.parse(logLine!).reqId).toBe('trace-me-42');
    } finally {
      shelf.child.kill('SIGTERM');
    }
    expect(await shelf.exited, `exit code; the process said:\n${shelf.output()}`).toBe(0);
    expect(shelf.output()).toContain('stopped');
  });

  it('reports not ready (503) when Redis does not answer', async () => {
    const port = await freePort();
    const deadRedis = await freePort();
    const shelf = startShelf({
      ROLE: 'api',
      PORT: String(port),
      DATABASE_URL: databaseUrlFor(freshDatabaseName()),
      REDIS_URL: `redis://127.0.0.1:${deadRedis}`,
      LOG_LEVEL: 'silent',
    });
    try {
      await waitFor(`http://127.0.0.1:${port}/healthz`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'not_ready', postgres: 'ok', redis: 'down' });
    } finally {
      shelf.child.kill('SIGTERM');
    }
    expect(await shelf.exited, `exit code; the process said:\n${shelf.output()}`).toBe(0);
  });

  it('ROLE=worker runs the workers without an HTTP server', async () => {
    const port = await freePort();
    const shelf = startShelf({
      ROLE: 'worker',
      PORT: String(port),
      DATABASE_URL: databaseUrlFor(freshDatabaseName()),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `shelf-worker-${port}`,
      LOG_LEVEL: 'info',
    });
    await expect.poll(shelf.output, { timeout: SPAWNING_TEST_TIMEOUT_MS - 10_000 }).toContain('workers running');
    // nothing of Shelf listens (a refused connection), so the fetch fails
    await expect(fetch(`http://127.0.0.1:${port}/healthz`), shelf.output()).rejects.toThrow();
    shelf.child.kill('SIGTERM');
    expect(await shelf.exited, `exit code; the process said:\n${shelf.output()}`).toBe(0);
  });

  it('stops with a message naming the variable when a setting is wrong', async () => {
    const shelf = startShelf({ PORT: 'not-a-port' });
    expect(await shelf.exited).not.toBe(0);
    expect(shelf.output()).toContain('PORT');
  });
});
