import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { type Collected, collect as collectOne, listen, openStreams, sseClient } from './live-support.ts';

let env: TestEnv;
let origin: string;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
let manager: GivenKey;
let other: GivenTeam;
let otherKey: GivenKey;

const LIBRARY = 'subscription($f: Int, $after: String) { libraryEvents(folderId: $f, after: $after) { position eventType fileId folderIds payload } }';
const EDIT = 'mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { id } }';

beforeAll(async () => {
  files = await tempDir('live-files');
  storage = await tempDir('live-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path, LIVE_RECHECK_MS: '100', LIVE_RELAY_INTERVAL_MS: '20' });
  origin = await listen(env);
  await writeImage(join(files.path, 'red.png'), { width: 20, height: 20, colour: '#ff0000', format: 'png' });
  const g = given(env);
  team = await g.team('Live');
  manager = await g.key(team, 'manage');
  other = await g.team('Other');
  otherKey = await g.key(other, 'manage');
});
afterAll(async () => {
  await env?.close();
  await files?.remove();
  await storage?.remove();
});

/** Every subscription a test opens is closed after it, whatever happened. */
const opened: Collected[] = [];
function collect(...args: Parameters<typeof collectOne>): Collected {
  const one = collectOne(...args);
  opened.push(one);
  return one;
}
afterEach(async () => {
  for (const one of opened.splice(0)) one.dispose();
  await expect.poll(() => openStreams(env)).toBe(0);
});

async function importFile(into: GivenTeam, folder: string, name: string): Promise<{ id: number; folderIds: number[] }> {
  return given(env).libraryFile(into, { file: join(files.path, 'red.png'), folder, name });
}

describe('libraryEvents', () => {
  it("delivers each committed library event of the team once, in order, with increasing positions, and nothing of another team's", async () => {
    const mine = collect(sseClient(origin, manager.key), LIBRARY);
    const theirs = collect(sseClient(origin, otherKey.key), LIBRARY);
    await expect.poll(() => openStreams(env)).toBe(2);
    const file = await importFile(team, '/a/b', 'one.png');
    await graphql(env, manager.key, EDIT, { id: file.id, input: { name: 'renamed.png' } });
    const marker = await importFile(other, '/x', 'marker.png');
    await expect.poll(() => mine.data('libraryEvents').length).toBe(3);
    await expect.poll(() => theirs.data('libraryEvents').length).toBe(2);
    const events = mine.data('libraryEvents');
    expect(events.map((e) => e.eventType)).toEqual(['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED']);
    expect(events.every((e) => e.fileId === file.id)).toBe(true);
    expect(events[2].payload).toMatchObject({ changeType: 'BASIC', materials: [{ materialId: file.id, name: 'renamed.png' }] });
    const positions = events.map((e) => Number(e.position));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(3);
    expect(theirs.data('libraryEvents').every((e) => e.fileId === marker.id)).toBe(true);
    // and the process counts what it sent, and how long each row took from its write to a stream
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(Number(/^shelf_live_updates_sent_total\{stream="library"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(5);
    expect(Number(/^shelf_live_lag_seconds_count (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(5);
    expect(metrics).toMatch(/^shelf_live_streams 2$/m);
    mine.dispose();
    theirs.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
  });
});

const PRODUCTS =
  'subscription($b: Int, $c: Int, $after: String) { productChanges(brandId: $b, categoryId: $c, after: $after) { position productId action status name brandId categoryId changedFields } }';
const CREATE_PRODUCT = 'mutation($input: ProductCreateInput!) { createProduct(input: $input) { product { id } } }';
const UPDATE_PRODUCT = 'mutation($id: Int!, $d: String) { updateProduct(id: $id, input: { description: $d }) { etag } }';
const PUBLISH = 'mutation($id: Int!) { publishProduct(id: $id) { etag } }';

async function createProduct(key: GivenKey, input: Record<string, unknown>): Promise<number> {
  const res = await graphql(env, key.key, CREATE_PRODUCT, { input });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createProduct.product.id;
}

describe('productChanges', () => {
  it('delivers the changes of a brand only, with the fields a list needs, in commit order', async () => {
    const g = given(env);
    const brand = await g.brand(manager, { name: 'Watched' });
    const elsewhere = await g.brand(manager, { name: 'Unwatched' });
    const watching = collect(sseClient(origin, manager.key), PRODUCTS, { b: brand.id });
    await expect.poll(() => openStreams(env)).toBe(1);
    const ignored = await createProduct(manager, { name: 'Elsewhere', brandId: elsewhere.id });
    const id = await createProduct(manager, { name: 'Boot', brandId: brand.id });
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: 'leather' });
    await graphql(env, manager.key, UPDATE_PRODUCT, { id: ignored, d: 'x' });
    await graphql(env, manager.key, 'mutation($id: Int!) { deleteProduct(id: $id) { id } }', { id });
    await expect.poll(() => watching.data('productChanges').map((c) => c.action)).toEqual(['CREATED', 'UPDATED', 'DELETED']);
    const [created, updated, deleted] = watching.data('productChanges');
    expect(created).toMatchObject({ productId: id, status: 'DRAFT', name: 'Boot', brandId: brand.id });
    expect(updated.changedFields).toEqual(['description']);
    expect(deleted).toMatchObject({ productId: id, status: null, name: null, brandId: brand.id });
    watching.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
  });

  it("gives a team-wide stream its own team's product changes and nothing of another team's", async () => {
    const mine = collect(sseClient(origin, manager.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(1);
    const theirs = await createProduct(otherKey, { name: 'Other team' });
    const own = await createProduct(manager, { name: 'Own team' });
    await expect.poll(() => mine.data('productChanges').map((c) => c.productId)).toContain(own);
    expect(mine.data('productChanges').map((c) => c.productId)).toEqual([own]);
    expect(theirs).not.toBe(own);
  });

  it("gives view_only keys only changes of products published before or after the change, and follows the key's role as it changes", async () => {
    const g = given(env);
    const brand = await g.brand(manager, { name: 'Roles' });
    const viewer = await g.key(team, 'view_only');
    const editorKey = await g.key(team, 'editable');
    const asViewer = collect(sseClient(origin, viewer.key), PRODUCTS, { b: brand.id });
    const asEditor = collect(sseClient(origin, editorKey.key), PRODUCTS, { b: brand.id });
    await expect.poll(() => openStreams(env)).toBe(2);
    const id = await createProduct(manager, { name: 'Draft', brandId: brand.id });
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: 'still a draft' });
    await graphql(env, manager.key, PUBLISH, { id });
    await expect.poll(() => asEditor.data('productChanges').map((c) => c.action)).toEqual(['CREATED', 'UPDATED', 'PUBLISHED']);
    await expect.poll(() => asViewer.data('productChanges').map((c) => c.action)).toEqual(['PUBLISHED']);
    // the editor is demoted: drafts leave its view on the next re-check, as on its next request
    await env.core.access.setKeyRole(env.core.operatorCtx(), { keyId: editorKey.keyId, role: 'view_only' });
    const before = await rechecks();
    // a re-check that started after the change has finished
    await expect.poll(() => rechecks()).toBeGreaterThanOrEqual(before + 2);
    const draft = await createProduct(manager, { name: 'Hidden draft', brandId: brand.id });
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: 'published and edited' });
    await expect.poll(() => asEditor.data('productChanges').length).toBe(4);
    expect(asEditor.data('productChanges')[3]).toMatchObject({ productId: id, action: 'UPDATED' });
    expect(asEditor.data('productChanges').some((c) => c.productId === draft)).toBe(false);
    asViewer.dispose();
    asEditor.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
  });
});

describe('resuming', () => {
  it('a reconnect with the last position (after) receives what it missed, in order, and nothing twice', async () => {
    const brand = await given(env).brand(manager, { name: 'Resume' });
    const first = collect(sseClient(origin, manager.key), PRODUCTS, { b: brand.id });
    await expect.poll(() => openStreams(env)).toBe(1);
    const id = await createProduct(manager, { name: 'R', brandId: brand.id });
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: '1' });
    await expect.poll(() => first.data('productChanges').length).toBe(2);
    first.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
    const last = first.data('productChanges')[1].position;
    // missed while disconnected
    for (const d of ['2', '3', '4']) await graphql(env, manager.key, UPDATE_PRODUCT, { id, d });
    const again = collect(sseClient(origin, manager.key), PRODUCTS, { b: brand.id, after: last });
    await expect.poll(() => again.data('productChanges').length).toBe(3);
    // and live ones after the catch-up
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: '5' });
    await expect.poll(() => again.data('productChanges').length).toBe(4);
    const positions = again.data('productChanges').map((c) => Number(c.position));
    expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
    expect(positions[0]).toBeGreaterThan(Number(last));
    again.dispose();
  });

  it('a reconnect with Last-Event-ID (what EventSource sends) resumes like `after`, and SSE ids are the positions', async () => {
    const brand = await given(env).brand(manager, { name: 'Last-Event-ID' });
    const id = await createProduct(manager, { name: 'L', brandId: brand.id });
    const from = String(await lastPositionAfterRelay());
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: 'a' });
    await graphql(env, manager.key, UPDATE_PRODUCT, { id, d: 'b' });
    const controller = new AbortController();
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${manager.key}`, 'last-event-id': from },
      body: JSON.stringify({ query: PRODUCTS, variables: { b: brand.id } }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await readFrames(res, 2);
    controller.abort();
    expect(frames.map((f) => JSON.parse(f.data).data.productChanges.changedFields)).toEqual([['description'], ['description']]);
    expect(frames.map((f) => f.id)).toEqual(frames.map((f) => JSON.parse(f.data).data.productChanges.position));
    expect(Number(frames[0]!.id)).toBeGreaterThan(Number(from));
  });

  it('refuses a position older than the live log keeps with 410 position_expired, and one never given with 400 validation_failed', async () => {
    const brand = await given(env).brand(manager, { name: 'Expired' });
    await createProduct(manager, { name: 'E', brandId: brand.id });
    const old = await lastPositionAfterRelay();
    // the relay's purge with a window of 0 minutes: every row written so far leaves the log
    const { purgeLiveRows } = await import('../../src/core/live/live-events.queries.ts');
    await purgeLiveRows(env.core.operatorCtx(), 0, 1_000_000);
    await createProduct(manager, { name: 'E2', brandId: brand.id });
    await lastPositionAfterRelay();
    const expired = await rawStream({ query: PRODUCTS, variables: { after: String(old - 1) } });
    expect(expired.status).toBe(410);
    expect(expired.body.errors[0].extensions.code).toBe('position_expired');
    const unknown = await rawStream({ query: PRODUCTS, variables: { after: '999999999' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe('validation_failed');
    const malformed = await rawStream({ query: PRODUCTS, variables: { after: '12abc' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'after', message: 'must be a position (digits)' }],
    });
    expect(await openStreams(env)).toBe(0);
  });
});

async function rechecks(): Promise<number> {
  return (await env.metrics.registry.getSingleMetric('shelf_live_rechecks_total')?.get())?.values[0]?.value ?? 0;
}

/** Waits for the relay to position everything written so far; returns the last position. */
async function lastPositionAfterRelay(): Promise<number> {
  await expect
    .poll(async () => Number((await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from live_events where position is null'))[0]!.n))
    .toBe(0);
  return Number((await env.orm.em.fork().execute<{ last: string }[]>('select last from live_positions'))[0]!.last);
}

/** A stream request whose refusal is read as JSON. */
async function rawStream(body: unknown, key: string = manager.key): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text, headers: res.headers };
}

/** Reads `count` `next` events of an SSE response. */
async function readFrames(res: Response, count: number): Promise<Array<{ id: string | null; event: string; data: string }>> {
  const frames: Array<{ id: string | null; event: string; data: string }> = [];
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    let end = text.indexOf('\n\n');
    while (end !== -1) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => l && !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
      );
      if (fields.event) frames.push({ id: fields.id ?? null, event: fields.event, data: fields.data ?? '' });
      if (frames.filter((f) => f.event === 'next').length >= count) return frames.filter((f) => f.event === 'next');
      end = text.indexOf('\n\n');
    }
  }
  return frames.filter((f) => f.event === 'next');
}
