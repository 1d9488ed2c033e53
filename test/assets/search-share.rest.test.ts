import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashShareToken } from '../../src/core/assets/shares/share-secrets.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
let photos: string;
let locked: string;

beforeAll(async () => {
  storage = await tempDir('search-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  const op = env.core.operatorCtx();
  photos = (await env.core.assets.shares.create(op, { team: lib.teamA.teamId, folder: '/photos' })).linkToken;
  locked = (await env.core.assets.shares.create(op, { team: lib.teamA.teamId, folder: '/photos/summer', password: 'open sesame' })).linkToken;
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
});

async function share(body: Record<string, unknown>, key = lib.keyA.key) {
  return send(env, { method: 'POST', url: '/open/search-share', key, body });
}

const names = (res: { body: any }) => res.body.result.assets.map((a: { name: string }) => a.name);

async function shareRows(): Promise<string> {
  const rows = await env.orm.em.fork().execute<{ n: string }[]>("select count(*) || '/' || coalesce(max(id), 0) as n from library_shares");
  return rows[0]!.n;
}

describe('share create (operator)', () => {
  it('issues an unguessable 43-character token and stores only its hash, and the password only as scrypt', async () => {
    expect(photos).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await env.orm.em
      .fork()
      .execute<{ token_hash: string; password_hash: string | null }[]>('select token_hash, password_hash from library_shares order by id');
    expect(rows.map((r) => r.token_hash)).toEqual([hashShareToken(photos), hashShareToken(locked)]);
    expect(JSON.stringify(rows)).not.toContain(photos);
    expect(rows[0]!.password_hash).toBeNull();
    expect(rows[1]!.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(rows[1]!.password_hash).not.toContain('open sesame');
  });

  it('refuses the library root, a missing folder, a short password and an unknown team, writing nothing', async () => {
    const op = env.core.operatorCtx();
    const before = await shareRows();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ team: lib.teamA.teamId, folder: '/' }, 'validation_failed', 'folder'],
      [{ team: lib.teamA.teamId, folder: '/nowhere' }, 'validation_failed', 'folder'],
      [{ team: lib.teamB.teamId, folder: '/docs' }, 'validation_failed', 'folder'],
      [{ team: lib.teamA.teamId, folder: '/photos', password: 'abc' }, 'validation_failed', 'password'],
      [{ team: lib.teamA.teamId, folder: '/photos', password: '    ' }, 'validation_failed', 'password'],
    ];
    for (const [input, code, field] of cases) {
      await expect(env.core.assets.shares.create(op, input)).rejects.toMatchObject({ code, details: [expect.objectContaining({ field })] });
    }
    await expect(env.core.assets.shares.create(op, { team: 2147483647, folder: '/photos' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await shareRows()).toBe(before);
  });
});

describe('POST /open/search-share', () => {
  it('lists the files directly in the shared folder, by name, with totalCount, in the open envelope', async () => {
    const res = await share({ linkToken: photos });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: '0', traceId: res.headers['x-request-id'] });
    expect(res.body.result).toMatchObject({ totalCount: 2, folders: [], folderCount: 0 });
    expect(names(res)).toEqual(['half-green.png', 'logo.webp']);
    const item = res.body.result.assets[0];
    expect(item).toMatchObject({ id: lib.files['half-green.png'], parentIds: [lib.folders['/photos']], publicUrl: '' });
    expect(item.downloadUrl).toContain(`/files/${lib.teamA.teamId}/${item.id}/download?`);
    expect(item.thumbnailAccessUrl).toContain('/preview?');
  });

  it('needChildren: adds the child folders as FolderDTO with folderCount', async () => {
    const res = await share({ linkToken: photos, needChildren: true });
    expect(res.body.result.folders).toEqual([
      { id: lib.folders['/photos/summer'], name: 'summer' },
      { id: lib.folders['/photos/winter'], name: 'winter' },
    ]);
    expect(res.body.result.folderCount).toBe(2);
  });

  it('folderId: lists a folder under the share root', async () => {
    const res = await share({ linkToken: photos, folderId: lib.folders['/photos/summer'] });
    expect(names(res)).toEqual(['red.png']);
    expect(res.body.result.totalCount).toBe(1);
  });

  it('isRoot: lists the share root; with another folderId it is 400 invalid_parameter', async () => {
    expect(names(await share({ linkToken: photos, isRoot: true }))).toEqual(['half-green.png', 'logo.webp']);
    expect(names(await share({ linkToken: photos, isRoot: true, folderId: lib.folders['/photos'] }))).toEqual(['half-green.png', 'logo.webp']);
    const res = await share({ linkToken: photos, isRoot: true, folderId: lib.folders['/photos/summer'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_parameter', details: [{ field: 'folderId' }] });
  });

  it('keyword: file and child folder names contain it, ignoring case', async () => {
    expect(names(await share({ linkToken: photos, keyword: 'LOGO' }))).toEqual(['logo.webp']);
    const res = await share({ linkToken: photos, keyword: 'sum', needChildren: true });
    expect(res.body.result).toMatchObject({ assets: [], totalCount: 0, folders: [{ id: lib.folders['/photos/summer'], name: 'summer' }], folderCount: 1 });
  });

  it('pages with startPoint/endPoint (default 0 and 40), totalCount unchanged', async () => {
    const res = await share({ linkToken: photos, startPoint: 1, endPoint: 2 });
    expect(names(res)).toEqual(['logo.webp']);
    expect(res.body.result.totalCount).toBe(2);
    const bad = await share({ linkToken: photos, startPoint: 0, endPoint: 101 });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('endPoint');
  });

  it('no longer lists a deleted file', async () => {
    const editor = await given(env).ctx(await given(env).key(lib.teamA, 'editable'));
    const res1 = await share({ linkToken: photos, folderId: lib.folders['/photos/winter'] });
    expect(names(res1)).toEqual(['blue.jpg']);
    await env.core.assets.recycleBin.deleteFile(editor, lib.files['blue.jpg']!);
    const res2 = await share({ linkToken: photos, folderId: lib.folders['/photos/winter'] });
    expect(res2.body.result).toMatchObject({ assets: [], totalCount: 0 });
  });
});

describe('search-share never reaches outside the shared folder', () => {
  it('answers every folder of the team outside the share with 404 not_found', async () => {
    const folders = await env.orm.em
      .fork()
      .execute<{ id: number; path: string }[]>('select id, path from library_folders where team_id = ?', [lib.teamA.teamId]);
    // the loop asserts nothing on an empty fixture: both kinds of folder must be there
    const inside = folders.filter((f) => f.path === '/photos' || f.path.startsWith('/photos/'));
    expect(inside.length).toBeGreaterThanOrEqual(2);
    expect(folders.length - inside.length).toBeGreaterThanOrEqual(1);
    for (const folder of folders) {
      const res = await share({ linkToken: photos, folderId: folder.id });
      if (folder.path === '/photos' || folder.path.startsWith('/photos/')) {
        expect(res.status, folder.path).toBe(200);
        for (const asset of res.body.result.assets) expect(asset.parentIds).toContain(lib.folders['/photos']);
      } else {
        expect(res.status, folder.path).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    }
  });

  it("answers another team's folder with 404 not_found", async () => {
    const res = await share({ linkToken: photos, folderId: lib.folderOfB });
    expect(res.status).toBe(404);
  });

  it("answers a token used with another team's key, and an unknown token, with 404 share_not_found", async () => {
    for (const [token, key] of [
      [photos, lib.keyB.key],
      ['x'.repeat(43), lib.keyA.key],
    ] as const) {
      const res = await share({ linkToken: token }, key);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'share_not_found', result: null });
    }
  });
});

describe('search-share with a password-protected share', () => {
  it('answers 403 share_password_required without a password', async () => {
    for (const body of [{ linkToken: locked }, { linkToken: locked, password: '' }, { linkToken: locked, password: null }]) {
      const res = await share(body);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'share_password_required', result: null });
    }
  });

  it('answers 403 share_password_invalid for a wrong password', async () => {
    for (const password of ['open sesame ', 'OPEN SESAME', 'x']) {
      const res = await share({ linkToken: locked, password });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('share_password_invalid');
    }
  });

  it('lists the folder with the right password', async () => {
    const res = await share({ linkToken: locked, password: 'open sesame' });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['red.png']);
  });

  it('checks the token before the password: an unknown token is share_not_found even with a password', async () => {
    const res = await share({ linkToken: 'y'.repeat(43), password: 'open sesame' });
    expect(res.body.code).toBe('share_not_found');
  });
});

describe('search-share with an invalid body', () => {
  const cases: Array<[string, unknown, string]> = [
    ['no linkToken', {}, 'linkToken'],
    ['an empty linkToken', { linkToken: '' }, 'linkToken'],
    ['a numeric linkToken', { linkToken: 5 }, 'linkToken'],
    ['a zero folderId', { linkToken: 'x', folderId: 0 }, 'folderId'],
    ['a string needChildren', { linkToken: 'x', needChildren: 'yes' }, 'needChildren'],
    ['a 101-character keyword', { linkToken: 'x', keyword: 'k'.repeat(101) }, 'keyword'],
    ['a negative startPoint', { linkToken: 'x', startPoint: -1 }, 'startPoint'],
    ['endPoint before startPoint', { linkToken: 'x', startPoint: 3, endPoint: 2 }, 'endPoint'],
    ['an unknown field', { linkToken: 'x', sort: 'name' }, 'sort'],
  ];
  for (const [label, body, field] of cases) {
    it(`rejects ${label} with 400 invalid_parameter naming ${field}, and changes nothing`, async () => {
      const before = await shareRows();
      const res = await share(body as Record<string, unknown>);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_parameter', result: null });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await shareRows()).toBe(before);
    });
  }
});
