import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorAsMember } from '../../src/core/access/operator-scopes.ts';
import { previewKey } from '../../src/core/assets/delivery/previews.ts';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { S3_ENDPOINT, type TestBucket, testBucket } from '../support/object-store.ts';

/**
 * What touches a library file's bytes, on each backend: the import, signed links whole and by
 * range, previews and their cache, and the permanent delete. On S3 nothing may reach STORAGE_DIR.
 */
let bucket: TestBucket;
let inputs: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  bucket = await testBucket();
  inputs = await tempDir('s3-inputs');
});
afterAll(async () => {
  await bucket?.remove();
  await inputs?.remove();
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(['local', 's3'])('library files stored on %s', (backend) => {
  let env: TestEnv;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let team: GivenTeam;
  let photo: { id: number; bytes: Buffer };
  let g: ReturnType<typeof given>;

  beforeAll(async () => {
    dir = await tempDir(`storage-${backend}`);
    env = await createTestEnv({ STORAGE_DIR: dir.path, ...(backend === 's3' ? bucket.env('shelf') : {}) });
    g = given(env);
    team = await g.team(backend);
    const path = join(inputs.path, `${backend}.png`);
    const bytes = await writeImage(path, { width: 900, height: 600, colour: backend === 's3' ? '#cc2200' : '#0022cc', format: 'png' });
    photo = { id: (await g.libraryFile(team, { file: path })).id, bytes };
  });
  afterAll(async () => {
    await env?.close();
    await dir?.remove();
  });

  /** Keys in the store: the bucket's (under the deployment's prefix) or the files under STORAGE_DIR. */
  async function storedKeys(): Promise<string[]> {
    if (backend === 's3') return (await bucket.keys()).filter((k) => k.startsWith('shelf/')).map((k) => k.slice('shelf/'.length));
    const entries = await readdir(dir.path, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.path.length + 1))
      .sort();
  }

  async function get(url: string, headers: Record<string, string> = {}) {
    const parsed = new URL(url);
    const res = await env.app.inject({ method: 'GET', url: parsed.pathname + parsed.search, headers });
    return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload };
  }

  const downloadLink = () => env.core.assets.links.sign({ teamId: team.teamId, fileId: photo.id, purpose: 'download' }, Math.floor(Date.now() / 1000) + 600);

  it('an import keeps the bytes in the configured store, under their content-addressed key', async () => {
    expect(await storedKeys()).toEqual([objectKey(sha256(photo.bytes))]);
    if (backend === 's3') expect(await readdir(dir.path)).toEqual([]);
    else expect(await readFile(join(dir.path, objectKey(sha256(photo.bytes))))).toEqual(photo.bytes);
  });

  it('a signed download link streams the whole file and says ranges are accepted', async () => {
    const res = await get(downloadLink());
    expect(res.status).toBe(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(Number(res.headers['content-length'])).toBe(photo.bytes.length);
    expect(sha256(res.bytes)).toBe(sha256(photo.bytes));
  });

  it("a HEAD of a signed download link answers the whole file's headers and no body, and the link still serves the bytes after", async () => {
    const link = new URL(downloadLink());
    const head = await env.app.inject({ method: 'HEAD', url: link.pathname + link.search });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(photo.bytes.length);
    expect(head.headers['accept-ranges']).toBe('bytes');
    expect(head.rawPayload.length).toBe(0);
    const res = await get(link.href);
    expect(sha256(res.bytes)).toBe(sha256(photo.bytes));
  });

  it('a signed link answers a range request with 206 and just those bytes', async () => {
    const total = photo.bytes.length;
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=100-', 100, total - 1],
      ['bytes=-50', total - 50, total - 1],
      [`bytes=10-${total + 1000}`, 10, total - 1],
    ];
    for (const [header, start, end] of cases) {
      const res = await get(downloadLink(), { range: header });
      expect(res.status, header).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${total}`);
      expect(Number(res.headers['content-length'])).toBe(end - start + 1);
      expect(res.bytes.equals(photo.bytes.subarray(start, end + 1)), header).toBe(true);
    }
  });

  it('a range past the end is 416 with the size, and a malformed or multiple range gets the whole file', async () => {
    const total = photo.bytes.length;
    const past = await get(downloadLink(), { range: `bytes=${total}-` });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${total}`);
    expect(past.bytes.length).toBe(0);
    for (const header of ['bytes=0-1,5-6', 'items=0-1', 'bytes=9-2', 'bytes=-']) {
      const res = await get(downloadLink(), { range: header });
      expect(res.status, header).toBe(200);
      expect(res.bytes.length).toBe(total);
    }
  });

  it('a preview is derived from the stored bytes and cached in the same store', async () => {
    const url = env.core.assets.links.sign({ teamId: team.teamId, fileId: photo.id, purpose: 'preview' }, Math.floor(Date.now() / 1000) + 600);
    const res = await get(url);
    expect(res.status).toBe(200);
    expect((await sharp(res.bytes).metadata()).width).toBe(512);
    // a range is not honoured for a derived image: it is sent whole
    expect((await get(url, { range: 'bytes=0-9' })).status).toBe(200);
    expect(await storedKeys()).toContain(previewKey(sha256(photo.bytes)));
  });

  it('a pending inbound holds its bytes in the store: a discard releases them, a confirm places them', async () => {
    const op = env.core.operatorCtx();
    const held = join(inputs.path, `${backend}-held.png`);
    const heldBytes = await writeImage(held, { width: 70, height: 20, colour: '#778899', format: 'png' });
    const discarded = join(inputs.path, `${backend}-discarded.png`);
    const discardedBytes = await writeImage(discarded, { width: 71, height: 20, colour: '#998877', format: 'png' });
    const [kept] = (await env.core.assets.pendingInbound.holdFile(op, { team: team.teamId, file: held })).pendingIds;
    const [dropped] = (await env.core.assets.pendingInbound.holdFile(op, { team: team.teamId, file: discarded })).pendingIds;
    expect(await storedKeys()).toEqual(expect.arrayContaining([objectKey(sha256(heldBytes)), objectKey(sha256(discardedBytes))]));
    await env.core.assets.pendingInbound.discardAsOperator(op, { team: team.teamId, ids: [dropped] });
    expect(await storedKeys()).not.toContain(objectKey(sha256(discardedBytes)));
    const { confirmed } = await env.core.assets.pendingInbound.confirmAsOperator(op, { team: team.teamId, ids: [kept] });
    const url = env.core.assets.links.sign({ teamId: team.teamId, fileId: confirmed[0]!.materialId, purpose: 'download' }, Math.floor(Date.now() / 1000) + 600);
    expect((await get(url)).bytes.equals(heldBytes)).toBe(true);
  });

  it('purging the last file that uses the bytes removes them and their preview from the store', async () => {
    const member = await g.member(team, 'Ann');
    const ctx = env.core.ctxFor(await operatorAsMember(env.core.operatorCtx(), member.userId), 'test');
    const { recycleEntryId } = await env.core.assets.recycleBin.deleteFile(ctx, photo.id);
    expect(await storedKeys()).toContain(objectKey(sha256(photo.bytes)));
    const purged = await env.core.assets.recycleBin.purge(ctx, { ids: [recycleEntryId] });
    expect(purged.releasedObjects).toBe(1);
    expect(await storedKeys()).not.toContain(objectKey(sha256(photo.bytes)));
    expect(await storedKeys()).not.toContain(previewKey(sha256(photo.bytes)));
  });
});

describe('S3_DOWNLOAD_REDIRECT=on: signed links to originals redirect to a presigned GET of the bucket', () => {
  let env: TestEnv;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let team: GivenTeam;
  let photo: { id: number; bytes: Buffer };

  beforeAll(async () => {
    dir = await tempDir('storage-redirect');
    env = await createTestEnv({ STORAGE_DIR: dir.path, ...bucket.env('redirect'), S3_DOWNLOAD_REDIRECT: 'on' });
    const g = given(env);
    team = await g.team('Redirect');
    const path = join(inputs.path, 'redirect photo.png');
    const bytes = await writeImage(path, { width: 300, height: 200, colour: '#22aa22', format: 'png' });
    photo = { id: (await g.libraryFile(team, { file: path })).id, bytes };
  });
  afterAll(async () => {
    await env?.close();
    await dir?.remove();
  });

  const sign = (purpose: 'download' | 'preview' | 'preview-original', expiresIn = 600) =>
    new URL(env.core.assets.links.sign({ teamId: team.teamId, fileId: photo.id, purpose }, Math.floor(Date.now() / 1000) + expiresIn));

  it('answers 302 to the gateway, which serves the bytes with the file name and type the signature fixes', async () => {
    const link = sign('download');
    const res = await env.app.inject({ method: 'GET', url: link.pathname + link.search });
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.origin).toBe(new URL(S3_ENDPOINT).origin);
    // at most five minutes, never past the link
    expect(Number(location.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(300);
    const fetched = await fetch(location);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(fetched.headers.get('content-disposition')).toBe('attachment; filename="redirect photo.png"');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(photo.bytes)).toBe(true);
    // the store answers ranges on it itself
    const part = await fetch(location, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(photo.bytes.subarray(0, 10))).toBe(true);
  });

  it('never redirects a link that is altered or expired, and a short link gets a URL no longer than itself', async () => {
    const altered = sign('download');
    altered.searchParams.set('sig', 'x'.repeat(43));
    expect((await env.app.inject({ method: 'GET', url: altered.pathname + altered.search })).statusCode).toBe(403);
    const expired = sign('download', -10);
    expect((await env.app.inject({ method: 'GET', url: expired.pathname + expired.search })).statusCode).toBe(410);
    const short = sign('preview-original', 20);
    const res = await env.app.inject({ method: 'GET', url: short.pathname + short.search });
    expect(res.statusCode).toBe(302);
    expect(Number(new URL(res.headers.location as string).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(20);
  });

  it('still derives and serves previews through Shelf', async () => {
    const link = sign('preview');
    const res = await env.app.inject({ method: 'GET', url: link.pathname + link.search });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
  });
});
