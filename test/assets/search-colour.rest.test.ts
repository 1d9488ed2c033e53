import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deltaE, extractPalette, hexToLab } from '../../src/core/assets/search/colour.ts';
import { COLOUR_IDS_MAX } from '../../src/core/assets/search/search.queries.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;

/** Vertical bands of colour, each `percent` of the width, the rest white. */
async function bands(path: string, parts: Array<{ colour: string; percent: number }>): Promise<void> {
  const width = 200;
  const height = 50;
  let left = 0;
  const layers = [];
  for (const part of parts) {
    const w = Math.round((width * part.percent) / 100);
    layers.push({
      input: await sharp({ create: { width: w, height, channels: 3, background: part.colour } })
        .png()
        .toBuffer(),
      left,
      top: 0,
    });
    left += w;
  }
  await writeFile(
    path,
    await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
      .composite(layers)
      .png()
      .toBuffer(),
  );
}

beforeAll(async () => {
  storage = await tempDir('search-storage');
  inputs = await tempDir('colour-inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  // two reds 19 ΔE apart (more than the palette merges), 15 % each
  await bands(join(inputs.path, 'two-reds.png'), [
    { colour: '#ff0000', percent: 15 },
    { colour: '#cc0000', percent: 15 },
  ]);
  await given(env).libraryFile(lib.teamA, { file: join(inputs.path, 'two-reds.png'), folder: '/colours' });
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
  await inputs.remove();
});

async function namesOf(body: Record<string, unknown>, key = lib.keyA.key): Promise<string[]> {
  const res = await send(env, { method: 'POST', url: '/open/search-assets', key, body: { endPoint: 100, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.result.assets.map((a: { name: string }) => a.name).sort();
}

describe('palette extraction at import', () => {
  it("stores each image's dominant colours with their share of the area", async () => {
    const rows = await env.orm.em
      .fork()
      .execute<{ rgb: string; share: number }[]>(
        `select c.rgb, c.share from stored_object_colours c join library_files f on f.object_id = c.object_id where f.id = ? order by c.position`,
        [lib.files['half-green.png']],
      );
    expect(rows.map((r) => r.rgb)).toEqual(['00c000', 'ffffff']);
    expect(rows[0]!.share).toBeCloseTo(70, 0);
    expect(rows[1]!.share).toBeCloseTo(30, 0);
  });

  it('stores no palette for files that are not images', async () => {
    const rows = await env.orm.em
      .fork()
      .execute<{ n: string }[]>(
        `select count(*) as n from stored_object_colours c join library_files f on f.object_id = c.object_id where f.id = any(?::int[])`,
        [`{${lib.files['notes.txt']},${lib.files['clip.wav']}}`],
      );
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('ignores transparent pixels', async () => {
    // 40x40: the left half fully transparent black, the right half opaque blue
    const pixels = Buffer.alloc(40 * 40 * 4);
    for (let i = 0; i < 40 * 40; i++) if (i % 40 >= 20) pixels.set([0, 0, 255, 255], i * 4);
    const half = await sharp(pixels, { raw: { width: 40, height: 40, channels: 4 } })
      .png()
      .toBuffer();
    const palette = await extractPalette(half);
    expect(palette).toHaveLength(1);
    expect(palette[0]).toMatchObject({ rgb: '0000ff', share: 100 });
  });
});

// Both ways of applying a colour (search.queries.ts colourCondition): the matching objects' ids, and,
// when more objects match than COLOUR_IDS_MAX (lowered to 0 here), each file tested against its palette.
for (const [mode, idsMax] of [
  ['matching objects as ids', COLOUR_IDS_MAX],
  ['each file tested against its palette', 0],
] as const) {
  describe(`search-assets color (colour search): ${mode}`, () => {
    beforeAll(() => {
      env.core.assets.assetSearch.colourIdsMax = idsMax;
    });
    afterAll(() => {
      env.core.assets.assetSearch.colourIdsMax = COLOUR_IDS_MAX;
    });

    it("finds images containing the colour, ignoring case and an optional #, never another team's", async () => {
      expect(await namesOf({ color: 'FF0000' })).toEqual(['red.png', 'two-reds.png']);
      expect(await namesOf({ color: '#0000ff' })).toEqual(['blue.jpg']);
      expect(await namesOf({ color: 'ff0000' }, lib.keyB.key)).toEqual(['red.png']);
    });

    it('colorThreshold: a colour matches within that ΔE*ab distance (default 20)', async () => {
      // ee1111 is ΔE 10 from pure red, dd2222 ΔE 22.6
      expect(deltaE(hexToLab('ff0000'), hexToLab('dd2222'))).toBeGreaterThan(20);
      expect(await namesOf({ color: 'ee1111', areaThreshold: 50 })).toEqual(['red.png']);
      expect(await namesOf({ color: 'ee1111', colorThreshold: 5, areaThreshold: 50 })).toEqual([]);
      expect(await namesOf({ color: 'dd2222', areaThreshold: 50 })).toEqual([]);
      expect(await namesOf({ color: 'dd2222', colorThreshold: 25, areaThreshold: 50 })).toEqual(['red.png']);
    });

    it('areaThreshold: the matching colours must cover at least that percentage of the image (default 20)', async () => {
      expect(await namesOf({ color: '00c000', areaThreshold: 65 })).toEqual(['half-green.png']);
      expect(await namesOf({ color: '00c000', areaThreshold: 75 })).toEqual([]);
      expect(await namesOf({ color: 'ffffff' })).toEqual(['half-green.png', 'two-reds.png']);
      expect(await namesOf({ color: 'ffffff', areaThreshold: 40 })).toEqual(['two-reds.png']);
    });

    it('adds up every matching colour of an image towards the area', async () => {
      // e60000 is within ΔE 20 of both reds of two-reds.png (15 % each): together 30 %
      expect(await namesOf({ color: 'e60000', areaThreshold: 25, parentId: await folderId('/colours') })).toEqual(['two-reds.png']);
      expect(await namesOf({ color: 'e60000', areaThreshold: 35, parentId: await folderId('/colours') })).toEqual([]);
    });

    it('combines with the other filters', async () => {
      expect(await namesOf({ color: 'ff0000', extensions: ['png'], tags: [lib.tags.sale] })).toEqual(['red.png']);
    });
  });
}

async function folderId(path: string): Promise<number> {
  const rows = await env.orm.em.fork().execute<{ id: number }[]>('select id from library_folders where team_id = ? and path = ?', [lib.teamA.teamId, path]);
  return rows[0]!.id;
}
