import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskStorage } from '../../src/core/assets/storage/storage.ts';
import { type RunningWorkers, startWorkers } from '../../workers/index.ts';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { adminUrl, databaseUrlFor } from '../support/databases.ts';
import { openTestEnv, type TestEnv } from '../support/env.ts';
import { FAST_RETRIES } from '../support/event-world.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { givenProducts } from '../support/given-products.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { type Received, send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { checkStorage } from '../support/storage-check.ts';
import { syncClock, unsigned } from '../support/sync-clock.ts';

/*
 * docs/operations.md "Backups", done the way the page says while writes go on: pg_dump, then the
 * stored bytes copied after the dump; restored into a fresh database and storage directory; the
 * restored Shelf then answers the reads the original answered at the dump's time, its storage
 * check finds every object a row names, and the webhooks and approval timer pending at the dump
 * resume on a fresh Redis.
 */

const exec = promisify(execFile);

/** A PostgreSQL client program: the newest installed under /usr/lib/postgresql, else the one on PATH. */
function pgProgram(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', name))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin', name) : name;
}

async function run(program: string, args: string[], alsoSuccess: number[] = []): Promise<number> {
  const started = performance.now();
  try {
    await exec(program, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (e) {
    if (!alsoSuccess.includes((e as { code?: number }).code ?? -1)) throw e;
  }
  return performance.now() - started;
}

/**
 * rsync of a storage directory that is being written: temporary files (`*.tmp`, renamed into
 * place when complete) and incoming downloads are left out, and exit code 24 (a file vanished
 * between listing and copying: a temporary file renamed, an object purged) is success, as the page says.
 */
const copyStorage = (from: string, to: string) => run('rsync', ['-a', '--exclude=/incoming/', '--exclude=*.tmp', `${from}/`, `${to}/`], [24]);

/**
 * The page's backup: the database dump first, then the bytes (docs/operations.md "Backups").
 * `afterDump` runs between the two (the test waits there for a write that lands after the dump).
 */
async function backup(
  databaseUrl: string,
  storageDir: string,
  into: string,
  afterDump: (dumpEnded: number) => Promise<void>,
): Promise<{ dumpStarted: number; dumpEnded: number; copyMs: number }> {
  const dumpStarted = performance.now();
  await run(pgProgram('pg_dump'), ['--format=custom', `--file=${join(into, 'shelf.dump')}`, databaseUrl]);
  const dumpEnded = performance.now();
  await afterDump(dumpEnded);
  const copyMs = await copyStorage(storageDir, join(into, 'files'));
  return { dumpStarted, dumpEnded, copyMs };
}

/** The page's restore: a new database from template0, the dump into it, the bytes into a new storage directory. */
async function restore(from: string, databaseName: string, storageDir: string): Promise<{ databaseMs: number; filesMs: number }> {
  const created = await run(pgProgram('createdb'), ['--template=template0', `--maintenance-db=${adminUrl()}`, databaseName]);
  const restored = await run(pgProgram('pg_restore'), ['--no-owner', '--exit-on-error', `--dbname=${databaseUrlFor(databaseName)}`, join(from, 'shelf.dump')]);
  const filesMs = await copyStorage(join(from, 'files'), storageDir);
  return { databaseMs: created + restored, filesMs };
}

let world: ApprovalWorld;
let original: TestEnv;
let restored: TestEnv;
let restoredWorkers: RunningWorkers | null = null;
const dirs: Array<{ path: string; remove(): Promise<void> }> = [];
let files: string;
let originalStorage: string;
let restoredStorage: string;
let backupDir: string;

// the catalogue, library and approval of the team whose reads are compared
let key: GivenKey;
let brandId: number;
let publishedId: number;
let draftId: number;
let taskId: string;
let timeoutAt: string;

/** A second team written to while the backup runs: one brand, then one file, and so on, one at a time. */
let writer: GivenTeam;
let writerKey: GivenKey;
const written = { brands: [] as Array<{ n: number; at: number }>, files: [] as Array<{ n: number; at: number }> };
let writing: Promise<void> | null = null;
let stopWriting = false;

let atDump: Record<string, unknown>;
let figures: Record<string, number> = {};

/**
 * A body without what differs on every read whatever the data: request ids, the expiry and
 * signature of signed links (exp=..&sig=..), and the sync feed's `syncedUntil` (the read's time).
 */
function timeless(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/exp=\d+&sig=[\w-]+/, 'exp=*&sig=*');
  if (Array.isArray(value)) return value.map(timeless);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['requestId', 'traceId', 'syncedUntil'].includes(key))
      .map(([key, v]) => [key, timeless(v)]),
  );
}

/** Every read the comparison covers, as a client sees it: status, ETag and body (see timeless). */
async function reads(env: TestEnv): Promise<Record<string, unknown>> {
  const get = async (url: string, method: 'GET' | 'POST' = 'GET', body?: unknown) => {
    const res: Received = await send(env, { method, url, key: key.key, body });
    return { status: res.status, etag: res.headers.etag ?? null, body: timeless(unsigned(res.body)) };
  };
  return {
    brands: await get('/v1/brands'),
    brand: await get(`/v1/brands/${brandId}`),
    categories: await get(`/v1/categories?brandId=${brandId}`),
    templates: await get('/v1/product-info-templates'),
    products: await get('/v1/products'),
    published: await get(`/v1/products/${publishedId}`),
    draft: await get(`/v1/products/${draftId}`),
    history: await get(`/v1/products/${publishedId}/history`),
    sync: await get('/v1/products?sync=true'),
    search: await get('/open/search-assets', 'POST', { endPoint: 100 }),
    task: await get('/approval', 'POST', { service: 'taskStatusQuery', taskId }),
    subscriptions: await get('/approval', 'POST', { service: 'subscriptionQuery' }),
  };
}

/** Delivery rows per status, and the events of the pending ones, of a database. */
async function deliveries(env: TestEnv): Promise<{ pending: string[]; byStatus: Record<string, number> }> {
  const rows = await env.orm.em
    .fork()
    .execute<{ status: string; event_id: string }[]>(
      `select d.status, o.body->>'eventId' as event_id from webhook_deliveries d join outbox_events o on o.id = d.event_id order by d.id`,
    );
  const byStatus: Record<string, number> = {};
  for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
  return { pending: rows.filter((r) => r.status === 'pending').map((r) => r.event_id), byStatus };
}

const callbackEvents = async (env: TestEnv) =>
  (
    await env.orm.em
      .fork()
      .execute<{ name: string }[]>(
        `select body->'payload'->>'eventName' as name from outbox_events where event_type = 'APPROVAL' and ordering_key = ? order by id`,
        [`task:${taskId}`],
      )
  ).map((r) => r.name);

beforeAll(async () => {
  for (const name of ['backup-files', 'backup-storage', 'backup-restored-storage', 'backup-copy']) dirs.push(await tempDir(name));
  [files, originalStorage, restoredStorage, backupDir] = dirs.map((d) => d.path) as [string, string, string, string];
  await rm(restoredStorage, { recursive: true });
  world = await createApprovalWorld({ STORAGE_DIR: originalStorage, APPROVAL_DOWNLOAD_TIMEOUT_MS: '10000' });
  original = world.env;
  key = world.key;
  const g = given(original);
  const products = givenProducts(original, files);
  const since = await syncClock(original).clock();

  // the catalogue: a brand with a category and an icon, a template, a published and a draft product
  const brand = await g.brand(key, { name: 'Backed up' });
  brandId = brand.id;
  const icon = await g.categoryIcon(world.team);
  const category = await g.category(key, { brandId, name: 'Shelves', iconAssetId: icon.id });
  await givenTemplates(original).template(key);
  // webhooks for library events, pending: no worker runs on the original, so none is sent before the dump
  const subscribed = await send(original, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: key.key,
    body: { callbackUrl: `${world.receiver.url}/m`, eventTypes: ['MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED'] },
  });
  expect(subscribed.body.code).toBe('0');
  // the library: an image and text files, imported
  const image = await products.image(world.team, 'cover.png');
  await products.textFiles(world.team, 3, 'notes');
  publishedId = (await products.published(key, { name: 'On the shelf', brandId, imageAssetIds: [image] })).id;
  draftId = (await products.product(key, { name: 'Still a draft', brandId, categoryId: category.id })).id;
  // an approval mid-flight: its first node times out in an hour, its callbacks subscribed
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
  const { ann, bob, dan, sub } = world.members;
  const template = await original.core.approvals.templates.create(
    { em: original.orm.em.fork(), teamId: world.team.teamId },
    {
      name: 'Backed up approval',
      workflow: {
        nodes: [
          { name: 'First', signMode: 'and', approvers: [ann], timeout: { hours: 1, transferTo: dan } },
          { name: 'Second', signMode: 'or', approvers: [bob] },
        ],
      },
    },
  );
  const created = await world.approval({
    service: 'createApproval',
    templateId: template.id,
    createdBy: String(sub),
    assets: [{ url: `${world.assets.url}/bytes/backup` }],
  });
  expect(created.body.code, created.text).toBe('0');
  taskId = created.body.result.taskId;
  timeoutAt = (await original.orm.em.fork().execute<{ t: string }[]>('select timeout_at::text as t from approval_tasks where id = ?', [taskId]))[0]!.t;

  // the sync feed shows products once they are 30 s old: the catalogue's writes move an hour back
  await syncClock(original).settle(world.team.teamId, since);

  writer = await g.team('Writer');
  writerKey = await g.key(writer, 'manage');
}, 180_000);

afterAll(async () => {
  stopWriting = true;
  await writing?.catch(() => undefined);
  await restoredWorkers?.close();
  await restored?.close();
  await world?.close();
  for (const dir of dirs) await dir.remove();
});

describe('a backup taken while writes go on restores into a Shelf that answers as at the dump (docs/operations.md "Backups")', () => {
  it('backs up and restores by the documented commands while another team writes brands and files', async () => {
    const g = given(original);
    // the writer: brands through the API and files through the import, one at a time, until stopped
    writing = (async () => {
      for (let n = 1; !stopWriting; n++) {
        const res = await send(original, { method: 'POST', url: '/v1/brands', key: writerKey.key, body: { name: `w-${n}` } });
        expect(res.status, res.text).toBe(201);
        written.brands.push({ n, at: performance.now() });
        const path = join(files, `writer-${n}.txt`);
        await writeFile(path, `written while backing up ${n}\n`);
        await g.libraryFile(writer, { file: path, name: `w-${n}.txt` });
        written.files.push({ n, at: performance.now() });
      }
    })();
    // the writes are under way before the dump starts
    await expect.poll(() => written.files.length).toBeGreaterThanOrEqual(2);
    atDump = await reads(original);
    expect((atDump.sync as { body: { data: unknown[] } }).body.data).toHaveLength(2);
    // each read answers with data, so equal answers after the restore mean equal data
    for (const [name, read] of Object.entries(atDump) as Array<[string, { status: number; body: any }]>) {
      expect(read.status, name).toBe(200);
      expect(read.body.success ?? read.body.code === '0', name).toBe(true);
    }
    const atDumpDeliveries = await deliveries(original);
    const atDumpCallbacks = await callbackEvents(original);

    // a file imported after the dump is in the copy of the bytes but not in the dump: the copy
    // taken after the dump covers every row of it, and holds a few objects no row names
    const taken = await backup(original.config.databaseUrl, originalStorage, backupDir, async (dumpEnded) => {
      await expect.poll(() => written.files.filter((f) => f.at > dumpEnded).length).toBeGreaterThanOrEqual(1);
    });
    stopWriting = true;
    await writing;

    const databaseName = `${original.databaseName}_restored`;
    const restoredIn = await restore(backupDir, databaseName, restoredStorage);
    restored = await openTestEnv(databaseName, {
      STORAGE_DIR: restoredStorage,
      OUTBOUND_ALLOW_HOSTS: original.config.outboundAllowHosts.join(','),
      WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
      RELAY_INTERVAL_MS: '50',
      APPROVAL_DOWNLOAD_TIMEOUT_MS: '10000',
    });

    // every read answers as the original did at the dump, ETags included
    expect(await reads(restored)).toEqual(atDump);

    // the writer's brands: every one acknowledged before the dump started is there, and what is
    // there is a prefix of what it wrote (the dump is one snapshot)
    const restoredBrands = (
      await restored.orm.em.fork().execute<{ name: string }[]>('select name from brands where team_id = ? order by id', [writer.teamId])
    ).map((r) => Number(r.name.slice(2)));
    const before = written.brands.filter((b) => b.at < taken.dumpStarted).length;
    expect(restoredBrands.length).toBeGreaterThanOrEqual(before);
    expect(restoredBrands).toEqual(restoredBrands.map((_n, i) => i + 1));
    expect(restoredBrands.length).toBeLessThanOrEqual(written.brands.length);

    // the pending deliveries and the approval's callbacks are in the restore as at the dump
    expect(await deliveries(restored)).toEqual(atDumpDeliveries);
    expect(atDumpDeliveries.pending.length).toBeGreaterThan(0);
    expect(await callbackEvents(restored)).toEqual(atDumpCallbacks);

    const dump = await stat(join(backupDir, 'shelf.dump'));
    figures = {
      dumpMs: Math.round(taken.dumpEnded - taken.dumpStarted),
      dumpBytes: dump.size,
      copyMs: Math.round(taken.copyMs),
      restoreDatabaseMs: Math.round(restoredIn.databaseMs),
      restoreFilesMs: Math.round(restoredIn.filesMs),
      writerBrandsWritten: written.brands.length,
      writerBrandsRestored: restoredBrands.length,
      writesDuringDump: written.brands.filter((b) => b.at > taken.dumpStarted && b.at < taken.dumpEnded).length,
    };
  }, 180_000);

  it("finds every stored object a restored row names, with the row's size (the storage check)", async () => {
    const check = await checkStorage(restored, new LocalDiskStorage(restoredStorage));
    expect(check.problems).toEqual([]);
    // each kind of row that names bytes is there to check
    expect(Object.keys(check.referenced).sort()).toEqual(['approval_assets', 'category_icons', 'stored_objects']);
    // the writer's files restored are among them: rows written during the dump found their bytes
    const writerFiles = await restored.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from stored_objects where team_id = ?', [writer.teamId]);
    expect(writerFiles[0]!.n).toBeGreaterThan(0);
    figures.objectsChecked = Object.values(check.referenced).reduce((a, b) => a + b, 0);
  });

  it('the storage check reports an object missing from the restored storage', async () => {
    const scratch = await tempDir('backup-missing');
    dirs.push(scratch);
    await copyStorage(restoredStorage, scratch.path);
    const [row] = await restored.orm.em.fork().execute<{ storage_key: string }[]>('select storage_key from category_icons limit 1');
    await rm(join(scratch.path, ...row!.storage_key.split('/')));
    const check = await checkStorage(restored, new LocalDiskStorage(scratch.path));
    expect(check.problems).toEqual([{ table: 'category_icons', storageKey: row!.storage_key, problem: 'missing' }]);
  });

  it('sends the webhooks pending at the dump and fires the approval timer, from a fresh Redis', async () => {
    const pending = (await deliveries(restored)).pending;
    // the deadline is the original's; an hour passes (moved in the restored database, not waited for)
    expect((await restored.orm.em.fork().execute<{ t: string }[]>('select timeout_at::text as t from approval_tasks where id = ?', [taskId]))[0]!.t).toBe(
      timeoutAt,
    );
    await restored.orm.em.fork().execute(`update approval_tasks set timeout_at = now() - interval '1 second' where id = ?`, [taskId]);
    restoredWorkers = await startWorkers({
      core: restored.core,
      config: restored.config,
      queues: restored.queues,
      metrics: restored.metrics,
      logger: pino({ level: 'silent' }),
    });
    await expect.poll(() => callbackEvents(restored)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    const total = Object.values((await deliveries(restored)).byStatus).reduce((a, b) => a + b, 0);
    await expect.poll(async () => (await deliveries(restored)).byStatus).toEqual({ succeeded: total });
    const received = new Set(world.receiver.received.map((r) => r.body?.eventId));
    for (const eventId of pending) expect(received, `event ${eventId} pending at the dump`).toContain(eventId);
    // the transferee now decides the first node
    expect((await send(restored, { method: 'POST', url: '/approval', key: key.key, body: { service: 'taskStatusQuery', taskId } })).body.result).toMatchObject({
      currentNodeName: 'First',
    });
    // the figures of this run, for the record (docs/operations.md "Backups" quotes a run)
    console.info(`backup-restore figures: ${JSON.stringify(figures)}`);
  });
});
