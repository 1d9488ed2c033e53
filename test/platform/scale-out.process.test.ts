import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { FAST_RETRIES } from '../support/event-world.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { givenProducts } from '../support/given-products.ts';
import { tempDir } from '../support/media-files.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';
import { freePort } from '../support/private-redis.ts';
import { type ShelfProcess, spawnShelf, untilHealthy } from '../support/shelf-process.ts';
import { unzip } from '../support/unzip.ts';
import { SPAWNING_TEST_TIMEOUT_MS, until } from '../support/wait.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/*
 * Beyond one machine (issue 33, part 3; docs/operations.md "Scaling out"): two ROLE=api processes
 * on their own ports and one ROLE=worker, each with an empty STORAGE_DIR of its own and every byte
 * in one S3 bucket, so nothing is shared but PostgreSQL, Redis and the object store. An upload
 * begun on the first API is finished on the second; the file is then found, previewed, downloaded
 * by signed link, zipped with a product and reviewed in an approval through either API, and the
 * worker delivers its MATERIAL_INBOUND_COMPLETED once. No process holds anything another needs.
 */

// three process starts and a dozen requests through them, on a busy two-core machine
vi.setConfig({ testTimeout: SPAWNING_TEST_TIMEOUT_MS * 3, hookTimeout: SPAWNING_TEST_TIMEOUT_MS });

type TempDir = Awaited<ReturnType<typeof tempDir>>;
type Running = ShelfProcess;

let env: TestEnv;
let bucket: TestBucket;
let receiver: WebhookReceiver;
let team: GivenTeam;
let key: GivenKey;
let ann: number;
const dirs: Record<'setup' | 'apiA' | 'apiB' | 'worker' | 'inputs', TempDir> = {} as never;
const running: Running[] = [];
let portA: number;
let portB: number;
let apiA: Running;
let apiB: Running;
let worker: Running;

/** The settings every process shares: the database, Redis, the bucket, the link secret and the outbound allow list. */
function sharedSettings(): Record<string, string> {
  return {
    DATABASE_URL: env.config.databaseUrl,
    REDIS_URL: env.config.redisUrl,
    QUEUE_PREFIX: env.config.queuePrefix,
    LINK_SIGNING_SECRET: env.config.linkSigningSecret!,
    ...bucket.env('shelf'),
    // the webhook receiver, and each API for the other's signed links (approval asset downloads)
    OUTBOUND_ALLOW_HOSTS: [receiver.hostPort, `127.0.0.1:${portA}`, `127.0.0.1:${portB}`].join(','),
    WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
    RELAY_INTERVAL_MS: '50',
  };
}

/** A Shelf process (src/main.mjs) of the given role with a STORAGE_DIR of its own. */
function startShelf(role: 'api' | 'worker', storage: TempDir, port?: number): Running {
  const started = spawnShelf({ ...sharedSettings(), ROLE: role, ...(port ? { PORT: String(port) } : {}), STORAGE_DIR: storage.path, LOG_LEVEL: 'warn' });
  running.push(started);
  return started;
}

async function startApi(port: number, storage: TempDir): Promise<Running> {
  const api = startShelf('api', storage, port);
  await untilHealthy(port);
  return api;
}

const base = (port: number) => `http://127.0.0.1:${port}`;
const auth = () => ({ authorization: `Bearer ${key.key}` });
const TUS = { 'tus-resumable': '1.0.0' };
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function postJson(port: number, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base(port)}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** A signed link issued by one API, sent to the API on `port` (same path and query: any API serves it). */
async function fetchVia(port: number, link: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const url = new URL(link);
  const res = await fetch(`${base(port)}${url.pathname}${url.search}`);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Every file under a directory: a process's STORAGE_DIR must stay empty when the bytes live in the bucket. */
async function filesUnder(dir: TempDir): Promise<string[]> {
  const entries = await readdir(dir.path, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

beforeAll(async () => {
  for (const name of ['setup', 'apiA', 'apiB', 'worker', 'inputs'] as const) dirs[name] = await tempDir(`scale-out-${name}`);
  bucket = await testBucket();
  receiver = await startReceiver();
  [portA, portB] = [await freePort(), await freePort()];
  // the test's own core only migrates the database and sets up the team; it runs no workers
  env = await createTestEnv({ STORAGE_DIR: dirs.setup.path, ...bucket.env('shelf') });
  team = await given(env).team('Scale out');
  await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: team.teamId });
  key = await given(env).key(team, 'manage');
  ann = (await given(env).member(team, 'ann')).userId;
});
afterAll(async () => {
  for (const proc of running) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
  await Promise.all(running.map((proc) => proc.exited));
  await env?.close();
  await receiver?.close();
  await bucket?.remove();
  for (const dir of Object.values(dirs)) await dir?.remove();
});

describe('several API processes and a worker sharing only PostgreSQL, Redis and the object store', () => {
  it('an upload begun on one API and finished on the other is found, previewed, downloaded, zipped and reviewed through both, and its webhook is delivered once', async () => {
    // (started here: their readiness is awaited with expect.poll, which runs only inside a test)
    [apiA, apiB] = await Promise.all([startApi(portA, dirs.apiA), startApi(portB, dirs.apiB)]);
    worker = startShelf('worker', dirs.worker);
    const output = () => `api A:\n${apiA.output()}\napi B:\n${apiB.output()}\nworker:\n${worker.output()}`;
    const subscribed = await postJson(portA, '/open/material-automation-subscribe', {
      callbackUrl: `${receiver.url}/m`,
      eventTypes: ['MATERIAL_INBOUND_COMPLETED'],
    });
    expect(subscribed.body.code).toBe('0');

    // a photo of a few hundred KB: noise does not compress
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#336699', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .png()
      .toBuffer();
    const half = Math.floor(photo.length / 2);

    // 1. created and half sent on A
    const created = await fetch(`${base(portA)}/v1/uploads`, {
      method: 'POST',
      headers: {
        ...auth(),
        ...TUS,
        'upload-length': String(photo.length),
        'upload-metadata': `filename ${b64('harbour-at-dusk.png')},folder ${b64('/scaled')}`,
      },
    });
    expect(created.status, output()).toBe(201);
    const path = new URL(created.headers.get('location')!, base(portA)).pathname;
    const patch = (port: number, offset: number, bytes: Buffer) =>
      fetch(`${base(port)}${path}`, {
        method: 'PATCH',
        headers: { ...auth(), ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
        body: new Uint8Array(bytes),
      });
    const first = await patch(portA, 0, photo.subarray(0, half));
    expect(first.status, output()).toBe(204);

    // 2. B reports the offset A recorded and takes the rest
    const head = await fetch(`${base(portB)}${path}`, { method: 'HEAD', headers: { ...auth(), ...TUS } });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(half));
    const last = await patch(portB, half, photo.subarray(half));
    expect(last.status, output()).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(photo.length));
    const status = await fetch(`${base(portA)}${path}`, { headers: auth() });
    const upload = (await status.json()).data;
    expect(upload).toMatchObject({ status: 'completed', offset: photo.length });
    const fileId = upload.result.fileId as number;

    // the bytes are in the bucket, under their content-addressed key, and no process kept a copy
    expect(await bucket.keys()).toContain(`shelf/${objectKey(sha256(photo))}`);

    // 3. found through both APIs, with links that either API serves
    const found: Record<string, { downloadUrl: string; thumbnailAccessUrl: string }> = {};
    for (const [name, port] of [
      ['A', portA],
      ['B', portB],
    ] as const) {
      const search = await until(
        () => postJson(port, '/open/search-assets', { keywords: ['harbour-at-dusk'], endPoint: 10 }),
        (res) => res.body.result?.assets?.length > 0,
      );
      expect(search.body.result.assets.map((a: { id: number }) => a.id)).toEqual([fileId]);
      found[name] = search.body.result.assets[0];
    }
    for (const links of Object.values(found)) {
      for (const port of [portA, portB]) {
        const original = await fetchVia(port, links.downloadUrl);
        expect(original.status).toBe(200);
        expect(sha256(original.bytes)).toBe(sha256(photo));
        const preview = await fetchVia(port, links.thumbnailAccessUrl);
        expect(preview.status).toBe(200);
        expect(preview.type).toMatch(/^image\//);
        const { width, height } = await sharp(preview.bytes).metadata();
        expect(width! / height!).toBeCloseTo(320 / 240, 1);
      }
    }

    // 4. zipped with a product through both APIs
    const product = await givenProducts(env, dirs.inputs.path).published(key, { imageAssetIds: [fileId] });
    for (const port of [portA, portB]) {
      const res = await fetch(`${base(port)}/v1/products/${product.id}/downloads`, { method: 'POST', headers: auth() });
      expect(res.status, output()).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zip');
      const entries = await unzip(Buffer.from(await res.arrayBuffer()));
      expect([...entries.keys()]).toEqual(['harbour-at-dusk.png']);
      expect(sha256(entries.get('harbour-at-dusk.png')!)).toBe(sha256(photo));
    }

    // 5. reviewed in an approval created on each API from a signed link the other API serves
    const templateId = (
      await env.core.approvals.templates.create(
        { em: env.orm.em.fork(), teamId: team.teamId },
        { name: 'Review', workflow: { nodes: [{ name: 'Look', signMode: 'or', approvers: [ann] }] } },
      )
    ).id;
    for (const [port, other, links] of [
      [portA, portB, found.A!],
      [portB, portA, found.B!],
    ] as const) {
      const url = new URL(links.downloadUrl);
      const res = await postJson(port, '/approval', {
        service: 'createApproval',
        templateId,
        createdBy: String(ann),
        assets: [{ name: 'harbour-at-dusk.png', url: `${base(other)}${url.pathname}${url.search}` }],
      });
      expect(res.body.code, `${JSON.stringify(res.body)}\n${output()}`).toBe('0');
      const [asset] = await env.orm.em
        .fork()
        .execute<{ sha256: string; byte_size: string }[]>('select sha256, byte_size from approval_assets where task_id = ?', [res.body.result.taskId]);
      expect(asset).toMatchObject({ sha256: sha256(photo), byte_size: String(photo.length) });
    }

    // 6. the worker delivered MATERIAL_INBOUND_COMPLETED once: succeeded on the first attempt, and
    // by now (everything above took the relay dozens of intervals) no second copy arrived
    const delivery = await until(
      () =>
        env.orm.em.fork().execute<{ status: string; attempts: number }[]>(
          `select d.status, d.attempts from webhook_deliveries d join outbox_events o on o.id = d.event_id
              where d.team_id = ? and o.event_type = 'MATERIAL_INBOUND_COMPLETED'`,
          [team.teamId],
        ),
      (rows) => rows.length === 1 && rows[0]!.status === 'succeeded',
      { timeout: 60_000 },
    );
    expect(delivery).toEqual([{ status: 'succeeded', attempts: 1 }]);
    const inbound = receiver.received.filter((r) => r.path === '/m' && r.body?.eventType === 'MATERIAL_INBOUND_COMPLETED');
    expect(inbound).toHaveLength(1);
    expect(inbound[0]!.body.payload).toMatchObject({
      source: 'UPLOAD_ASSETS',
      materialIds: [fileId],
      uploadResults: [{ id: fileId, name: 'harbour-at-dusk.png', width: 320, height: 240, uploadStatus: 'SUCCESS' }],
    });

    // nothing reached any process's own disk: the bucket holds every byte
    for (const dir of [dirs.apiA, dirs.apiB, dirs.worker]) expect(await filesUnder(dir)).toEqual([]);
  });
});
