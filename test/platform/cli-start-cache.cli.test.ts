import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnCli as runCli } from '../support/cli.ts';
import { adminUrl, databaseUrlFor } from '../support/databases.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

/*
 * How the operator CLI starts: its caches (src/start-cache.ts) live in Node's compile cache
 * directory, and a stale or broken resolution cache must cost speed only, never a run; the
 * migration check reads the migrations table and migrates only when something is pending.
 */

// every test starts the CLI as a process of its own: the caches are the process's
vi.setConfig({ testTimeout: SPAWNING_TEST_TIMEOUT_MS });

let directory: string;
const env = () => ({ NODE_COMPILE_CACHE: directory, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'shelf-cli-cache-'));
});
afterAll(async () => rm(directory, { recursive: true, force: true }));

async function resolutionCacheFile(): Promise<string> {
  for (const sub of await readdir(directory, { recursive: true })) if (/shelf-cli-resolve-.*\.json$/.test(sub)) return join(directory, sub);
  throw new Error('no resolution cache written');
}

describe('operator CLI start caches', () => {
  it('writes a resolution cache on the first run and answers the same from it on the next', async () => {
    const first = await runCli(['team', '--help'], env());
    const file = await resolutionCacheFile();
    expect(JSON.parse(await readFile(file, 'utf8')).entries).toEqual(expect.any(Object));
    const second = await runCli(['team', '--help'], env());
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
  });

  it('loads a native addon (sharp, for asset import) as well from the cache as without it', async () => {
    // no database listens: both runs get as far as connecting (refused: service_unavailable), after the command's modules loaded
    for (const run of [1, 2]) {
      const res = await runCli(['asset', 'import', '--team', '1', '--file', 'nowhere.png'], env());
      expect(res.json.error, `run ${run}`).toMatchObject({ code: 'service_unavailable' });
    }
  });

  it('resolves again an entry whose file is gone, and ignores a cache that is not JSON', async () => {
    const file = await resolutionCacheFile();
    const runTs = async () =>
      Object.values<Record<string, Record<string, [string, string]>>>(JSON.parse(await readFile(file, 'utf8')).entries)
        .map((byParent) => byParent['./src/cli/main.mjs']?.['./run.ts']?.[0])
        .filter(Boolean);
    const cache = JSON.parse(await readFile(file, 'utf8'));
    for (const byParent of Object.values<Record<string, Record<string, [string, string]>>>(cache.entries)) {
      const fromMain = byParent['./src/cli/main.mjs']?.['./run.ts'];
      if (fromMain) fromMain[0] = './src/cli/gone.ts';
    }
    await writeFile(file, JSON.stringify(cache));
    expect(await runTs()).toEqual(['./src/cli/gone.ts']);
    const stale = await runCli(['team', '--help'], env());
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('team create --name NAME');
    expect(await runTs()).toEqual(['./src/cli/run.ts']);
    await writeFile(file, '{"key": "half a fi');
    const broken = await runCli(['key', 'revoke'], env());
    expect(broken.code).toBe(1);
    expect(broken.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'key-id', message: 'is required' }] });
  });
});

describe('operator CLI migration check', () => {
  it('creates and migrates a database that does not exist yet, then runs the command; the next run finds nothing pending and never takes the migration lock', async () => {
    const name = `shelf_t_cli_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      const env = { DATABASE_URL: databaseUrlFor(name) };
      const first = await runCli(['team', 'create', '--name', 'Fresh'], env);
      expect(first.json).toEqual({ teamId: 1 });
      const applied = async () => {
        const db = new pg.Client({ connectionString: databaseUrlFor(name) });
        await db.connect();
        try {
          return (await db.query('select id, name, executed_at from mikro_orm_migrations order by id')).rows;
        } finally {
          await db.end();
        }
      };
      const migrations = await applied();
      expect(migrations.length).toBeGreaterThan(20);
      // the migrator runs under an advisory lock (src/db/orm.ts): held elsewhere, it would block the run
      const holder = new pg.Client({ connectionString: databaseUrlFor(name) });
      await holder.connect();
      try {
        await holder.query('select pg_advisory_lock(7424201)');
        const second = await runCli(['team', 'create', '--name', 'Again'], env);
        expect(second.json).toEqual({ teamId: 2 });
      } finally {
        await holder.end();
      }
      expect(await applied()).toEqual(migrations);
    } finally {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
