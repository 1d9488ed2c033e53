import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookupAssets } from '../../src/core/assets/files/asset-lookup.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  storage = await tempDir('lookup-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
});

const lookup = (query: string, key = lib.keyA.key) => send(env, { url: `/v1/assets${query}`, key });
const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((a) => a.name);

describe('GET /v1/assets (asset lookup, spec 2.1)', () => {
  it('finds files by a case-insensitive name substring, with the ids product media take', async () => {
    const res = await lookup('?name=RED');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.body.data).toEqual([
      {
        id: lib.files['red.png'],
        assetId: expect.any(Number),
        name: 'red.png',
        folderPath: '/photos/summer',
        mimeType: 'image/png',
        size: expect.stringMatching(/^\d+$/),
        width: 400,
        height: 300,
        duration: null,
        previewUrl: expect.stringContaining('/files/'),
      },
    ]);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 20, totalCount: 1, totalPages: 1 });
  });

  it('finds the files of a folder, and of its subtree with recursive=true; "/" is the root', async () => {
    expect(names(await lookup('?folder=/photos')).sort()).toEqual(['half-green.png', 'logo.webp']);
    expect(names(await lookup('?folder=/photos&recursive=true')).sort()).toEqual(['blue.jpg', 'half-green.png', 'logo.webp', 'red.png']);
    expect(names(await lookup('?folder=/'))).toEqual(['root.png']);
    expect((await lookup('?folder=/nowhere')).body).toMatchObject({ data: [], pagination: { totalCount: 0 } });
  });

  it('finds files by extension (with or without the dot), by content hash and by ids, combining filters with AND', async () => {
    expect(names(await lookup('?extension=.WAV')).sort()).toEqual(['clip.wav', 'long.wav']);
    const [row] = await env.orm.em
      .fork()
      .execute<{ sha256: string }[]>('select o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?', [
        lib.files['notes.txt'],
      ]);
    expect(names(await lookup(`?sha256=${row!.sha256.toUpperCase()}`))).toEqual(['notes.txt']);
    expect(names(await lookup(`?ids=${lib.files['clip.wav']},${lib.files['root.png']}`)).sort()).toEqual(['clip.wav', 'root.png']);
    expect(names(await lookup(`?ids=${lib.files['clip.wav']},${lib.files['root.png']}&extension=png`))).toEqual(['root.png']);
  });

  it('pages by id with at most 100 per page', async () => {
    const first = await lookup('?pageSize=3');
    const second = await lookup('?pageSize=3&page=2');
    expect(first.body.pagination).toEqual({ page: 1, pageSize: 3, totalCount: 8, totalPages: 3 });
    const ids = [...first.body.data, ...second.body.data].map((a: { id: number }) => a.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect((await lookup('?pageSize=500')).body.pagination.pageSize).toBe(100);
  });

  it.each([
    ['a malformed sha256', '?sha256=abc', 'sha256'],
    ['ids that are not ids', '?ids=1,x', 'ids'],
    ['an id past 2147483647 (an int column: it used to fail the cast as a 500)', '?ids=1,2147483648', 'ids'],
    ['an extension with a slash', '?extension=a/b', 'extension'],
    ['page 0', '?page=0', 'page'],
  ])('refuses %s with 422 validation_failed naming it', async (_what, query, field) => {
    const res = await lookup(query);
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it("never shows another team's files, even by their ids", async () => {
    const res = await lookup(`?ids=${lib.fileOfB}`);
    expect(res.body.data).toEqual([]);
    expect(names(await lookup('', lib.keyB.key))).toHaveLength(1);
  });

  it('counts a lookup once per library version: pages and repeats reuse the total, and a change to the library counts again', async () => {
    const memo = env.core.assets.searchTotals;
    const misses = memo.misses;
    const first = await lookup('?extension=png&pageSize=1');
    const second = await lookup('?extension=png&pageSize=1&page=2');
    expect(second.body.pagination.totalCount).toBe(first.body.pagination.totalCount);
    expect(memo.misses).toBe(misses + 1);
    const dir = await tempDir('lookup-new');
    try {
      await writeImage(join(dir.path, 'new.png'), { width: 8, height: 8, colour: '#123456', format: 'png' });
      await given(env).libraryFile(lib.teamA, { file: join(dir.path, 'new.png') });
    } finally {
      await dir.remove();
    }
    const after = await lookup('?extension=png&pageSize=1');
    expect(after.body.pagination.totalCount).toBe(first.body.pagination.totalCount + 1);
    expect(memo.misses).toBe(misses + 2);
  });

  it('answers a name alone the same whether its page is read from the narrow name table (few matches) or by walking the files (many)', async () => {
    const ctx = await given(env).ctx(lib.keyA);
    for (const name of ['e', '.png', 'red', 'no-such-name']) {
      for (const pageSize of [1, 2, 100]) {
        const query = { name, pageSize, page: 2 };
        const viaNarrow = await lookupAssets(ctx, env.core.assets.library, null, query, Number.MAX_SAFE_INTEGER);
        const viaWalk = await lookupAssets(ctx, env.core.assets.library, null, query, 0);
        const ids = (page: typeof viaNarrow) => page.items.map((item) => item.id);
        expect(ids(viaNarrow), `${name} ${pageSize}`).toEqual(ids(viaWalk));
        expect(viaNarrow.pagination).toEqual(viaWalk.pagination);
      }
    }
    // the fixture holds names of both kinds, so both plans were really compared on matches
    expect((await lookupAssets(ctx, env.core.assets.library, null, { name: 'e' }, 0)).pagination.totalCount).toBeGreaterThan(3);
  });

  it('keeps the narrow name table to the live files and their current names through renames, deletions and restores (trigger)', async () => {
    const editor = await given(env).ctx(await given(env).key(lib.teamA, 'manage'));
    const drift = async () => {
      const [row] = await env.orm.em.fork().execute<{ n: number }[]>(
        `select count(*)::int as n from (
           (select id, team_id, lower(name) from library_files where deleted_at is null except select file_id, team_id, lname from library_file_names)
           union all
           (select file_id, team_id, lname from library_file_names except select id, team_id, lower(name) from library_files where deleted_at is null)
         ) d`,
      );
      return row!.n;
    };
    expect(await drift()).toBe(0);
    const file = lib.files['long.wav']!;
    await env.core.assets.libraryEdit.updateFile(editor, file, { name: 'Renamed-Longplay.WAV' });
    expect(names(await lookup('?name=longplay'))).toEqual(['Renamed-Longplay.WAV']);
    expect(await drift()).toBe(0);
    const { recycleEntryId } = await env.core.assets.recycleBin.deleteFile(editor, file);
    expect(names(await lookup('?name=longplay'))).toEqual([]);
    expect(await drift()).toBe(0);
    await env.core.assets.recycleBin.restore(editor, { ids: [recycleEntryId] });
    expect(names(await lookup('?name=longplay'))).toEqual(['Renamed-Longplay.WAV']);
    expect(await drift()).toBe(0);
  });

  it('refuses a request without a key with 401', async () => {
    expect((await send(env, { url: '/v1/assets' })).status).toBe(401);
  });
});
