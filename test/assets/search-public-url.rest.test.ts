import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativeKey, resolveRecipe } from '../../src/core/assets/delivery/derivatives.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir, writeBmp } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  storage = await tempDir('search-storage');
  inputs = await tempDir('public-url-inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  // a 40x40 PNG whose left half is transparent, and a BMP (an image sharp cannot decode)
  const pixels = Buffer.alloc(40 * 40 * 4);
  for (let i = 0; i < 40 * 40; i++) if (i % 40 >= 20) pixels.set([0, 0, 255, 255], i * 4);
  await sharp(pixels, { raw: { width: 40, height: 40, channels: 4 } })
    .png()
    .toFile(join(inputs.path, 'glass.png'));
  await writeBmp(join(inputs.path, 'old.bmp'), 4, 4);
  const g = given(env);
  lib.files['glass.png'] = (await g.libraryFile(lib.teamA, { file: join(inputs.path, 'glass.png'), folder: '/extra' })).id;
  lib.files['old.bmp'] = (await g.libraryFile(lib.teamA, { file: join(inputs.path, 'old.bmp'), folder: '/extra' })).id;
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
  await inputs.remove();
});

/** publicUrl of each named file for a search with these processing parameters. */
async function publicUrls(params: Record<string, unknown>, key = lib.keyA.key): Promise<Record<string, string>> {
  const res = await send(env, { method: 'POST', url: '/open/search-assets', key, body: { endPoint: 100, ...params } });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries(res.body.result.assets.map((a: { name: string; publicUrl: string }) => [a.name, a.publicUrl]));
}

async function fetchLink(url: string) {
  const parsed = new URL(url);
  const res = await env.app.inject({ method: 'GET', url: parsed.pathname + parsed.search });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, body: res.statusCode === 200 ? undefined : res.json() };
}

async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

describe('search-assets publicUrl', () => {
  it('is empty for every result without processing parameters', async () => {
    const urls = await publicUrls({});
    expect(Object.values(urls).every((url) => url === '')).toBe(true);
  });

  it('is a signed derived link for decodable images, and empty for other files and undecodable images', async () => {
    const urls = await publicUrls({ w: 100 });
    expect(urls['blue.jpg']).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:8080/files/${lib.teamA.teamId}/${lib.files['blue.jpg']}/derived\\?v=w100-fit&exp=\\d+&sig=[\\w-]{43}$`),
    );
    expect(urls['notes.txt']).toBe('');
    expect(urls['clip.wav']).toBe('');
    expect(urls['old.bmp']).toBe('');
  });

  it('expires after 3600 s, and never after the API key', async () => {
    const before = Math.floor(Date.now() / 1000);
    const exp = Number(new URL((await publicUrls({ w: 50 }))['red.png']!).searchParams.get('exp'));
    expect(exp).toBeGreaterThanOrEqual(before + 3600);
    expect(exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600);
    const soon = new Date(Date.now() + 120_000).toISOString();
    const short = await given(env).key(lib.teamA, 'view_only', soon);
    const shortExp = Number(new URL((await publicUrls({ w: 50 }, short.key))['red.png']!).searchParams.get('exp'));
    expect(shortExp).toBe(Math.floor(Date.parse(soon) / 1000));
  });

  it('w (fit, the default) scales inside the box keeping the aspect ratio, in the original format', async () => {
    const res = await fetchLink((await publicUrls({ w: 100 }))['blue.jpg']!);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 100, 67]);
  });

  it('never upscales: sizes above the original have no effect', async () => {
    const res = await fetchLink((await publicUrls({ w: 6000, h: 6000 }))['red.png']!);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 400, 300]);
  });

  it('mode crop covers w x h and crops the centre', async () => {
    const res = await fetchLink((await publicUrls({ w: 50, h: 50, mode: 'crop' }))['blue.jpg']!);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([50, 50]);
    const [r, g, b] = await pixelAt(res.bytes, 25, 25);
    expect(b).toBeGreaterThan(200);
    expect(r! + g!).toBeLessThan(40);
  });

  it('f chooses the format (jpg, png, webp) and q the quality', async () => {
    for (const [f, mime, format] of [
      ['webp', 'image/webp', 'webp'],
      ['png', 'image/png', 'png'],
      ['jpg', 'image/jpeg', 'jpeg'],
    ] as const) {
      const res = await fetchLink((await publicUrls({ w: 200, f }))['red.png']!);
      expect(res.headers['content-type']).toBe(mime);
      expect((await sharp(res.bytes).metadata()).format).toBe(format);
    }
    // a busy image shows the quality: blue.jpg is flat, so use a noisy one
    const noisy = join(inputs.path, 'noise.jpg');
    await sharp({ create: { width: 300, height: 300, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .jpeg({ quality: 95 })
      .toFile(noisy);
    await given(env).libraryFile(lib.teamA, { file: noisy, folder: '/extra' });
    const low = await fetchLink((await publicUrls({ q: 10 }))['noise.jpg']!);
    const high = await fetchLink((await publicUrls({ q: 90 }))['noise.jpg']!);
    expect(low.bytes.length).toBeLessThan(high.bytes.length / 2);
  });

  it('bg flattens transparency onto the colour; JPEG output defaults to white', async () => {
    const onRed = await fetchLink((await publicUrls({ f: 'png', bg: 'FF0000' }))['glass.png']!);
    expect(await pixelAt(onRed.bytes, 5, 20)).toEqual([255, 0, 0]);
    expect(await pixelAt(onRed.bytes, 35, 20)).toEqual([0, 0, 255]);
    const jpeg = await fetchLink((await publicUrls({ f: 'jpg' }))['glass.png']!);
    const [r, g, b] = await pixelAt(jpeg.bytes, 5, 20);
    expect(Math.min(r!, g!, b!)).toBeGreaterThan(245);
  });

  it('makes a derivative once for concurrent first requests and then serves it from storage', async () => {
    const url = (await publicUrls({ w: 321, f: 'webp', q: 55 }))['blue.jpg']!;
    const before = env.core.assets.derivatives.derivations;
    const responses = await Promise.all([1, 2, 3, 4, 5, 6].map(() => fetchLink(url)));
    expect(env.core.assets.derivatives.derivations - before).toBe(1);
    for (const res of responses) expect(res.bytes.equals(responses[0]!.bytes)).toBe(true);
    await fetchLink(url);
    expect(env.core.assets.derivatives.derivations - before).toBe(1);
    const [object] = await env.orm.em
      .fork()
      .execute<{ sha256: string }[]>('select o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?', [
        lib.files['blue.jpg'],
      ]);
    const key = derivativeKey(object!.sha256, resolveRecipe({ w: 321, f: 'webp', q: 55 }, { mimeType: 'image/jpeg', width: 1200, height: 800 }));
    expect(await readFile(join(storage.path, key))).toEqual(responses[0]!.bytes);
  });

  it('signs the recipe: a link whose parameters were changed is 403 forbidden', async () => {
    const url = new URL((await publicUrls({ w: 100 }))['blue.jpg']!);
    url.searchParams.set('v', 'w1000-fit');
    const res = await fetchLink(url.toString());
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    const other = new URL((await publicUrls({ w: 100 }))['blue.jpg']!);
    other.searchParams.delete('v');
    expect((await fetchLink(other.toString())).status).toBe(403);
  });

  it('is 404 once the file is deleted', async () => {
    const url = (await publicUrls({ w: 77 }))['red.png']!;
    const editor = await given(env).ctx(await given(env).key(lib.teamA, 'editable'));
    await env.core.assets.recycleBin.deleteFile(editor, lib.files['red.png']!);
    expect((await fetchLink(url)).status).toBe(404);
  });
});
