import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativeVariant, parseDerivativeVariant, resolveRecipe } from '../../src/core/assets/delivery/derivatives.ts';
import { deltaE, hexToLab, paletteOfPixels } from '../../src/core/assets/search/colour.ts';
import { libraryVersionOf } from '../../src/core/assets/search/library-versions.queries.ts';
import { hashSharePassword, verifySharePassword } from '../../src/core/assets/shares/share-secrets.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { countingApp } from '../support/query-counter.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let viewer: Ctx;
let editor: Ctx;

beforeAll(async () => {
  storage = await tempDir('search-storage');
  inputs = await tempDir('core-inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  viewer = await given(env).ctx(lib.keyA);
  editor = await given(env).ctx(await given(env).key(lib.teamA, 'manage'));
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
  await inputs.remove();
});

const version = async () => libraryVersionOf({ em: env.orm.em.fork(), teamId: lib.teamA.teamId });

describe('exact totals and their memo (docs/search.md)', () => {
  it('counts a search once and reuses the total for its other pages', async () => {
    const memo = env.core.assets.searchTotals;
    const misses = memo.misses;
    const first = await env.core.assets.assetSearch.search(viewer, { extensions: ['png'], startPoint: 0, endPoint: 1 });
    const second = await env.core.assets.assetSearch.search(viewer, { extensions: ['png'], startPoint: 1, endPoint: 2 });
    expect([first.total, second.total]).toEqual([3, 3]);
    expect(memo.misses - misses).toBe(1);
    expect(memo.hits).toBeGreaterThan(0);
  });

  it('returns the same pages when a known total makes the page collect its matches instead of walking a sort index', async () => {
    const memo = env.core.assets.searchTotals;
    for (const sortName of ['CREATE_TIME', 'UPDATE_TIME', 'NAME', 'DURATION', 'SIZE', 'SCORE']) {
      for (const sortType of ['ASC', 'DESC']) {
        const pages = async () => {
          const ids = [];
          for (let start = 0; start < 12; start += 3) {
            ids.push(
              ...(
                await env.core.assets.assetSearch.search(viewer, { hasDesc: false, sort: { sortName, sortType }, startPoint: start, endPoint: start + 3 })
              ).assets.map((a) => a.id),
            );
          }
          return ids;
        };
        memo.enabled = false;
        const walked = await pages();
        memo.enabled = true;
        await env.core.assets.assetSearch.search(viewer, { hasDesc: false, startPoint: 0, endPoint: 0 }); // the total is known from here on
        const collected = await pages();
        expect(walked.length).toBeGreaterThan(3);
        expect(collected).toEqual(walked);
      }
    }
  });

  it('raises the library version once per committed change, so a total is never stale', async () => {
    const before = await env.core.assets.assetSearch.search(viewer, { extensions: ['png'] });
    const v0 = await version();
    await writeImage(join(inputs.path, 'more.png'), { width: 20, height: 20, colour: '#123456', format: 'png' });
    const made = await given(env).libraryFile(lib.teamA, { file: join(inputs.path, 'more.png'), folder: '/more/deep', tags: ['a', 'b', 'c'] });
    // one import (folders, object, palette, file, tags) is one transaction: one step
    expect(BigInt(await version())).toBe(BigInt(v0) + 1n);
    expect((await env.core.assets.assetSearch.search(viewer, { extensions: ['png'] })).total).toBe(before.total + 1);
    await env.core.assets.recycleBin.deleteFile(editor, made.id);
    expect((await env.core.assets.assetSearch.search(viewer, { extensions: ['png'] })).total).toBe(before.total);
  });

  it('sees tag changes, moves and folder access changes in the next total', async () => {
    const tagged = () => env.core.assets.assetSearch.search(viewer, { tags: [lib.tags.cold] });
    expect((await tagged()).total).toBe(1);
    await env.core.assets.libraryEdit.updateFile(editor, lib.files['clip.wav']!, { tags: ['cold'] });
    expect((await tagged()).total).toBe(2);
    const inPhotos = () => env.core.assets.assetSearch.search(viewer, { parentId: lib.folders['/photos'] });
    const photos = (await inPhotos()).total;
    await env.core.assets.libraryEdit.moveFile(editor, lib.files['clip.wav']!, { folderId: lib.folders['/photos'] });
    expect((await inPhotos()).total).toBe(photos + 1);
    const access = () => env.core.assets.assetSearch.search(viewer, { currentUserId: lib.bob });
    const owned = (await access()).total;
    await env.core.assets.folderEdit.addMember(editor, { folderId: lib.folders['/media'], userId: lib.bob });
    expect((await access()).total).toBe(owned + 1);
  });

  it("keeps each file's tag ids (tags searches) and its search text's creation time in step with the library (triggers)", async () => {
    const em = () => env.orm.em.fork();
    const tagIdsOf = async (fileId: number) =>
      (
        await em().execute<{ onFile: number[]; fromTags: number[] }[]>(
          `select f.tag_ids as "onFile", coalesce((select array_agg(ft.tag_id order by ft.tag_id) from library_file_tags ft where ft.file_id = f.id), '{}') as "fromTags"
           from library_files f where f.id = ?`,
          [fileId],
        )
      )[0]!;
    const file = lib.files['blue.jpg']!;
    await env.core.assets.libraryEdit.updateFile(editor, file, { tags: ['warm', 'sale', 'fresh'] });
    const three = await tagIdsOf(file);
    expect(three.fromTags).toHaveLength(3);
    expect(three.onFile).toEqual(three.fromTags);
    expect((await env.core.assets.assetSearch.search(viewer, { tags: three.fromTags })).assets.map((a) => a.id)).toContain(file);
    await env.core.assets.libraryEdit.updateFile(editor, file, { tags: [] });
    expect(await tagIdsOf(file)).toEqual({ onFile: [], fromTags: [] });
    expect((await env.core.assets.assetSearch.search(viewer, { tags: three.fromTags, tagOrAnd: false })).assets.map((a) => a.id)).not.toContain(file);
    const [drift] = await em().execute<{ n: string }[]>(
      `select count(*) as n from library_files f left join library_search_texts s on s.file_id = f.id
        where f.deleted_at is null and (s.created_at is distinct from f.created_at)`,
    );
    expect(drift!.n).toBe('0');
  });

  it('does not raise the version of another team', async () => {
    const [b0] = await env.orm.em
      .fork()
      .execute<{ v: string }[]>('select coalesce(max(version), 0)::text as v from library_versions where team_id = ?', [lib.teamB.teamId]);
    await env.core.assets.libraryEdit.updateFile(editor, lib.files['notes.txt']!, { score: 2 });
    const [b1] = await env.orm.em
      .fork()
      .execute<{ v: string }[]>('select coalesce(max(version), 0)::text as v from library_versions where team_id = ?', [lib.teamB.teamId]);
    expect(b1!.v).toBe(b0!.v);
  });
});

describe('round trips of a search (docs/search.md)', () => {
  it('reads the version, checks parentId and currentUserId and finds a small subtree in one statement before the page', async () => {
    const counting = await countingApp(env);
    try {
      const search = async (body: Record<string, unknown>) => {
        counting.statements.length = 0;
        const res = await counting.app.inject({
          method: 'POST',
          url: '/open/search-assets',
          headers: { authorization: `Bearer ${lib.keyA.key}` },
          payload: body,
        });
        expect(res.statusCode, res.body).toBe(200);
        return counting.statements;
      };
      const body = { parentId: lib.folders['/photos'], currentUserId: lib.ann, startPoint: 1, endPoint: 2 };
      // authentication, preamble, then the page (its ids, their size admitted against the answer's memory
      // budget, then their rows) and the count: the subtree's folders come with the preamble
      const first = await search(body);
      expect(first).toHaveLength(6);
      expect(first[1]).toMatch(/library_versions.*library_folders p.*members m.*path_ids @>/s);
      // the next page knows its total: authentication, preamble, the page's ids, their size and rows
      expect(await search({ ...body, startPoint: 0, endPoint: 1 })).toHaveLength(5);
      // past the known total, no page either
      expect(await search({ ...body, startPoint: 50, endPoint: 60 })).toHaveLength(2);
    } finally {
      await counting.close();
    }
  });
});

describe('colour arithmetic', () => {
  it('converts sRGB to CIELAB (D65): white is L 100, black L 0, pure red about (53.2, 80.1, 67.2)', () => {
    expect(hexToLab('ffffff').l).toBeCloseTo(100, 1);
    expect(hexToLab('000000').l).toBeCloseTo(0, 1);
    const red = hexToLab('#FF0000');
    expect([red.l, red.a, red.b].map((v) => Math.round(v * 10) / 10)).toEqual([53.2, 80.1, 67.2]);
  });

  it('measures ΔE*ab (CIE76) as the Euclidean distance in CIELAB', () => {
    expect(deltaE({ l: 50, a: 0, b: 0 }, { l: 53, a: 4, b: 0 })).toBe(5);
  });

  it('gives each cluster its share of the opaque pixels, largest first', () => {
    // 3 red, 1 blue, 1 transparent
    const pixels = Buffer.from([255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255, 9, 9, 9, 0]);
    expect(paletteOfPixels(pixels, 4).map((c) => [c.rgb, c.share])).toEqual([
      ['ff0000', 75],
      ['0000ff', 25],
    ]);
  });

  it('merges colours closer than ΔE 12 into one cluster', () => {
    const pixels = Buffer.from([255, 0, 0, 255, 250, 5, 5, 255]);
    expect(paletteOfPixels(pixels, 4)).toHaveLength(1);
  });
});

describe('processed-image recipes', () => {
  it('writes and parses the signed variant text canonically', () => {
    const request = { w: 800, h: 600, mode: 'crop' as const, q: 70, f: 'webp' as const, bg: 'ffffff' };
    expect(derivativeVariant(request)).toBe('w800-h600-crop-q70-fwebp-bgffffff');
    expect(parseDerivativeVariant('w800-h600-crop-q70-fwebp-bgffffff')).toEqual(request);
    expect(derivativeVariant({ h: 10 })).toBe('h10-fit');
    expect(parseDerivativeVariant('w0-fit')).toBeNull();
    expect(parseDerivativeVariant('w100-stretch')).toBeNull();
  });

  it('clamps sizes to the original (never upscales) and picks format, quality and background defaults', () => {
    expect(resolveRecipe({ w: 5000, h: 100 }, { mimeType: 'image/png', width: 400, height: 300 })).toEqual({
      width: 400,
      height: 100,
      mode: 'fit',
      format: 'png',
      quality: 80,
      background: undefined,
    });
    expect(resolveRecipe({ f: 'jpg' }, { mimeType: 'image/png', width: 4, height: 3 })).toMatchObject({ format: 'jpg', background: 'ffffff' });
    expect(resolveRecipe({}, { mimeType: 'image/gif', width: 4, height: 3 })).toMatchObject({ format: 'webp' });
  });
});

describe('share passwords', () => {
  it('hashes with a fresh salt and verifies only the same password', async () => {
    const a = await hashSharePassword('pässword');
    const b = await hashSharePassword('pässword');
    expect(a).not.toBe(b);
    expect(await verifySharePassword('pässword', a)).toBe(true);
    expect(await verifySharePassword('pa\u0308ssword', a)).toBe(true);
    expect(await verifySharePassword('password', a)).toBe(false);
    expect(await verifySharePassword('pässword', 'md5$x')).toBe(false);
  });
});

describe('library edits answer the committed item', () => {
  it('answers updateFile and moveFile with the file as their transaction left it, as search then shows it', async () => {
    // team B's file: its edits change none of team A's totals the tests above rely on
    const editorB = await given(env).ctx(await given(env).key(lib.teamB, 'editable'));
    const updated = await env.core.assets.libraryEdit.updateFile(editorB, lib.fileOfB, {
      name: 'renamed.png',
      description: 'Edited in one transaction',
      tags: ['warm', 'fresh'],
    });
    expect(updated).toMatchObject({ id: lib.fileOfB, name: 'renamed.png', description: 'Edited in one transaction', parentIds: [lib.folderOfB] });
    // the one result every adapter projects carries the file's tags, read with its row
    expect(updated.tags.map((tag) => tag.name)).toEqual(['fresh', 'warm']);
    const [shown] = await env.core.assets.assetSearch.findItems(editorB, [lib.fileOfB]);
    // signed links carry their own expiry, so they differ by the time between the two reads
    const unsigned = ({ downloadUrl: _d, thumbnailAccessUrl: _t, publicUrl: _p, ...rest }: typeof updated) => rest;
    expect(unsigned(updated)).toEqual(unsigned(shown!));
    const moved = await env.core.assets.libraryEdit.moveFile(editorB, lib.fileOfB, { folderId: null });
    expect(moved).toMatchObject({ id: lib.fileOfB, name: 'renamed.png', parentIds: [] });
  });
});
