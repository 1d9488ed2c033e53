import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import { LINK_LIFETIME_SECONDS } from '../../src/core/assets/delivery/links.ts';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { tempDir, writeBmp, writeImage, writeWav } from '../support/media-files.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let teamA: GivenTeam;
let teamB: GivenTeam;

beforeAll(async () => {
  storage = await tempDir('storage');
  inputs = await tempDir('inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  g = given(env);
  teamA = await g.team('A');
  teamB = await g.team('B');
});
afterAll(async () => {
  await env.close();
  await storage.remove();
  await inputs.remove();
});

const input = (name: string) => join(inputs.path, name);
const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);
const scope = (team: GivenTeam) => ({ em: env.orm.em.fork(), teamId: team.teamId });

async function ctxOf(team: GivenTeam, role: Role = 'manage', expiresAt?: string) {
  return g.ctx(await g.key(team, role, expiresAt));
}

describe('importFile (asset import --file)', () => {
  it('stores the bytes content-addressed and records size, MIME type and dimensions read from the file', async () => {
    const bytes = await writeImage(input('blue.png'), { width: 640, height: 480, colour: '#0000ff', format: 'png' });
    const made = await g.libraryFile(teamA, { file: input('blue.png'), folder: '/core/images' });
    const [file] = await env.core.assets.library.findFilesByIds(scope(teamA), [made.id]);
    expect(file).toMatchObject({
      id: made.id,
      objectId: made.assetId,
      name: 'blue.png',
      extension: 'png',
      mimeType: 'image/png',
      size: String(bytes.length),
      width: 640,
      height: 480,
      durationMs: null,
      source: 2,
    });
    const [object] = await db<{ sha256: string; storage_key: string }>('select sha256, storage_key from stored_objects where id = ?', [made.assetId]);
    expect(object!.storage_key).toBe(objectKey(object!.sha256));
    expect(await readFile(join(storage.path, object!.storage_key))).toEqual(bytes);
  });

  it('detects the MIME type by content, not by name: a PNG named .jpg is image/png', async () => {
    await writeImage(input('disguised.jpg'), { width: 33, height: 21, colour: '#00ff00', format: 'png' });
    const made = await g.libraryFile(teamA, { file: input('disguised.jpg') });
    const [file] = await env.core.assets.library.findFilesByIds(scope(teamA), [made.id]);
    expect(file).toMatchObject({ mimeType: 'image/png', extension: 'jpg', width: 33, height: 21 });
  });

  it('recognises text, unknown binary, SVG and undecodable images by content', async () => {
    await writeFile(input('notes'), 'plain words\nand more\n');
    await writeFile(input('blob.txt'), Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x00, 0x10]));
    await writeFile(input('drawing'), '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="red"/></svg>');
    await writeBmp(input('old.bmp'), 4, 3);
    const ids = [];
    for (const name of ['notes', 'blob.txt', 'drawing', 'old.bmp']) ids.push((await g.libraryFile(teamA, { file: input(name) })).id);
    const files = await env.core.assets.library.findFilesByIds(scope(teamA), ids);
    expect(files.map((f) => [f.name, f.mimeType, f.extension, f.width, f.height])).toEqual([
      ['notes', 'text/plain', 'txt', null, null],
      ['blob.txt', 'application/octet-stream', 'txt', null, null],
      ['drawing', 'image/svg+xml', 'svg', 40, 30],
      ['old.bmp', 'image/bmp', 'bmp', null, null],
    ]);
  });

  it('reads the duration of audio from the file (music-metadata)', async () => {
    await writeWav(input('beep.wav'), 1500);
    const made = await g.libraryFile(teamA, { file: input('beep.wav') });
    const [file] = await env.core.assets.library.findFilesByIds(scope(teamA), [made.id]);
    expect(file).toMatchObject({ mimeType: 'audio/wav', durationMs: 1500, width: null, height: null });
  });

  it('stores identical bytes once: one stored object with two placements, one file in storage', async () => {
    const bytes = await writeImage(input('twin-1.png'), { width: 10, height: 10, colour: '#123456', format: 'png' });
    await writeFile(input('twin-2.png'), bytes);
    const first = await g.libraryFile(teamA, { file: input('twin-1.png'), folder: '/twins/one' });
    const second = await g.libraryFile(teamA, { file: input('twin-2.png'), folder: '/twins/two', name: 'copy.png' });
    expect(second.assetId).toBe(first.assetId);
    expect(second.id).not.toBe(first.id);
    const placements = await db<{ n: string }>('select count(*) as n from library_files where object_id = ?', [first.assetId]);
    expect(Number(placements[0]!.n)).toBe(2);
    const [object] = await db<{ sha256: string }>('select sha256 from stored_objects where id = ?', [first.assetId]);
    const stored = await readdir(join(storage.path, 'objects', object!.sha256.slice(0, 2)));
    expect(stored).toEqual([object!.sha256]);
  });

  it('gives each team its own stored-object row for the same bytes, sharing the stored file', async () => {
    const bytes = await writeImage(input('shared.png'), { width: 12, height: 12, colour: '#abcdef', format: 'png' });
    await writeFile(input('shared-b.png'), bytes);
    const a = await g.libraryFile(teamA, { file: input('shared.png') });
    const b = await g.libraryFile(teamB, { file: input('shared-b.png') });
    expect(b.assetId).not.toBe(a.assetId);
    const rows = await db<{ team_id: number; storage_key: string }>('select team_id, storage_key from stored_objects where id in (?, ?) order by id', [
      a.assetId,
      b.assetId,
    ]);
    expect(rows.map((r) => r.team_id)).toEqual([teamA.teamId, teamB.teamId]);
    expect(rows[0]!.storage_key).toBe(rows[1]!.storage_key);
  });

  it('creates folders as needed and reuses existing ones, returning the ids from the root', async () => {
    await writeImage(input('f.png'), { width: 5, height: 5, colour: '#ffffff', format: 'png' });
    const deep = await g.libraryFile(teamA, { file: input('f.png'), folder: '/reuse/x/y' });
    const shallow = await g.libraryFile(teamA, { file: input('f.png'), folder: '/reuse/x' });
    const sibling = await g.libraryFile(teamA, { file: input('f.png'), folder: '/reuse/z' });
    expect(deep.folderIds).toHaveLength(3);
    expect(shallow.folderIds).toEqual(deep.folderIds.slice(0, 2));
    expect(sibling.folderIds[0]).toBe(deep.folderIds[0]);
    const folders = await env.core.assets.library.findFoldersByIds(scope(teamA), deep.folderIds);
    expect(folders.map((f) => f.path)).toEqual(['/reuse', '/reuse/x', '/reuse/x/y']);
    expect(folders[2]!.pathIds).toEqual(deep.folderIds);
    const count = await db<{ n: string }>("select count(*) as n from library_folders where team_id = ? and path like '/reuse%'", [teamA.teamId]);
    expect(Number(count[0]!.n)).toBe(4);
  });

  it('creates a folder once when imports into the same new path run concurrently', async () => {
    await writeImage(input('c.png'), { width: 6, height: 6, colour: '#fefefe', format: 'png' });
    const results = await Promise.all([1, 2, 3, 4].map(() => g.libraryFile(teamA, { file: input('c.png'), folder: '/race/one/two' })));
    for (const result of results) expect(result.folderIds).toEqual(results[0]!.folderIds);
    const count = await db<{ n: string }>("select count(*) as n from library_folders where team_id = ? and path like '/race%'", [teamA.teamId]);
    expect(Number(count[0]!.n)).toBe(3);
  });

  it('records tags as team rows, reused by name, and the member as owner, creator and create/update user', async () => {
    const member = await g.member(teamA, 'Ann');
    await writeImage(input('t.png'), { width: 7, height: 7, colour: '#010203', format: 'png' });
    const one = await g.libraryFile(teamA, {
      file: input('t.png'),
      tags: ['red', ' blue ', 'red'],
      description: 'A swatch',
      score: 5,
      link: 'https://example.com/swatch',
      user: member.userId,
    });
    const two = await g.libraryFile(teamA, { file: input('t.png'), tags: ['blue'] });
    const [first, second] = await env.core.assets.library.findFilesByIds(scope(teamA), [one.id, two.id]);
    expect(first!.tags.map((t) => t.name)).toEqual(['blue', 'red']);
    expect(second!.tags).toEqual([first!.tags[0]]);
    expect(first).toMatchObject({
      description: 'A swatch',
      score: 5,
      link: 'https://example.com/swatch',
      ownerUserId: member.userId,
      creatorUserId: member.userId,
      createUserId: member.userId,
      updateUserId: member.userId,
    });
    expect(second).toMatchObject({ description: null, score: null, link: null, ownerUserId: null });
  });
});

describe('team-scoped reads (findFilesByIds, findFoldersByIds, findFolderByPath, mediaFor)', () => {
  it("never return another team's files or folders", async () => {
    await writeImage(input('iso.png'), { width: 9, height: 9, colour: '#999999', format: 'png' });
    const ofA = await g.libraryFile(teamA, { file: input('iso.png'), folder: '/isolated/deep' });
    expect(await env.core.assets.library.findFilesByIds(scope(teamB), [ofA.id])).toEqual([]);
    expect(await env.core.assets.library.findFoldersByIds(scope(teamB), ofA.folderIds)).toEqual([]);
    expect(await env.core.assets.library.findFolderByPath(scope(teamB), '/isolated/deep')).toBeNull();
    expect((await env.core.assets.library.mediaFor(await ctxOf(teamB), [ofA.id])).size).toBe(0);
    expect(await env.core.assets.library.findFilesByIds(scope(teamA), [ofA.id])).toHaveLength(1);
    expect((await env.core.assets.library.findFolderByPath(scope(teamA), '/isolated/deep'))!.pathIds).toEqual(ofA.folderIds);
  });

  it('leave out deleted files and unknown or invalid ids', async () => {
    await writeImage(input('gone.png'), { width: 4, height: 4, colour: '#440044', format: 'png' });
    const gone = await g.libraryFile(teamA, { file: input('gone.png') });
    await db('update library_files set deleted_at = now() where id = ?', [gone.id]);
    expect(await env.core.assets.library.findFilesByIds(scope(teamA), [gone.id, 2147483647, 0, -1])).toEqual([]);
    expect((await env.core.assets.library.mediaFor(await ctxOf(teamA), [gone.id])).size).toBe(0);
  });
});

describe('mediaFor (spec 2.5 media object, spec 8 link lifetimes)', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  const expOf = (url: string | null | undefined) => Number(new URL(url!).searchParams.get('exp'));

  it('gives a derived-preview link of 3600 s for an image, a 300 s download link, and the object fields', async () => {
    const bytes = await writeImage(input('m.jpg'), { width: 800, height: 600, colour: '#ff8800', format: 'jpeg' });
    const made = await g.libraryFile(teamA, { file: input('m.jpg') });
    const media = (await env.core.assets.library.mediaFor(await ctxOf(teamA, 'usable'), [made.id], now)).get(made.id)!;
    expect(media).toMatchObject({ id: made.id, name: 'm.jpg', mimeType: 'image/jpeg', size: String(bytes.length), width: 800, height: 600, duration: null });
    expect(media.previewUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:8080/files/${teamA.teamId}/${made.id}/preview\\?exp=\\d+&sig=[\\w-]{43}$`));
    expect(expOf(media.previewUrl)).toBe(now / 1000 + LINK_LIFETIME_SECONDS.preview);
    expect(new URL(media.downloadUrl!).pathname).toBe(`/files/${teamA.teamId}/${made.id}/download`);
    expect(expOf(media.downloadUrl)).toBe(now / 1000 + 300);
    expect(media.downloadUrlExpiresAt).toBe(new Date(now + 300_000).toISOString());
  });

  it('gives the original image as preview for 300 s when no preview can be derived, and no preview for non-images', async () => {
    await writeBmp(input('raw.bmp'), 2, 2);
    await writeWav(input('a.wav'), 250);
    const bmp = await g.libraryFile(teamA, { file: input('raw.bmp') });
    const wav = await g.libraryFile(teamA, { file: input('a.wav') });
    const media = await env.core.assets.library.mediaFor(await ctxOf(teamA, 'usable'), [bmp.id, wav.id], now);
    expect(new URL(media.get(bmp.id)!.previewUrl!).pathname).toBe(`/files/${teamA.teamId}/${bmp.id}/preview-original`);
    expect(expOf(media.get(bmp.id)!.previewUrl)).toBe(now / 1000 + 300);
    expect(media.get(wav.id)).toMatchObject({ previewUrl: null, mimeType: 'audio/wav', duration: 0.25, width: null });
  });

  it('bounds every link by the API key expiry', async () => {
    await writeImage(input('k.png'), { width: 20, height: 20, colour: '#00aa00', format: 'png' });
    const made = await g.libraryFile(teamA, { file: input('k.png') });
    const keyExpiry = '2030-01-01T00:01:40Z';
    const media = (await env.core.assets.library.mediaFor(await ctxOf(teamA, 'manage', keyExpiry), [made.id], now)).get(made.id)!;
    expect(expOf(media.previewUrl)).toBe(Date.parse(keyExpiry) / 1000);
    expect(expOf(media.downloadUrl)).toBe(Date.parse(keyExpiry) / 1000);
    expect(media.downloadUrlExpiresAt).toBe('2030-01-01T00:01:40.000Z');
    const later = (await env.core.assets.library.mediaFor(await ctxOf(teamA, 'manage', '2031-01-01T00:00:00Z'), [made.id], now)).get(made.id)!;
    expect(expOf(later.previewUrl)).toBe(now / 1000 + 3600);
  });

  describe('download links by role (usable or higher with products:read and products:download)', () => {
    const cases: Array<[Role, boolean]> = [
      ['view_only', false],
      ['usable', true],
      ['editable', true],
      ['manage', true],
    ];
    for (const [role, allowed] of cases) {
      it(`${allowed ? 'includes' : 'omits'} downloadUrl and downloadUrlExpiresAt for ${role}`, async () => {
        await writeImage(input('r.png'), { width: 3, height: 3, colour: '#330000', format: 'png' });
        const made = await g.libraryFile(teamA, { file: input('r.png') });
        const media = (await env.core.assets.library.mediaFor(await ctxOf(teamA, role), [made.id])).get(made.id)!;
        expect(media.previewUrl).not.toBeNull();
        expect('downloadUrl' in media).toBe(allowed);
        expect('downloadUrlExpiresAt' in media).toBe(allowed);
      });
    }
  });
});

describe('importFile input rules (each variant; the CLI passes flags through unchanged)', () => {
  let png: string;
  let outsider: number;
  beforeAll(async () => {
    png = input('rules.png');
    await writeImage(png, { width: 8, height: 8, colour: '#808080', format: 'png' });
    outsider = (await g.member(teamB, 'Outsider')).userId;
  });

  async function librarySnapshot() {
    const [counts] = await db<Record<string, string>>(
      `select (select count(*) from library_files) as files, (select count(*) from library_folders) as folders,
              (select count(*) from stored_objects) as objects, (select count(*) from library_tags) as tags,
              (select count(*) from library_file_tags) as file_tags`,
    );
    return { counts, stored: (await readdir(storage.path, { recursive: true })).sort() };
  }

  const cases: Array<[string, () => Record<string, unknown>, string, string | null]> = [
    ['a missing team', () => ({ file: png }), 'validation_failed', 'team'],
    ['a team id of 0', () => ({ team: 0, file: png }), 'validation_failed', 'team'],
    ['a team id that is not a number', () => ({ team: Number.NaN, file: png }), 'validation_failed', 'team'],
    ['an unknown team', () => ({ team: 2147483647, file: png }), 'not_found', null],
    ['a missing file', () => ({ team: teamA.teamId }), 'validation_failed', 'file'],
    ['a file that does not exist', () => ({ team: teamA.teamId, file: input('nope.png') }), 'validation_failed', 'file'],
    ['a file that is a directory', () => ({ team: teamA.teamId, file: inputs.path }), 'validation_failed', 'file'],
    ['an unknown field', () => ({ team: teamA.teamId, file: png, colour: 'red' }), 'validation_failed', 'colour'],
    ['a folder without a leading slash', () => ({ team: teamA.teamId, file: png, folder: 'a/b' }), 'validation_failed', 'folder'],
    ['a folder with an empty segment', () => ({ team: teamA.teamId, file: png, folder: '/a//b' }), 'validation_failed', 'folder'],
    ['a folder with a trailing slash', () => ({ team: teamA.teamId, file: png, folder: '/a/b/' }), 'validation_failed', 'folder'],
    ['a folder with ".."', () => ({ team: teamA.teamId, file: png, folder: '/a/../b' }), 'validation_failed', 'folder'],
    ['a folder with "."', () => ({ team: teamA.teamId, file: png, folder: '/a/./b' }), 'validation_failed', 'folder'],
    ['a folder with a blank name', () => ({ team: teamA.teamId, file: png, folder: '/a/  ' }), 'validation_failed', 'folder'],
    ['a folder with a control character', () => ({ team: teamA.teamId, file: png, folder: '/a/\u0007' }), 'validation_failed', 'folder'],
    ['a folder of 33 levels', () => ({ team: teamA.teamId, file: png, folder: '/x'.repeat(33) }), 'validation_failed', 'folder'],
    ['a folder name of 256 characters', () => ({ team: teamA.teamId, file: png, folder: `/${'f'.repeat(256)}` }), 'validation_failed', 'folder'],
    ['a name with a slash', () => ({ team: teamA.teamId, file: png, name: 'a/b.png' }), 'validation_failed', 'name'],
    ['an empty name', () => ({ team: teamA.teamId, file: png, name: '' }), 'validation_failed', 'name'],
    ['a blank name', () => ({ team: teamA.teamId, file: png, name: '   ' }), 'validation_failed', 'name'],
    ['a name with a control character', () => ({ team: teamA.teamId, file: png, name: 'a\u0000b' }), 'validation_failed', 'name'],
    ['a 256-character name', () => ({ team: teamA.teamId, file: png, name: 'n'.repeat(256) }), 'validation_failed', 'name'],
    ['an empty tag', () => ({ team: teamA.teamId, file: png, tags: ['a', ' ', 'b'] }), 'validation_failed', 'tags'],
    ['a 65-character tag', () => ({ team: teamA.teamId, file: png, tags: ['t'.repeat(65)] }), 'validation_failed', 'tags'],
    ['51 tags', () => ({ team: teamA.teamId, file: png, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }), 'validation_failed', 'tags'],
    ['a 1025-character description', () => ({ team: teamA.teamId, file: png, description: 'd'.repeat(1025) }), 'validation_failed', 'description'],
    ['a score of 6', () => ({ team: teamA.teamId, file: png, score: 6 }), 'validation_failed', 'score'],
    ['a score of -1', () => ({ team: teamA.teamId, file: png, score: -1 }), 'validation_failed', 'score'],
    ['a score of 2.5', () => ({ team: teamA.teamId, file: png, score: 2.5 }), 'validation_failed', 'score'],
    ['a score that is text', () => ({ team: teamA.teamId, file: png, score: 'high' }), 'validation_failed', 'score'],
    ['an ftp link', () => ({ team: teamA.teamId, file: png, link: 'ftp://example.com/a' }), 'validation_failed', 'link'],
    ['a link that is not a URL', () => ({ team: teamA.teamId, file: png, link: 'example.com/a' }), 'validation_failed', 'link'],
    ['a link with credentials', () => ({ team: teamA.teamId, file: png, link: 'https://u:p@example.com/' }), 'validation_failed', 'link'],
    ['a 2049-character link', () => ({ team: teamA.teamId, file: png, link: `https://example.com/${'p'.repeat(2029)}` }), 'validation_failed', 'link'],
    ['a user of another team', () => ({ team: teamA.teamId, file: png, user: outsider }), 'validation_failed', 'user'],
    ['an unknown user', () => ({ team: teamA.teamId, file: png, user: 2147483647 }), 'validation_failed', 'user'],
  ];

  for (const [what, build, code, field] of cases) {
    it(`rejects ${what} with ${code}${field ? ` on ${field}` : ''} and writes nothing`, async () => {
      const before = await librarySnapshot();
      const error = await env.core.assets.libraryImport.importFile(env.core.operatorCtx(), build()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code });
      if (field) expect((error as { details: Array<{ field: string }> }).details.map((d) => d.field)).toContain(field);
      expect(await librarySnapshot()).toEqual(before);
    });
  }

  it('accepts the limits: score 0 and 5, a 255-character name, 50 tags of 64 characters, a 1024-character description, 32 folder levels', async () => {
    const tags = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, '0')}${'t'.repeat(62)}`);
    const made = await g.libraryFile(teamA, { file: png, score: 0, name: 'n'.repeat(255), tags, description: 'd'.repeat(1024), folder: '/l'.repeat(32) });
    const again = await g.libraryFile(teamA, { file: png, score: 5, link: `https://example.com/${'p'.repeat(2028)}` });
    const [a, b] = await env.core.assets.library.findFilesByIds(scope(teamA), [made.id, again.id]);
    expect(a).toMatchObject({ score: 0, name: 'n'.repeat(255), description: 'd'.repeat(1024) });
    expect(a!.tags).toHaveLength(50);
    expect(made.folderIds).toHaveLength(32);
    expect(b!.score).toBe(5);
    expect(b!.link).toHaveLength(2048);
  });
});
