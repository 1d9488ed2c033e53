import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECT_MAX_MATCHES } from '../../src/core/assets/search/search-pages.queries.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
/** The fixture files as the database holds them, for computing expected orders independently. */
let rows: Array<{ id: number; name: string; bytes: number; durationMs: number | null; score: number | null; createdUs: number; updatedUs: number }>;

beforeAll(async () => {
  storage = await tempDir('search-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  const editor = await given(env).ctx(await given(env).key(lib.teamA, 'editable'));
  // give two files the same score so the tie-breaker shows
  await env.core.assets.libraryEdit.updateFile(editor, lib.files['root.png']!, { score: 3 });
  await loadRows();
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
});

async function loadRows() {
  const raw = await env.orm.em.fork().execute<any[]>(
    `select id, name, byte_size::float8 as bytes, duration_ms::float8 as "durationMs", score,
            (extract(epoch from created_at) * 1e6)::float8 as "createdUs", (extract(epoch from updated_at) * 1e6)::float8 as "updatedUs"
       from library_files where team_id = ? and deleted_at is null`,
    [lib.teamA.teamId],
  );
  rows = raw;
}

async function idsOf(body: Record<string, unknown>): Promise<{ ids: number[]; total: number }> {
  const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body: { endPoint: 100, ...body } });
  expect(res.status, res.text).toBe(200);
  return { ids: res.body.result.assets.map((a: { id: number }) => a.id), total: res.body.result.total };
}

type Row = (typeof rows)[number];
/** Orders rows by a key (null lowest) then id, in one direction. */
function expected(key: (r: Row) => number | string | null, direction: 'ASC' | 'DESC'): number[] {
  const sign = direction === 'ASC' ? 1 : -1;
  const cmp = (a: Row, b: Row) => {
    const [x, y] = [key(a), key(b)];
    if (x !== y) {
      if (x === null) return -sign;
      if (y === null) return sign;
      return x < y ? -sign : sign;
    }
    return (a.id - b.id) * sign;
  };
  return [...rows].sort(cmp).map((r) => r.id);
}

const KEYS: Record<string, (r: Row) => number | string | null> = {
  CREATE_TIME: (r) => r.createdUs,
  UPDATE_TIME: (r) => r.updatedUs,
  NAME: (r) => r.name.toLowerCase(),
  DURATION: (r) => r.durationMs,
  SIZE: (r) => r.bytes,
  SCORE: (r) => r.score,
};

describe('search-assets sort', () => {
  for (const sortName of Object.keys(KEYS)) {
    for (const sortType of ['ASC', 'DESC'] as const) {
      it(`sorts by ${sortName} ${sortType}, ties broken by id in the same direction`, async () => {
        const { ids } = await idsOf({ sort: { sortName, sortType } });
        expect(ids).toEqual(expected(KEYS[sortName]!, sortType));
      });
    }
  }

  it('sorts by SIZE within several extensions (one ordered branch per extension), across pages', async () => {
    const sizeOrder = (direction: 'ASC' | 'DESC') =>
      expected(KEYS.SIZE!, direction).filter((id) =>
        ['png', 'wav'].includes(
          rows
            .find((r) => r.id === id)!
            .name.split('.')
            .pop()!,
        ),
      );
    for (const sortType of ['ASC', 'DESC'] as const) {
      const all = (await idsOf({ extensions: ['wav', 'png'], sort: { sortName: 'SIZE', sortType } })).ids;
      expect(all).toEqual(sizeOrder(sortType));
      const pages = [];
      for (let start = 0; start < all.length; start += 2)
        pages.push(...(await idsOf({ extensions: ['wav', 'png'], sort: { sortName: 'SIZE', sortType }, startPoint: start, endPoint: start + 2 })).ids);
      expect(pages).toEqual(all);
    }
  });

  it('sorts by CREATE_TIME within a small folder subtree (one ordered branch per folder), across pages', async () => {
    const subtree = ['blue.jpg', 'half-green.png', 'logo.webp', 'red.png'].map((name) => lib.files[name]!);
    for (const sortType of ['ASC', 'DESC'] as const) {
      const body = { parentId: lib.folders['/photos'], sort: { sortName: 'CREATE_TIME', sortType } };
      const all = await idsOf(body);
      expect(all.ids).toEqual(expected(KEYS.CREATE_TIME!, sortType).filter((id) => subtree.includes(id)));
      expect(all.total).toBe(4);
      const pages = [];
      for (let start = 0; start < 4; start += 3) pages.push(...(await idsOf({ ...body, startPoint: start, endPoint: start + 3 })).ids);
      expect(pages).toEqual(all.ids);
    }
    // the default sort is CREATE_TIME DESC; another filter applies within every branch
    expect((await idsOf({ parentId: lib.folders['/photos'] })).ids).toEqual(expected(KEYS.CREATE_TIME!, 'DESC').filter((id) => subtree.includes(id)));
    expect((await idsOf({ parentId: lib.folders['/photos'], extensions: ['png'] })).ids).toEqual(
      expected(KEYS.CREATE_TIME!, 'DESC').filter((id) => [lib.files['half-green.png'], lib.files['red.png']].includes(id)),
    );
  });

  it('sorts a DEEP keyword search by CREATE_TIME from the search texts, alone or with other filters through their files, as the general statement does, across pages', async () => {
    // creation order unlike id order, with a tie: among the matches, the first import becomes the newest file,
    // the last import the oldest, and the second shares the third's time
    const matching = (await idsOf({ keywords: ['e'] })).ids.sort((a, b) => a - b);
    const setCreated = (id: number, sql: string, params: unknown[]) =>
      env.orm.em.fork().execute(`update library_files set created_at = (${sql}) where id = ?`, [...params, id]);
    await setCreated(matching[0]!, "select max(created_at) + interval '1 day' from library_files where team_id = ?", [lib.teamA.teamId]);
    await setCreated(matching.at(-1)!, "select min(created_at) - interval '1 day' from library_files where team_id = ?", [lib.teamA.teamId]);
    await setCreated(matching[1]!, 'select created_at from library_files where id = ?', [matching[2]]);
    await loadRows();
    // pages after the first know the total: they collect the few matches, or with collecting turned
    // off walk the creation-time index testing containment with strpos (narrow-tables.queries.ts deepOnlyPage)
    const cases = [
      { keywords: ['e'], collectMaxMatches: COLLECT_MAX_MATCHES },
      { keywords: ['e'], collectMaxMatches: 0 },
      { keywords: ['e', 'n'], collectMaxMatches: 0 },
    ];
    for (const { keywords, collectMaxMatches } of cases)
      for (const sortType of ['ASC', 'DESC'] as const) {
        env.core.assets.assetSearch.collectMaxMatches = collectMaxMatches;
        const body = { keywords, sort: { sortName: 'CREATE_TIME', sortType } };
        const deepOnly = await idsOf(body);
        // minSize 0 changes no result but makes the search more than DEEP keywords: the general statement on library_files
        const general = await idsOf({ ...body, minSize: 0 });
        expect(deepOnly.ids.length).toBeGreaterThan(3);
        expect(deepOnly.ids).toEqual(general.ids);
        expect(deepOnly.ids).toEqual(expected(KEYS.CREATE_TIME!, sortType).filter((id) => general.ids.includes(id)));
        // page by page, the total known: DEEP-only from the texts, and with the other filter through their files
        for (const [pagedBody, all] of [
          [body, deepOnly.ids],
          [{ ...body, minSize: 0 }, general.ids],
        ] as const) {
          const pages = [];
          for (let start = 0; start < all.length; start += 2) pages.push(...(await idsOf({ ...pagedBody, startPoint: start, endPoint: start + 2 })).ids);
          expect(pages).toEqual(all);
        }
      }
    // an other filter that excludes some of the keyword's files, walked page by page
    env.core.assets.assetSearch.collectMaxMatches = 0;
    for (const sortType of ['ASC', 'DESC'] as const) {
      const body = { keywords: ['e'], extensions: ['png', 'wav'], sort: { sortName: 'CREATE_TIME', sortType } };
      const all = (await idsOf(body)).ids;
      const ofKeyword = (await idsOf({ keywords: ['e'], sort: body.sort })).ids;
      const pngOrWav = Object.entries(lib.files)
        .filter(([name]) => /\.(png|wav)$/.test(name))
        .map(([, id]) => id);
      expect(all).toEqual(ofKeyword.filter((id) => pngOrWav.includes(id)));
      expect(all.length).toBeGreaterThan(1);
      expect(all.length).toBeLessThan(ofKeyword.length);
      const pages = [];
      for (let start = 0; start < all.length; start += 1) pages.push(...(await idsOf({ ...body, startPoint: start, endPoint: start + 1 })).ids);
      expect(pages).toEqual(all);
    }
    env.core.assets.assetSearch.collectMaxMatches = COLLECT_MAX_MATCHES;
  });

  it('sorts DESC when sortType is omitted', async () => {
    expect((await idsOf({ sort: { sortName: 'SIZE' } })).ids).toEqual(expected(KEYS.SIZE!, 'DESC'));
  });

  it('sorts by CREATE_TIME DESC without sort (newest first)', async () => {
    expect((await idsOf({})).ids).toEqual(expected(KEYS.CREATE_TIME!, 'DESC'));
  });

  it('puts files without a duration or rating first ascending and last descending', async () => {
    const { ids } = await idsOf({ sort: { sortName: 'DURATION', sortType: 'DESC' } });
    expect(ids.slice(0, 2)).toEqual([lib.files['long.wav'], lib.files['clip.wav']]);
    const asc = (await idsOf({ sort: { sortName: 'SCORE', sortType: 'ASC' } })).ids;
    expect(asc[0]).toBe(lib.files['half-green.png']);
  });

  it('orders UPDATE_TIME by the latest change: an edited file comes first', async () => {
    const editor = await given(env).ctx(await given(env).key(lib.teamA, 'editable'));
    await env.core.assets.libraryEdit.updateFile(editor, lib.files['blue.jpg']!, { description: 'Deep blue sea, retouched' });
    await loadRows();
    const { ids } = await idsOf({ sort: { sortName: 'UPDATE_TIME', sortType: 'DESC' } });
    expect(ids[0]).toBe(lib.files['blue.jpg']);
    expect(ids).toEqual(expected(KEYS.UPDATE_TIME!, 'DESC'));
  });
});

describe('search-assets paging (startPoint, endPoint)', () => {
  it('returns the first 10 by default', async () => {
    const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body: {} });
    expect(res.body.result.assets).toHaveLength(8);
    expect(res.body.result.total).toBe(8);
    const few = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body: { endPoint: 3 } });
    expect(few.body.result.assets).toHaveLength(3);
    expect(few.body.result.total).toBe(8);
  });

  it('returns the results from startPoint up to (not including) endPoint, with the full total', async () => {
    const all = (await idsOf({ sort: { sortName: 'NAME', sortType: 'ASC' } })).ids;
    const page = await idsOf({ sort: { sortName: 'NAME', sortType: 'ASC' }, startPoint: 2, endPoint: 5 });
    expect(page.ids).toEqual(all.slice(2, 5));
    expect(page.total).toBe(8);
  });

  it('walks every result exactly once page by page', async () => {
    const seen: number[] = [];
    for (let start = 0; start < 8; start += 3) seen.push(...(await idsOf({ sort: { sortName: 'SIZE' }, startPoint: start, endPoint: start + 3 })).ids);
    expect(seen).toEqual((await idsOf({ sort: { sortName: 'SIZE' } })).ids);
  });

  it('defaults endPoint to startPoint + 10', async () => {
    const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body: { startPoint: 6 } });
    expect(res.body.result.assets).toHaveLength(2);
  });

  it('returns no assets but the total past the end, and for an empty page', async () => {
    expect(await idsOf({ startPoint: 50, endPoint: 60 })).toEqual({ ids: [], total: 8 });
    expect(await idsOf({ startPoint: 4, endPoint: 4 })).toEqual({ ids: [], total: 8 });
  });
});
