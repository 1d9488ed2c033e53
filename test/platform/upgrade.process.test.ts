import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssetServer, startAssetServer } from '../support/approval-world.ts';
import { adminUrl, databaseUrlFor, redisUrl } from '../support/databases.ts';
import { FAST_RETRIES } from '../support/event-world.ts';
import { tempDir } from '../support/media-files.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/*
 * docs/operations.md "Upgrading": the previous release (the tag of schema/released/'s version, or
 * release 1.0.0's commit while untagged) fills a database and serves it, API and worker, under a
 * steady load while this tree's migrations apply; then this tree's API and worker start beside the
 * old ones, the load moves over, and the old ones drain and stop, as a rolling deploy does. No
 * request may fail with a 5xx, no old process may log an error, every webhook event is delivered
 * exactly once, every approval timer fires exactly once (one while the old release still runs,
 * the others after the switch), and every read answers the same after the switch.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
/** Release 1.0.0 (CHANGELOG.md), until it is tagged. */
const FIRST_RELEASE_COMMIT = 'b4297f14b4e2cf924bd77679ab4d0f8ba49f70ee';
const SECRET = 'upgrade-test-secret-upgrade-test-secret-0123';

/** The commit of the last release: its tag when there is one, else release 1.0.0's commit. */
async function previousRelease(): Promise<{ version: string; commit: string }> {
  const version: string = JSON.parse(readFileSync(join(ROOT, 'schema/released/openapi.json'), 'utf8')).info.version;
  try {
    const { stdout } = await exec('git', ['-C', ROOT, 'rev-parse', '--verify', '--quiet', `refs/tags/v${version}^{commit}`]);
    return { version, commit: stdout.trim() };
  } catch {
    if (version !== '1.0.0') throw new Error(`release ${version} has no tag v${version}: tag its commit (docs/releases.md "Cutting a release")`);
    return { version, commit: FIRST_RELEASE_COMMIT };
  }
}

/** The top-level packages a lock file installs, name@version. */
function lockedPackages(lockFile: string): Map<string, string> {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, { version?: string }> };
  return new Map(Object.entries(lock.packages).flatMap(([path, entry]) => (path && entry.version ? [[path, entry.version] as [string, string]] : [])));
}

/**
 * The previous release's tree, extracted from git (no work tree or branch is left behind), with
 * this tree's node_modules when they hold every package the old lock does at the same version,
 * else its own `npm ci`.
 */
async function checkOut(commit: string, into: string): Promise<void> {
  await exec('sh', ['-c', `git -C "${ROOT}" archive --format=tar "${commit}" | tar -x -C "${into}"`]);
  const current = lockedPackages(join(ROOT, 'package-lock.json'));
  const old = lockedPackages(join(into, 'package-lock.json'));
  const compatible = [...old].every(([path, version]) => current.get(path) === version);
  if (compatible) await symlink(join(ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
  else await exec('npm', ['ci', '--no-audit', '--no-fund'], { cwd: into, maxBuffer: 64 * 1024 * 1024 });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Shelf process of a tree (`src/main.mjs`), with what it logged. */
interface Shelf {
  name: string;
  child: ChildProcess;
  url: string | null;
  /** Its pino log lines, parsed. */
  lines(): Array<{ level: number; msg?: string; [key: string]: unknown }>;
  output(): string;
  /** SIGTERM, and the exit code once it has drained. */
  stop(): Promise<number | null>;
}

const processes: Shelf[] = [];
let env: Record<string, string>;

async function startShelf(name: string, tree: string, role: 'api' | 'worker'): Promise<Shelf> {
  const port = role === 'api' ? await freePort() : 0;
  const child = spawn(process.execPath, ['src/main.mjs'], {
    cwd: tree,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, ROLE: role, PORT: String(port), LOG_LEVEL: 'info' },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const shelf: Shelf = {
    name,
    child,
    url: role === 'api' ? `http://127.0.0.1:${port}` : null,
    lines: () =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
  };
  processes.push(shelf);
  const ready = role === 'api' ? 'shelf is serving' : 'shelf workers running';
  await expect
    .poll(
      () => {
        if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${output}`);
        return shelf.lines().some((l) => l.msg === ready);
      },
      { timeout: 100_000 },
    )
    .toBe(true);
  return shelf;
}

/** A CLI command of a tree, as the operator runs it; its one JSON object. */
async function cli(tree: string, ...args: string[]): Promise<any> {
  const { stdout } = await exec(process.execPath, ['src/cli/main.mjs', ...args], { cwd: tree, env: { ...process.env, ...env, LOG_LEVEL: 'silent' } });
  return JSON.parse(stdout);
}

async function call(base: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; etag: string | null; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, etag: res.headers.get('etag'), body: parsed };
}

/** What differs between two reads whatever the data: request ids, signed links' expiry and signature, the sync bound. */
function timeless(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/exp=\d+&sig=[\w-]+/, 'exp=*&sig=*');
  if (Array.isArray(value)) return value.map(timeless);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['requestId', 'traceId', 'syncedUntil', 'downloadUrlExpiresAt'].includes(key))
      .map(([key, v]) => [key, timeless(v)]),
  );
}

let dirs: Array<{ path: string; remove(): Promise<void> }> = [];
let oldTree: string;
let receiver: WebhookReceiver;
let assets: AssetServer;
let databaseName: string;
let db: pg.Client;
let release: { version: string; commit: string };

// what the old release made
let key: string;
let members: Record<'ann' | 'bob' | 'dan' | 'sub', string>;
let templateId: string;
let brandId: number;
let publishedId: number;
let draftId: number;
const tasks: string[] = [];

async function reads(base: string): Promise<Record<string, unknown>> {
  const get = async (path: string, method = 'GET', body?: unknown) => {
    const res = await call(base, method, path, key, body);
    return { status: res.status, etag: res.etag, body: timeless(res.body) };
  };
  return {
    brands: await get('/v1/brands'),
    brand: await get(`/v1/brands/${brandId}`),
    categories: await get(`/v1/categories?brandId=${brandId}`),
    templates: await get('/v1/product-info-templates'),
    published: await get(`/v1/products/${publishedId}`),
    draft: await get(`/v1/products/${draftId}`),
    products: await get('/v1/products'),
    sync: await get('/v1/products?sync=true'),
    search: await get('/open/search-assets', 'POST', { endPoint: 100 }),
    task: await get('/approval', 'POST', { service: 'taskStatusQuery', taskId: tasks[0] }),
  };
}

const createApproval = (base: string) =>
  call(base, 'POST', '/approval', key, {
    service: 'createApproval',
    templateId,
    createdBy: members.sub,
    assets: [{ url: `${assets.url}/bytes/${randomUUID()}` }],
  });

beforeAll(async () => {
  release = await previousRelease();
  dirs = [await tempDir('upgrade-old-tree'), await tempDir('upgrade-storage'), await tempDir('upgrade-files')];
  oldTree = dirs[0]!.path;
  await checkOut(release.commit, oldTree);
  receiver = await startReceiver();
  assets = await startAssetServer();
  databaseName = `shelf_upgrade_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  env = {
    DATABASE_URL: databaseUrlFor(databaseName),
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `shelf-test-${databaseName}`,
    STORAGE_DIR: dirs[1]!.path,
    OUTBOUND_ALLOW_HOSTS: `${receiver.hostPort},${assets.hostPort}`,
    WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
    RELAY_INTERVAL_MS: '50',
    LINK_SIGNING_SECRET: SECRET,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    APPROVAL_DOWNLOAD_TIMEOUT_MS: '10000',
  };
}, 300_000);

afterAll(async () => {
  for (const shelf of processes) if (shelf.child.exitCode === null && shelf.child.signalCode === null) shelf.child.kill('SIGKILL');
  await db?.end();
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`drop database if exists "${databaseName}" with (force)`);
  await admin.end();
  await receiver?.close();
  await assets?.close();
  for (const dir of dirs) await dir.remove();
});

describe('a rolling upgrade from the previous release (docs/operations.md "Upgrading")', () => {
  it('serves a steady load with no 5xx while the migrations apply and the processes are replaced; events once, timers once, reads equal', async () => {
    try {
      await rollingUpgrade();
    } catch (e) {
      // what each process said, and how it ended, for the failure's message
      const said = processes.map((p) => `--- ${p.name} (exit ${p.child.exitCode ?? p.child.signalCode ?? 'running'}):\n${p.output().slice(-3000)}`);
      (e as Error).message += `\n${said.join('\n')}`;
      throw e;
    }
  }, 600_000);
});

async function rollingUpgrade(): Promise<void> {
  {
    // the previous release: its API and worker (the API's start creates and migrates the database)
    const oldApi = await startShelf('old api', oldTree, 'api');
    const oldWorker = await startShelf('old worker', oldTree, 'worker');
    db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();

    // fill it with the old release's CLI and API: catalogue, library with versions and the bin,
    // subscriptions, approvals mid-flight with timers an hour away
    const team = (await cli(oldTree, 'team', 'create', '--name', 'Upgraded')).teamId as number;
    await cli(oldTree, 'team', 'enable-subscriptions', '--team', String(team));
    members = {} as typeof members;
    for (const name of ['ann', 'bob', 'dan', 'sub'] as const)
      members[name] = String((await cli(oldTree, 'member', 'add', '--team', String(team), '--name', name)).userId);
    key = (await cli(oldTree, 'key', 'create', '--team', String(team), '--role', 'manage')).key;
    const base = oldApi.url!;
    expect(
      (
        await call(base, 'POST', '/open/material-automation-subscribe', key, {
          callbackUrl: `${receiver.url}/m`,
          eventTypes: ['MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_VERSION_CHANGED', 'MATERIAL_DELETED'],
        })
      ).body.code,
    ).toBe('0');
    expect(
      (await call(base, 'POST', '/approval', key, { service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${receiver.url}/approvals` })).body.code,
    ).toBe('0');
    const files = dirs[2]!.path;
    const imported: number[] = [];
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) {
      await writeFile(join(files, name), `upgrade ${name}\n`);
      imported.push((await cli(oldTree, 'asset', 'import', '--team', String(team), '--file', join(files, name), '--folder', '/upgrade')).id);
    }
    await cli(oldTree, 'asset', 'version', 'add', '--user', members.ann, '--file', String(imported[0]), '--version', String(imported[1]));
    await cli(oldTree, 'asset', 'delete', '--user', members.ann, '--file', String(imported[3]));
    brandId = (await call(base, 'POST', '/v1/brands', key, { name: 'Upgraded brand' })).body.data.id;
    expect((await call(base, 'POST', '/v1/categories', key, { brandId, name: 'Upgraded category' })).status).toBe(201);
    expect((await call(base, 'POST', '/v1/product-info-templates', key, { name: 'Upgraded template', groups: [{ name: 'Basics', fields: [] }] })).status).toBe(
      201,
    );
    publishedId = (await call(base, 'POST', '/v1/products', key, { name: 'Published', brandId, imageAssetIds: [imported[2]] })).body.data.id;
    expect((await call(base, 'POST', `/v1/products/${publishedId}/publish`, key)).status).toBe(200);
    draftId = (await call(base, 'POST', '/v1/products', key, { name: 'Draft', brandId })).body.data.id;
    const workflow = join(files, 'workflow.json');
    await writeFile(
      workflow,
      JSON.stringify({
        name: 'Upgrade review',
        workflow: {
          nodes: [
            { name: 'First', signMode: 'and', approvers: [members.ann], timeout: { hours: 1, transferTo: members.dan } },
            { name: 'Second', signMode: 'or', approvers: [members.bob] },
          ],
        },
      }),
    );
    templateId = (await cli(oldTree, 'approval-template', 'create', '--team', String(team), '--file', workflow)).id;
    for (let i = 0; i < 2; i++) {
      const created = await createApproval(base);
      expect(created.body.code).toBe('0');
      tasks.push(created.body.result.taskId);
    }

    // the load balancer: the APIs in rotation; a steady load of reads and approvals (which write
    // callback events and arm timers) until stopped
    const rotation: Shelf[] = [oldApi];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let served = 0;
    /** The slowest answer while the migrations ran, and overall (ms): a migration holding a lock the old code waits on shows here. */
    const slowest = { migration: 0, overall: 0 };
    let migrating = false;
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const api = rotation[(n + i) % rotation.length]!;
        try {
          const started = performance.now();
          const res =
            i % 25 === 24
              ? await createApproval(api.url!)
              : i % 3 === 0
                ? await call(api.url!, 'GET', `/v1/products/${publishedId}`, key)
                : i % 3 === 1
                  ? await call(api.url!, 'GET', '/v1/brands', key)
                  : await call(api.url!, 'POST', '/open/search-assets', key, { endPoint: 100 });
          const took = performance.now() - started;
          slowest.overall = Math.max(slowest.overall, took);
          if (migrating) slowest.migration = Math.max(slowest.migration, took);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (i % 25 === 24) {
            if (res.body?.code === '0') tasks.push(res.body.result.taskId);
            else failures.push(`${api.name}: createApproval answered ${JSON.stringify(res.body)}`);
          }
          served++;
        } catch (e) {
          failures.push(`${api.name}: ${(e as Error).message}`);
        }
        // a steady load, not a flood: about 40 requests a second from each client
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    const load = [client(0), client(1)];
    await expect.poll(() => served).toBeGreaterThan(20);
    // the sync feed shows products once they are 30 s old: the catalogue's writes are moved an
    // hour back (as test/support/sync-clock.ts settles a step), so every read sees them
    for (const column of ['updated_at', 'created_at', 'published_at']) {
      await db.query(`update products set ${column} = ${column} - interval '1 hour' where team_id = $1 and ${column} is not null`, [team]);
    }
    await db.query(`update product_changes set at = at - interval '1 hour' where team_id = $1`, [team]);
    await db.query(`update api_key_role_changes set at = at - interval '1 hour' where team_id = $1`, [team]);
    const beforeMigration = await reads(base);
    expect((beforeMigration.sync as { body: { data: unknown[] } }).body.data).toHaveLength(2);

    // this tree's migrations, while the old release serves; a timer falls due meanwhile and the
    // old worker fires it
    const servedBeforeMigration = served;
    const migrationStarted = performance.now();
    migrating = true;
    const { stdout } = await exec(process.execPath, ['src/migrate.ts', 'up'], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'silent' } });
    const migrationMs = performance.now() - migrationStarted;
    migrating = false;
    const applied: string[] = JSON.parse(stdout.trim().split('\n').at(-1)!).applied;
    await db.query(`update approval_tasks set timeout_at = now() - interval '1 second' where id = $1`, [tasks[0]]);
    const timeouts = async (taskId: string) =>
      (
        await db.query(
          `select count(*)::int as n from outbox_events where event_type = 'APPROVAL' and ordering_key = $1 and body->'payload'->>'eventName' = 'NODE_TIMEOUT'`,
          [`task:${taskId}`],
        )
      ).rows[0].n as number;
    await expect.poll(() => timeouts(tasks[0]!)).toBe(1);
    const servedDuringMigration = served - servedBeforeMigration;
    // the migrations changed no answer of the old release (the timer changed the task's status)
    const before = await reads(base);
    expect({ ...before, task: null }).toEqual({ ...beforeMigration, task: null });

    // the switch: this tree's API and worker start beside the old ones, then the old ones leave
    // the rotation and drain
    const newApi = await startShelf('new api', ROOT, 'api');
    const newWorker = await startShelf('new worker', ROOT, 'worker');
    rotation.push(newApi);
    const servedBySwitch = served;
    await expect.poll(() => served).toBeGreaterThan(servedBySwitch + 10);
    rotation.splice(rotation.indexOf(oldApi), 1);
    expect(await oldApi.stop()).toBe(0);
    expect(await oldWorker.stop()).toBe(0);
    const receivedBySwitch = receiver.received.length;
    const tasksBySwitch = tasks.length;
    // the same answers from the new release
    expect(await reads(newApi.url!)).toEqual(before);
    const servedAfterSwitch = served;
    await expect.poll(() => served).toBeGreaterThan(servedAfterSwitch + 20);
    stop = true;
    await Promise.all(load);

    // every approval's timer, an hour away, falls due now: the new worker fires each once
    await db.query(`update approval_tasks set timeout_at = now() - interval '1 second' where id = any($1::uuid[]) and timeout_at is not null`, [tasks]);
    for (const taskId of tasks) await expect.poll(() => timeouts(taskId), { timeout: 60_000 }).toBe(1);

    // every event written is delivered, each once
    await expect
      .poll(async () => (await db.query(`select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`)).rows[0].n, { timeout: 60_000 })
      .toBe(0);
    const events = (await db.query(`select o.body->>'eventId' as id from webhook_deliveries d join outbox_events o on o.id = d.event_id`)).rows.map(
      (r) => r.id as string,
    );
    const received = receiver.received.map((r) => r.body?.eventId as string);
    expect(new Set(received).size, 'no event sent twice').toBe(received.length);
    expect([...new Set(received)].sort(), 'no event lost').toEqual([...events].sort());

    expect(failures).toEqual([]);
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    for (const shelf of [oldApi, oldWorker, newApi, newWorker]) {
      expect(
        shelf.lines().filter((l) => l.level >= 50),
        `${shelf.name} logged errors`,
      ).toEqual([]);
    }
    await newApi.stop();
    await newWorker.stop();
    console.info(
      `upgrade figures: ${JSON.stringify({
        from: release,
        migrationsApplied: applied,
        migrationMs: Math.round(migrationMs),
        requests: served,
        servedDuringMigration,
        statuses: Object.fromEntries(statuses),
        slowestMs: { migration: Math.round(slowest.migration), overall: Math.round(slowest.overall) },
        events: events.length,
        receivedBeforeOldStopped: receivedBySwitch,
        received: received.length,
        timers: tasks.length,
        timersArmedByOldStop: tasksBySwitch,
        timersFiredByOldWorker: 1,
      })}`,
    );
  }
}
