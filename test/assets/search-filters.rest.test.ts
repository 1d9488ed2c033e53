import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type SearchLibrary, useSearchLibrary } from '../support/search-library.ts';

const fixture = useSearchLibrary();
let env: TestEnv;
let lib: SearchLibrary;
beforeAll(() => {
  ({ env, lib } = fixture);
});

async function search(body: Record<string, unknown>, key = lib.keyA.key) {
  return send(env, { method: 'POST', url: '/open/search-assets', key, body });
}

/** The names found by a search (all of them: the fixture has fewer than 100 files), sorted by name. */
async function namesOf(body: Record<string, unknown>, key = lib.keyA.key): Promise<string[]> {
  const res = await search({ endPoint: 100, ...body }, key);
  expect(res.status, res.text).toBe(200);
  expect(res.body.result.total).toBe(res.body.result.assets.length);
  return res.body.result.assets.map((a: { name: string }) => a.name).sort();
}

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

describe('POST /open/search-assets', () => {
  it('answers with the open envelope: code "0", message, result {assets, total} and traceId = X-Request-Id', async () => {
    const res = await search({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: '0', message: 'success', traceId: res.headers['x-request-id'] });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.result.total).toBe(8);
    expect(res.body.result.assets).toHaveLength(8);
  });

  it("returns every live file of the team when no filter is given, and never another team's", async () => {
    expect(await namesOf({})).toEqual(['blue.jpg', 'clip.wav', 'half-green.png', 'logo.webp', 'long.wav', 'notes.txt', 'red.png', 'root.png']);
    expect(await namesOf({}, lib.keyB.key)).toEqual(['red.png']);
  });

  it('shapes each result as AssetItem (spec 2.6): ids, parentIds, users as strings, size in KB, tags, links', async () => {
    const res = await search({ keywords: ['red.png'], keywordSearchType: 'PRECISE' });
    const [item] = res.body.result.assets;
    const [bytes] = await db<{ byte_size: string }>('select byte_size from library_files where id = ?', [lib.files['red.png']]);
    expect(item).toMatchObject({
      id: lib.files['red.png'],
      parentIds: [lib.folders['/photos'], lib.folders['/photos/summer']],
      userId: String(lib.ann),
      name: 'red.png',
      source: 2,
      link: 'https://shop.example.com/red',
      extension: 'png',
      duration: null,
      size: Math.ceil(Number(bytes!.byte_size) / 1024),
      width: 400,
      height: 300,
      description: 'A bright red poster for the summer sale',
      score: 5,
      createUser: String(lib.ann),
      updateUser: lib.ann,
      tags: [
        { id: lib.tags.sale, name: 'sale' },
        { id: lib.tags.warm, name: 'warm' },
      ],
      imageContentAnalysis: null,
      publicUrl: '',
    });
    expect(item.createTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(item.updateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(item.downloadUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:8080/files/${lib.teamA.teamId}/${item.id}/download\\?exp=\\d+&sig=`));
    expect(item.thumbnailAccessUrl).toMatch(new RegExp(`/files/${lib.teamA.teamId}/${item.id}/preview\\?exp=\\d+&sig=`));
  });

  it('reports the image analysis fields, and no thumbnail for a file that is not an image', async () => {
    const logo = (await search({ keywords: ['logo'], keywordSearchType: 'PRECISE' })).body.result.assets[0];
    expect(logo.imageContentAnalysis).toEqual({
      aiTags: 'brand,emblem',
      aiTitle: 'Company emblem',
      aiDescription: 'A small square emblem in steel blue',
      aiDetailedDescription: [{ label: 'emblem', confidence: 0.92 }],
    });
    const notes = (await search({ keywords: ['notes.txt'], keywordSearchType: 'PRECISE' })).body.result.assets[0];
    expect(notes.thumbnailAccessUrl).toBeNull();
    expect(notes.downloadUrl).toContain('/download?');
  });
});

describe('search-assets filters', () => {
  it('parentId: finds the files of that folder and all its descendants', async () => {
    expect(await namesOf({ parentId: lib.folders['/photos'] })).toEqual(['blue.jpg', 'half-green.png', 'logo.webp', 'red.png']);
    expect(await namesOf({ parentId: lib.folders['/photos/summer'] })).toEqual(['red.png']);
  });

  it("parentId: an unknown folder or another team's folder is 404 not_found", async () => {
    for (const parentId of [lib.folderOfB, 2147483647]) {
      const res = await search({ parentId });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', result: null, traceId: res.headers['x-request-id'] });
    }
  });

  it('extensions: matches any of them, case-insensitively and with or without the dot', async () => {
    expect(await namesOf({ extensions: ['PNG', '.wav'] })).toEqual(['clip.wav', 'half-green.png', 'long.wav', 'red.png', 'root.png']);
  });

  it('minLength/maxLength: bounds the duration in milliseconds, inclusive', async () => {
    expect(await namesOf({ minLength: 1000, maxLength: 1500 })).toEqual(['clip.wav']);
    expect(await namesOf({ minLength: 1501 })).toEqual(['long.wav']);
    expect(await namesOf({ maxLength: 4000 })).toEqual(['clip.wav', 'long.wav']);
  });

  it('minSize/maxSize: bounds the size in bytes, inclusive', async () => {
    const sizes = Object.fromEntries(
      (await db<{ name: string; byte_size: string }>('select name, byte_size from library_files where team_id = ?', [lib.teamA.teamId])).map((r) => [
        r.name,
        Number(r.byte_size),
      ]),
    );
    const sorted = Object.entries(sizes).sort((a, b) => a[1] - b[1]);
    const [smallest, second] = [sorted[0]!, sorted[1]!];
    expect(await namesOf({ maxSize: second[1] })).toEqual([smallest[0], second[0]].sort());
    expect(await namesOf({ minSize: second[1], maxSize: second[1] })).toEqual([second[0]]);
    const largest = sorted.at(-1)!;
    expect(await namesOf({ minSize: largest[1] })).toEqual([largest[0]]);
  });

  it('minWidth/maxWidth and minHeight/maxHeight: bound the image dimensions in px', async () => {
    expect(await namesOf({ minWidth: 400 })).toEqual(['blue.jpg', 'red.png']);
    expect(await namesOf({ maxHeight: 100 })).toEqual(['half-green.png', 'logo.webp', 'root.png']);
    expect(await namesOf({ minWidth: 64, maxWidth: 200, minHeight: 64 })).toEqual(['half-green.png', 'logo.webp']);
  });

  it('takes every bound up to the documented 2^53-1, past the int columns of width and height: a larger minimum finds nothing, a larger maximum bounds nothing', async () => {
    const huge = Number.MAX_SAFE_INTEGER;
    for (const field of ['minWidth', 'minHeight']) {
      expect(await namesOf({ [field]: 2147483648 })).toEqual([]);
      expect(await namesOf({ [field]: huge })).toEqual([]);
    }
    expect(await namesOf({ maxWidth: huge, maxHeight: 2147483648, minWidth: 400 })).toEqual(['blue.jpg', 'red.png']);
    expect((await namesOf({ maxSize: huge, endTime: huge })).length).toBe(8);
    expect(await namesOf({ maxLength: huge })).toEqual(['clip.wav', 'long.wav']);
    expect(await namesOf({ minSize: huge })).toEqual([]);
    expect(await namesOf({ startTime: huge })).toEqual([]);
    const res = await search({ minWidth: huge + 1 });
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_parameter', details: [{ field: 'minWidth' }] } });
  });

  it('startTime/endTime: bound the update time in epoch milliseconds, inclusive', async () => {
    const rows = await db<{ name: string; ms: string }>(
      'select name, floor(extract(epoch from updated_at) * 1000)::bigint::text as ms from library_files where team_id = ? order by updated_at, id',
      [lib.teamA.teamId],
    );
    const at = Object.fromEntries(rows.map((r) => [r.name, Number(r.ms)]));
    const between = rows
      .filter((r) => Number(r.ms) >= at['blue.jpg']! && Number(r.ms) <= at['notes.txt']!)
      .map((r) => r.name)
      .sort();
    expect(between.length).toBeGreaterThanOrEqual(2);
    expect(await namesOf({ startTime: at['blue.jpg'], endTime: at['notes.txt'] })).toEqual(between);
    expect(await namesOf({ startTime: at['root.png'] })).toContain('root.png');
    expect(await namesOf({ endTime: at['red.png']! - 1 })).not.toContain('red.png');
  });

  it('tags with tagOrAnd true (the default): files carrying every tag', async () => {
    expect(await namesOf({ tags: [lib.tags.warm, lib.tags.sale] })).toEqual(['red.png']);
    expect(await namesOf({ tags: [lib.tags.warm, lib.tags.sale], tagOrAnd: true })).toEqual(['red.png']);
  });

  it('tags with tagOrAnd false: files carrying any of the tags', async () => {
    expect(await namesOf({ tags: [lib.tags.warm, lib.tags.sale], tagOrAnd: false })).toEqual(['half-green.png', 'long.wav', 'red.png']);
  });

  it('tags of another team match nothing', async () => {
    expect(await namesOf({ tags: [lib.tags.warm] }, lib.keyB.key)).toEqual([]);
  });

  it('createUsers: files created by any of the members', async () => {
    expect(await namesOf({ createUsers: [lib.ann] })).toEqual(['clip.wav', 'half-green.png', 'red.png']);
    expect(await namesOf({ createUsers: [lib.ann, lib.bob] })).toEqual(['blue.jpg', 'clip.wav', 'half-green.png', 'notes.txt', 'red.png']);
  });

  it('ratings: files whose score is any of the values', async () => {
    expect(await namesOf({ ratings: [0, 5] })).toEqual(['notes.txt', 'red.png']);
  });

  it('hasLink and hasDesc: whether a web link or a description exists', async () => {
    expect(await namesOf({ hasLink: true })).toEqual(['notes.txt', 'red.png']);
    expect(await namesOf({ hasLink: false })).toEqual(['blue.jpg', 'clip.wav', 'half-green.png', 'logo.webp', 'long.wav', 'root.png']);
    expect(await namesOf({ hasDesc: true })).toEqual(['blue.jpg', 'notes.txt', 'red.png']);
    expect(await namesOf({ hasDesc: false, hasLink: false })).toEqual(['clip.wav', 'half-green.png', 'logo.webp', 'long.wav', 'root.png']);
  });

  it('link and desc: the link or description contains the text, case-insensitively', async () => {
    expect(await namesOf({ link: 'SHOP.example' })).toEqual(['red.png']);
    expect(await namesOf({ desc: 'blue' })).toEqual(['blue.jpg']);
    expect(await namesOf({ desc: '100%' })).toEqual([]);
  });

  it('customFieldTemplateIds and customFieldId: a template or custom field no file carries matches nothing (custom-metadata-search.rest.test.ts has the rest)', async () => {
    const res = await search({ customFieldTemplateIds: [1] });
    expect(res.body.result).toEqual({ assets: [], total: 0 });
    expect((await search({ customFieldId: 7 })).body.result.total).toBe(0);
  });

  it('region: is accepted and ignored (Shelf has no region index)', async () => {
    expect(await namesOf({ region: [0.1, 0.2, 0.5, 0.5], extensions: ['jpg'] })).toEqual(['blue.jpg']);
  });

  it('null fields count as not given (clients serialise unset Java fields as null)', async () => {
    expect(await namesOf({ parentId: null, keywords: null, sort: null, extensions: ['jpg'], color: null })).toEqual(['blue.jpg']);
  });

  it('combines filters with AND', async () => {
    expect(await namesOf({ parentId: lib.folders['/photos'], tags: [lib.tags.warm], minWidth: 300 })).toEqual(['red.png']);
  });
});

describe('search-assets currentUserId (access: ownership or folder membership)', () => {
  it('restricts to the files the member owns and the files under the folders they belong to', async () => {
    const manager = await given(env).ctx(await given(env).key(lib.teamA, 'manage'));
    await env.core.assets.folderEdit.addMember(manager, { folderId: lib.folders['/photos/summer'], userId: lib.bob });
    // bob owns blue.jpg and notes.txt, and belongs to /photos/summer (red.png)
    expect(await namesOf({ currentUserId: lib.bob })).toEqual(['blue.jpg', 'notes.txt', 'red.png']);
    await env.core.assets.folderEdit.addMember(manager, { folderId: lib.folders['/photos'], userId: lib.bob });
    expect(await namesOf({ currentUserId: lib.bob })).toEqual(['blue.jpg', 'half-green.png', 'logo.webp', 'notes.txt', 'red.png']);
    await env.core.assets.folderEdit.removeMember(manager, { folderId: lib.folders['/photos'], userId: lib.bob });
    await env.core.assets.folderEdit.removeMember(manager, { folderId: lib.folders['/photos/summer'], userId: lib.bob });
    expect(await namesOf({ currentUserId: lib.bob })).toEqual(['blue.jpg', 'notes.txt']);
  });

  it('rejects a member of another team with 400 invalid_parameter', async () => {
    const outsider = (await given(env).member(lib.teamB, 'Outsider')).userId;
    const res = await search({ currentUserId: outsider });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_parameter', result: null, details: [{ field: 'currentUserId', message: 'is not a member of the team' }] });
  });
});

describe('search-assets needChildren', () => {
  it('adds the child folders of parentId as FolderDTO, ordered by name', async () => {
    const res = await search({ parentId: lib.folders['/photos'], needChildren: true });
    expect(res.body.result.folders).toEqual([
      { id: lib.folders['/photos/summer'], name: 'summer' },
      { id: lib.folders['/photos/winter'], name: 'winter' },
    ]);
    expect(res.body.result.folderCount).toBe(2);
  });

  it('adds the top-level folders without parentId, and nothing without needChildren', async () => {
    const res = await search({ needChildren: true });
    expect(res.body.result.folders.map((f: { name: string }) => f.name)).toEqual(['docs', 'media', 'photos']);
    expect((await search({})).body.result).not.toHaveProperty('folders');
  });
});
