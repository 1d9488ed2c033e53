import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSearch, searchStatements } from '../../src/core/assets/search/asset-search.service.ts';
import { pageSql } from '../../src/core/assets/search/search-pages.queries.ts';
import { TagFileCounts } from '../../src/core/assets/search/tag-file-counts.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { queryRows } from '../../src/core/platform/sql.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { tempDir } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
let viewer: Ctx;
let viewerB: Ctx;
let editor: Ctx;
/** Tags p, q, r of team A: p on every file of the fixture, q on five, r on three (two of them with q). */
const tag = { p: 0, q: 0, r: 0 };

const sql = <T>(query: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(query, params);

async function tagFiles(tagId: number, fileIds: number[]): Promise<void> {
  // straight into library_file_tags: the triggers must carry it to tag_ids and the postings
  await sql('insert into library_file_tags (file_id, tag_id, team_id) select unnest(?::int[]), ?, ? on conflict do nothing', [
    `{${fileIds.join(',')}}`,
    tagId,
    lib.teamA.teamId,
  ]);
}

/**
 * The live files of team A carrying every tag of `tagIds` (and with one of `extensions` when given),
 * in creation order then id: computed from library_file_tags, not the postings.
 */
async function expectedIds(tagIds: number[], direction: 'asc' | 'desc', extensions?: string[]): Promise<number[]> {
  const rows = await sql<{ id: number }>(
    `select f.id from library_files f
      where f.team_id = ? and f.deleted_at is null
        and (select count(*) from library_file_tags ft where ft.file_id = f.id and ft.tag_id = any(?::int[])) = ?
        and (?::text[] is null or f.extension = any(?::text[]))
      order by f.created_at ${direction}, f.id ${direction}`,
    [
      lib.teamA.teamId,
      `{${tagIds.join(',')}}`,
      tagIds.length,
      extensions ? `{${extensions.join(',')}}` : null,
      extensions ? `{${extensions.join(',')}}` : null,
    ],
  );
  return rows.map((r) => r.id);
}

/** Every page of a search, 2 results at a time, through the service. */
async function allPages(body: Record<string, unknown>): Promise<{ ids: number[]; totals: number[] }> {
  const ids: number[] = [];
  const totals: number[] = [];
  for (let start = 0; ; start += 2) {
    const result = await env.core.assets.assetSearch.search(viewer, { ...body, startPoint: start, endPoint: start + 2 });
    totals.push(result.total);
    ids.push(...result.assets.map((a) => Number(a.id)));
    if (result.assets.length < 2) return { ids, totals };
  }
}

beforeAll(async () => {
  storage = await tempDir('search-tags-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  viewer = await given(env).ctx(lib.keyA);
  viewerB = await given(env).ctx(lib.keyB);
  editor = await given(env).ctx(await given(env).key(lib.teamA, 'manage'));
  const made = await sql<{ id: number; name: string }>("insert into library_tags (team_id, name) values (?, 'p'), (?, 'q'), (?, 'r') returning id, name", [
    lib.teamA.teamId,
    lib.teamA.teamId,
    lib.teamA.teamId,
  ]);
  for (const row of made) tag[row.name as keyof typeof tag] = row.id;
  const f = lib.files;
  await tagFiles(tag.p, Object.values(f));
  await tagFiles(tag.q, [f['red.png']!, f['blue.jpg']!, f['logo.webp']!, f['clip.wav']!, f['root.png']!]);
  await tagFiles(tag.r, [f['red.png']!, f['root.png']!, f['notes.txt']!]);
  // two files created at the same instant: the id breaks the tie
  await sql('update library_files set created_at = (select created_at from library_files where id = ?) where id = ?', [f['red.png'], f['root.png']]);
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
});

/** Postings that differ from what the live files and their tags say they should be, in either direction. */
async function postingsDrift(): Promise<number> {
  const [row] = await sql<{ n: string }>(`
    with expected as (
      select f.id as file_id, t.id as tag_id, f.team_id, f.created_at, f.tag_ids
        from library_files f cross join unnest(f.tag_ids) t(id) where f.deleted_at is null),
    actual as (select file_id, tag_id, team_id, created_at, tag_ids from library_tag_postings)
    select count(*) as n from ((select * from expected except select * from actual) union all (select * from actual except select * from expected)) d`);
  return Number(row!.n);
}

describe('tag postings (docs/search.md)', () => {
  it('keeps one posting per live file and tag, with its team, creation time and tag ids, through tagging, untagging, moves in time and deletion (trigger)', async () => {
    const file = lib.files['half-green.png']!;
    const postingsOf = async (id: number) =>
      sql<{ tagId: number; tagIds: number[] }>('select tag_id as "tagId", tag_ids as "tagIds" from library_tag_postings where file_id = ? order by tag_id', [
        id,
      ]);
    expect(await postingsDrift()).toBe(0);
    expect((await postingsOf(file)).map((p) => p.tagId)).toEqual([lib.tags.warm!, tag.p].sort((a, b) => a - b));
    await env.core.assets.libraryEdit.updateFile(editor, file, { tags: ['warm', 'p', 'q'] });
    const three = await postingsOf(file);
    expect(three).toHaveLength(3);
    for (const posting of three) expect(posting.tagIds).toEqual([lib.tags.warm!, tag.p, tag.q].sort((a, b) => a - b));
    await env.core.assets.libraryEdit.updateFile(editor, file, { tags: ['warm', 'p'] });
    expect(await postingsOf(file)).toHaveLength(2);
    expect(await postingsDrift()).toBe(0);
    await env.core.assets.recycleBin.deleteFile(editor, lib.files['long.wav']!);
    expect(await postingsOf(lib.files['long.wav']!)).toEqual([]);
    expect(await postingsDrift()).toBe(0);
  });

  it("leaves a file's postings untouched by an edit that changes none of its tags, creation time or deletion", async () => {
    const file = lib.files['blue.jpg']!;
    const versions = () => sql<{ xmin: string }>('select xmin::text from library_tag_postings where file_id = ? order by tag_id', [file]);
    const before = await versions();
    expect(before.length).toBeGreaterThan(0);
    await env.core.assets.libraryEdit.updateFile(editor, file, { name: 'blue-renamed.jpg', score: 1 });
    expect(await versions()).toEqual(before);
  });
});

describe('tags-only searches walk the postings of their rarest tag (docs/search.md)', () => {
  it('pages and counts an AND of tags exactly as the tags of the live files say, in both creation orders', async () => {
    for (const tagIds of [[tag.p, tag.q], [tag.q, tag.r], [tag.p, tag.q, tag.r], [tag.r], [tag.p]]) {
      for (const sortType of ['DESC', 'ASC'] as const) {
        const expected = await expectedIds(tagIds, sortType === 'ASC' ? 'asc' : 'desc');
        expect(expected.length).toBeGreaterThan(0);
        const { ids, totals } = await allPages({ tags: tagIds, sort: { sortName: 'CREATE_TIME', sortType } });
        expect(ids).toEqual(expected);
        expect(new Set(totals)).toEqual(new Set([expected.length]));
      }
    }
  });

  it("pages an AND of tags with another filter by walking the rarest tag's postings and reading their files once many matches are known, as when it collects", async () => {
    const extensions = ['png', 'jpg'];
    for (const tagIds of [[tag.p, tag.q], [tag.p, tag.r], [tag.q]]) {
      for (const sortType of ['DESC', 'ASC'] as const) {
        const expected = await expectedIds(tagIds, sortType === 'ASC' ? 'asc' : 'desc', extensions);
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan((await expectedIds(tagIds, 'asc')).length);
        for (const collectMaxMatches of [env.core.assets.assetSearch.collectMaxMatches, 0]) {
          const search = env.core.assets.assetSearch;
          const kept = search.collectMaxMatches;
          search.collectMaxMatches = collectMaxMatches;
          try {
            const { ids, totals } = await allPages({ tags: tagIds, extensions, sort: { sortName: 'CREATE_TIME', sortType } });
            expect(ids).toEqual(expected);
            expect(new Set(totals)).toEqual(new Set([expected.length]));
          } finally {
            search.collectMaxMatches = kept;
          }
        }
      }
    }
  });

  it('counts and collects an AND of tags within a folder subtree (its folders taken as one array) as its branched pages find it', async () => {
    const photos = [lib.files['red.png']!, lib.files['blue.jpg']!, lib.files['half-green.png']!, lib.files['logo.webp']!];
    const expected = (await expectedIds([tag.p, tag.q], 'desc')).filter((id) => photos.includes(id));
    expect(expected.length).toBeGreaterThan(1);
    const body = { tags: [tag.p, tag.q], parentId: lib.folders['/photos'] };
    const search = env.core.assets.assetSearch;
    const kept = search.collectMaxMatches;
    try {
      for (const collectMaxMatches of [kept, 0]) {
        search.collectMaxMatches = collectMaxMatches;
        const { ids, totals } = await allPages(body);
        expect(ids).toEqual(expected);
        expect(new Set(totals)).toEqual(new Set([expected.length]));
      }
    } finally {
      search.collectMaxMatches = kept;
    }
  });

  it('counts the tags only for a search that will walk their postings', async () => {
    const [x, y] = await sql<{ id: number }>("insert into library_tags (team_id, name) values (?, 'x'), (?, 'y') returning id", [
      lib.teamA.teamId,
      lib.teamA.teamId,
    ]);
    await tagFiles(x!.id, Object.values(lib.files));
    await tagFiles(y!.id, [lib.files['red.png']!, lib.files['root.png']!, lib.files['logo.webp']!]);
    const search = env.core.assets.assetSearch;
    const counts = env.core.assets.tagFileCounts;
    const kept = search.collectMaxMatches;
    const body = { tags: [x!.id, y!.id], extensions: ['png', 'webp'] };
    try {
      search.collectMaxMatches = 0;
      const before = counts.counted;
      // the total is not known yet: the planner's statement, no walk
      await search.search(viewer, { ...body, startPoint: 0, endPoint: 1 });
      // known, but sorted by name: no walk either
      await search.search(viewer, { ...body, sort: { sortName: 'NAME' } });
      expect(counts.counted).toBe(before);
      // known and in creation order: the rarest tag's postings are walked, so both tags are counted
      const page = await search.search(viewer, { ...body, startPoint: 1, endPoint: 3 });
      expect(counts.counted).toBe(before + 2);
      expect(page.assets.map((a) => Number(a.id))).toEqual((await expectedIds([x!.id, y!.id], 'desc', ['png', 'webp'])).slice(1, 3));
    } finally {
      search.collectMaxMatches = kept;
    }
  });

  it('gives the same page and count whichever of the tags is walked', async () => {
    const tagIds = [tag.p, tag.q, tag.r];
    const plan = planSearch({ tags: tagIds, startPoint: 0, endPoint: 100 });
    const answers = [];
    for (const walkTag of tagIds) {
      const { page, count } = searchStatements(lib.teamA.teamId, plan, { walkTag });
      expect(page.sql).toContain('from library_tag_postings p');
      const ids = (await queryRows<{ id: number }>(viewer, pageSql(page), page.params)).map((r) => r.id);
      const [total] = await queryRows<{ n: number }>(viewer, count.sql, count.params);
      answers.push({ ids, total: total!.n });
    }
    expect(answers[0]!.ids).toEqual(await expectedIds(tagIds, 'desc'));
    expect(answers[0]!.total).toBe(answers[0]!.ids.length);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('chooses the tag the fewest live files carry, the smallest id among equals', async () => {
    const counts = new TagFileCounts();
    expect(await counts.rarest(viewer, [tag.p, tag.q, tag.r])).toBe(tag.r);
    expect(await counts.rarest(viewer, [tag.p, tag.q])).toBe(tag.q);
    const live = await counts.countsOf(viewer, [tag.p, tag.q, tag.r]);
    for (const id of [tag.p, tag.q, tag.r]) {
      const [row] = await sql<{ n: string }>(
        'select count(*) as n from library_file_tags ft join library_files f on f.id = ft.file_id where ft.tag_id = ? and f.deleted_at is null',
        [id],
      );
      expect(live.get(id)).toBe(Number(row!.n));
    }
    // a tag that no file carries (or of another team) is the rarest of all
    const [none] = await sql<{ id: number }>("insert into library_tags (team_id, name) values (?, 'unused') returning id", [lib.teamA.teamId]);
    expect(await counts.rarest(viewer, [tag.p, none!.id])).toBe(none!.id);
    const [twin] = await sql<{ id: number }>("insert into library_tags (team_id, name) values (?, 'unused-twin') returning id", [lib.teamA.teamId]);
    expect(await counts.rarest(viewer, [twin!.id, none!.id])).toBe(Math.min(twin!.id, none!.id));
  });

  it('counts each tag at most once per maxAgeMs: a stale count only slows a search, its results stay exact', async () => {
    let now = 1_000_000;
    const counts = new TagFileCounts({ maxAgeMs: 60_000, now: () => now });
    expect(await counts.rarest(viewer, [tag.q, tag.r])).toBe(tag.r);
    expect(counts.counted).toBe(2);
    await counts.rarest(viewer, [tag.q, tag.r]);
    expect(counts.counted).toBe(2);
    // r grows past q: within the minute the old counts still choose r, and the search is still exact
    await tagFiles(tag.r, [lib.files['blue.jpg']!, lib.files['logo.webp']!, lib.files['clip.wav']!, lib.files['half-green.png']!]);
    expect(await counts.rarest(viewer, [tag.q, tag.r])).toBe(tag.r);
    const { ids } = await allPages({ tags: [tag.q, tag.r] });
    expect(ids).toEqual(await expectedIds([tag.q, tag.r], 'desc'));
    now += 60_000;
    expect(await counts.rarest(viewer, [tag.q, tag.r])).toBe(tag.q);
    expect(counts.counted).toBe(4);
  });

  it("keeps the counts of each team apart: another team counts no file for team A's tags", async () => {
    const counts = new TagFileCounts();
    const ofA = await counts.countsOf(viewer, [tag.p]);
    const ofB = await counts.countsOf(viewerB, [tag.p]);
    expect(ofA.get(tag.p)).toBeGreaterThan(0);
    expect(ofB.get(tag.p)).toBe(0);
  });

  it("never walks another team's postings: team B's search with team A's tags finds nothing", async () => {
    const result = await env.core.assets.assetSearch.search(viewerB, { tags: [tag.p, tag.q] });
    expect(result).toEqual({ assets: [], total: 0 });
    const single = await env.core.assets.assetSearch.search(viewerB, { tags: [tag.p] });
    expect(single).toEqual({ assets: [], total: 0 });
    // and team A's own search with team B's tag: nothing either
    const [ofB] = await sql<{ id: number }>("select id from library_tags where team_id = ? and name = 'warm'", [lib.teamB.teamId]);
    expect(await env.core.assets.assetSearch.search(viewer, { tags: [ofB!.id, tag.p] })).toEqual({ assets: [], total: 0 });
  });
});
