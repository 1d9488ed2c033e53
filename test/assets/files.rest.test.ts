import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import { previewKey } from '../../src/core/assets/delivery/previews.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { tempDir, writeBmp, writeImage } from '../support/media-files.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let teamA: GivenTeam;
let teamB: GivenTeam;
let big: { id: number; bytes: Buffer };
let small: { id: number };
let bmp: { id: number; bytes: Buffer };
let text: { id: number };
let ofB: { id: number };

beforeAll(async () => {
  storage = await tempDir('storage');
  inputs = await tempDir('inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  g = given(env);
  teamA = await g.team('A');
  teamB = await g.team('B');
  const bigBytes = await writeImage(join(inputs.path, 'big photo.png'), { width: 1200, height: 800, colour: '#ff0000', format: 'png' });
  big = { ...(await g.libraryFile(teamA, { file: join(inputs.path, 'big photo.png') })), bytes: bigBytes };
  await writeImage(join(inputs.path, 'small.jpg'), { width: 100, height: 50, colour: '#00ff00', format: 'jpeg' });
  small = await g.libraryFile(teamA, { file: join(inputs.path, 'small.jpg') });
  const bmpBytes = await writeBmp(join(inputs.path, 'legacy.bmp'), 3, 2);
  bmp = { ...(await g.libraryFile(teamA, { file: join(inputs.path, 'legacy.bmp') })), bytes: bmpBytes };
  await writeFile(join(inputs.path, 'notes.txt'), 'hello\n');
  text = await g.libraryFile(teamA, { file: join(inputs.path, 'notes.txt') });
  await writeImage(join(inputs.path, 'b.png'), { width: 64, height: 64, colour: '#0000ff', format: 'png' });
  ofB = await g.libraryFile(teamB, { file: join(inputs.path, 'b.png') });
});
afterAll(async () => {
  await env.close();
  await storage.remove();
  await inputs.remove();
});

async function media(team: GivenTeam, fileId: number, role: Role = 'manage') {
  const ctx = await g.ctx(await g.key(team, role));
  return (await env.core.assets.library.mediaFor(ctx, [fileId])).get(fileId)!;
}

/** GET a link through the real app; the host part is ours (PUBLIC_BASE_URL), so only path and query are sent. */
async function fetchLink(url: string) {
  const parsed = new URL(url);
  const res = await env.app.inject({ method: 'GET', url: parsed.pathname + parsed.search });
  let body: any;
  try {
    body = res.json();
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, body };
}

const farFuture = () => Math.floor(Date.now() / 1000) + 600;
const link = (teamId: number, fileId: number, purpose: 'preview' | 'preview-original' | 'download', exp = farFuture()) =>
  env.core.assets.links.sign({ teamId, fileId, purpose }, exp);

describe('GET /files/... preview links', () => {
  it('serves a derived WebP preview at most 512 px on the long side, not the original bytes', async () => {
    const res = await fetchLink((await media(teamA, big.id)).previewUrl!);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(Number(res.headers['content-length'])).toBe(res.bytes.length);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 512, 341]);
    expect(res.bytes.equals(big.bytes)).toBe(false);
    // still the source's red (lossy WebP may move a channel by a few levels)
    const { data } = await sharp(res.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(245);
    expect(data[1]).toBeLessThan(10);
    expect(data[2]).toBeLessThan(10);
  });

  it('never upscales a small image', async () => {
    const res = await fetchLink((await media(teamA, small.id)).previewUrl!);
    const meta = await sharp(res.bytes).metadata();
    expect([res.status, meta.format, meta.width, meta.height]).toEqual([200, 'webp', 100, 50]);
  });

  it('may be cached privately until the link expires, and sends no-sniff and sandbox headers', async () => {
    const url = (await media(teamA, small.id)).previewUrl!;
    const res = await fetchLink(url);
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))![1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(Number(new URL(url).searchParams.get('exp')) - Math.floor(Date.now() / 1000) + 1);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('derives a preview once for concurrent first requests and caches it in storage', async () => {
    await writeImage(join(inputs.path, 'fresh.png'), { width: 900, height: 300, colour: '#336699', format: 'png' });
    const fresh = await g.libraryFile(teamA, { file: join(inputs.path, 'fresh.png') });
    const url = (await media(teamA, fresh.id)).previewUrl!;
    const before = env.core.assets.previews.derivations;
    const responses = await Promise.all([1, 2, 3, 4, 5, 6].map(() => fetchLink(url)));
    expect(env.core.assets.previews.derivations - before).toBe(1);
    for (const res of responses) {
      expect(res.status).toBe(200);
      expect(res.bytes.equals(responses[0]!.bytes)).toBe(true);
    }
    await fetchLink(url);
    expect(env.core.assets.previews.derivations - before).toBe(1);
    const [object] = await env.orm.em.fork().execute<{ sha256: string }[]>('select sha256 from stored_objects where id = ?', [fresh.assetId]);
    const key = previewKey(object!.sha256);
    expect(await readFile(join(storage.path, key))).toEqual(responses[0]!.bytes);
    const siblings = await readdir(join(storage.path, key, '..'));
    expect(siblings.filter((name) => name.includes(object!.sha256))).toEqual([`${object!.sha256}.webp`]);
  });

  it('answers 500, not 404, when the stored bytes cannot be read: a failure of the service, not of the image', async () => {
    await writeImage(join(inputs.path, 'unreadable.png'), { width: 700, height: 300, colour: '#994411', format: 'png' });
    const file = await g.libraryFile(teamA, { file: join(inputs.path, 'unreadable.png') });
    const [object] = await env.orm.em.fork().execute<{ storage_key: string }[]>('select storage_key from stored_objects where id = ?', [file.assetId]);
    // the object's path becomes a directory: it still exists, but reading it fails (EISDIR)
    const path = join(storage.path, object!.storage_key);
    await rm(path);
    await mkdir(path);
    const res = await fetchLink((await media(teamA, file.id)).previewUrl!);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false });
  });

  it('serves the original image for 300 s when sharp cannot derive a preview (BMP)', async () => {
    const url = (await media(teamA, bmp.id)).previewUrl!;
    expect(new URL(url).pathname).toMatch(/\/preview-original$/);
    const res = await fetchLink(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/bmp');
    expect(res.bytes.equals(bmp.bytes)).toBe(true);
  });

  it('gives 404 for a validly signed preview of a file that is not an image', async () => {
    for (const purpose of ['preview', 'preview-original'] as const) {
      const res = await fetchLink(link(teamA.teamId, text.id, purpose));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    }
  });
});

describe('GET /files/... download links', () => {
  it('streams the original bytes as an attachment with the MIME type read from the content', async () => {
    const res = await fetchLink((await media(teamA, big.id, 'usable')).downloadUrl!);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(big.bytes)).toBe(true);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Number(res.headers['content-length'])).toBe(big.bytes.length);
    expect(res.headers['content-disposition']).toBe('attachment; filename="big photo.png"');
    expect(res.headers['cache-control']).toMatch(/^private, max-age=([1-9]|[1-9]\d|[12]\d\d|300)$/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const url = new URL(link(teamA.teamId, big.id, 'download'));
    const res = await env.app.inject({ method: 'HEAD', url: url.pathname + url.search });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Number(res.headers['content-length'])).toBe(big.bytes.length);
    expect(res.rawPayload.length).toBe(0);
  });

  it('names a non-ASCII file safely in Content-Disposition', async () => {
    await writeImage(join(inputs.path, 'x.png'), { width: 2, height: 2, colour: '#000000', format: 'png' });
    const made = await g.libraryFile(teamA, { file: join(inputs.path, 'x.png'), name: 'Grüße "neu".png' });
    const res = await fetchLink(link(teamA.teamId, made.id, 'download'));
    expect(res.headers['content-disposition']).toBe(`attachment; filename="Gr__e \\"neu\\".png"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22neu%22.png`);
  });
});

describe('GET /files/... refused links', () => {
  const expectRefused = (res: { status: number; body: any; headers: Record<string, unknown> }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, data: null, code });
    expect(res.headers['cache-control']).toBe('no-store');
  };

  it('refuses an expired link with 410 link_expired', async () => {
    const res = await fetchLink(link(teamA.teamId, big.id, 'download', Math.floor(Date.now() / 1000) - 1));
    expectRefused(res, 410, 'link_expired');
  });

  it('refuses an altered signature with 403 forbidden', async () => {
    const url = new URL(link(teamA.teamId, big.id, 'download'));
    const sig = url.searchParams.get('sig')!;
    for (const altered of [`${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`, `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`, '', 'x'.repeat(43)]) {
      url.searchParams.set('sig', altered);
      expectRefused(await fetchLink(url.toString()), 403, 'forbidden');
    }
    url.searchParams.delete('sig');
    expectRefused(await fetchLink(url.toString()), 403, 'forbidden');
  });

  it('refuses a link whose file, team or expiry was changed with 403 forbidden', async () => {
    const url = new URL(link(teamA.teamId, big.id, 'download'));
    const query = url.search;
    const exp = Number(url.searchParams.get('exp'));
    expectRefused(await fetchLink(`http://h/files/${teamA.teamId}/${small.id}/download${query}`), 403, 'forbidden');
    expectRefused(await fetchLink(`http://h/files/${teamB.teamId}/${big.id}/download${query}`), 403, 'forbidden');
    expectRefused(await fetchLink(`http://h${url.pathname}?exp=${exp + 3600}&sig=${url.searchParams.get('sig')}`), 403, 'forbidden');
    expectRefused(await fetchLink(`http://h/files/0${teamA.teamId}/${big.id}/download${query}`), 403, 'forbidden');
  });

  it('refuses a link used for another purpose with 403 forbidden', async () => {
    const preview = new URL(link(teamA.teamId, big.id, 'preview'));
    for (const purpose of ['download', 'preview-original', 'original']) {
      expectRefused(await fetchLink(`http://h/files/${teamA.teamId}/${big.id}/${purpose}${preview.search}`), 403, 'forbidden');
    }
  });

  it('checks the signature before the expiry, so an altered expired link is 403', async () => {
    const url = new URL(link(teamA.teamId, big.id, 'download', Math.floor(Date.now() / 1000) - 10));
    url.searchParams.set('sig', 'A'.repeat(43));
    expectRefused(await fetchLink(url.toString()), 403, 'forbidden');
  });

  it("cannot reach another team's file even with a validly signed link naming it under another team", async () => {
    for (const purpose of ['preview', 'preview-original', 'download'] as const) {
      expectRefused(await fetchLink(link(teamA.teamId, ofB.id, purpose)), 404, 'not_found');
    }
    expect((await fetchLink(link(teamB.teamId, ofB.id, 'download'))).status).toBe(200);
  });

  it('gives 404 once the file is deleted', async () => {
    await writeImage(join(inputs.path, 'del.png'), { width: 2, height: 3, colour: '#ff00ff', format: 'png' });
    const made = await g.libraryFile(teamA, { file: join(inputs.path, 'del.png') });
    const url = link(teamA.teamId, made.id, 'download');
    expect((await fetchLink(url)).status).toBe(200);
    await env.orm.em.fork().execute('update library_files set deleted_at = now() where id = ?', [made.id]);
    expectRefused(await fetchLink(url), 404, 'not_found');
  });

  it('needs no Authorization header and ignores one', async () => {
    const url = new URL(link(teamA.teamId, small.id, 'download'));
    const res = await env.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { authorization: 'Bearer nonsense' } });
    expect(res.statusCode).toBe(200);
  });
});
