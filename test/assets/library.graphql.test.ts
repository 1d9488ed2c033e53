import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/core/access/roles.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
const keys = {} as Record<Role, GivenKey>;

beforeAll(async () => {
  storage = await tempDir('search-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  for (const role of ROLES) keys[role] = await given(env).key(lib.teamA, role);
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
});

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

/** Every row a library edit can touch, to prove a refused edit changed nothing. */
async function librarySnapshot(): Promise<string> {
  const [row] = await db<{ s: string }>(
    `select (select json_agg(f order by f.id) from (select id, folder_id, name, description, score, link, ai_tags, ai_title, ai_description,
                    ai_detailed_description, tag_names, tag_ids, deleted_at, updated_at from library_files) f)::text
         || (select json_agg(d order by d.id) from (select id, parent_id, name, path, path_ids from library_folders) d)::text
         || coalesce((select json_agg(m order by m.folder_id, m.member_id) from library_folder_members m)::text, '') as s`,
  );
  return row!.s;
}

const ITEM =
  'id name parentIds folders { id name path } tags { id name } size score description link imageContentAnalysis { aiTags aiTitle aiDescription aiDetailedDescription }';

describe('GraphQL searchAssets', () => {
  it('returns AssetItems with their tags and folders, and the exact total', async () => {
    const res = await graphql(env, lib.keyA.key, `query($input: SearchAssetsInput) { searchAssets(input: $input) { total assets { ${ITEM} } } }`, {
      input: { keywords: ['red'], sort: { sortName: 'NAME', sortType: 'ASC' } },
    });
    expect(res.body.errors).toBeUndefined();
    const { total, assets } = res.body.data.searchAssets;
    expect(total).toBe(2);
    expect(assets.map((a: { name: string }) => a.name)).toEqual(['notes.txt', 'red.png']);
    expect(assets[1]).toMatchObject({
      folders: [
        { id: lib.folders['/photos'], name: 'photos', path: '/photos' },
        { id: lib.folders['/photos/summer'], name: 'summer', path: '/photos/summer' },
      ],
      tags: [{ name: 'sale' }, { name: 'warm' }],
    });
  });

  it('applies the same validation as REST (validation_failed with details)', async () => {
    const res = await graphql(env, lib.keyA.key, 'query { searchAssets(input: { endPoint: 500 }) { total } }');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'endPoint' }] });
  });

  it("returns child folders with needChildren, and never another team's files", async () => {
    const res = await graphql(
      env,
      lib.keyB.key,
      'query { searchAssets(input: { needChildren: true }) { total assets { name } folders { name } folderCount } }',
    );
    expect(res.body.data.searchAssets).toEqual({ total: 1, assets: [{ name: 'red.png' }], folders: [{ name: 'photos' }], folderCount: 1 });
  });

  describe('loads tags and folders of the results in a constant number of SQL statements (dataloaders)', () => {
    let counting: CountingApp;

    beforeAll(async () => {
      counting = await countingApp(env);
    });
    afterAll(async () => counting.close());

    async function counted(input: Record<string, unknown>, selection = 'id tags { name } folders { name }'): Promise<{ statements: number; results: number }> {
      counting.statements.length = 0;
      const res = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${lib.keyA.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          query: `query($input: SearchAssetsInput) { searchAssets(input: $input) { assets { ${selection} } } }`,
          variables: { input },
        }),
      });
      const body = res.json();
      expect(body.errors).toBeUndefined();
      return { statements: counting.statements.length, results: body.data.searchAssets.assets.length };
    }

    it('uses as many statements for 8 results as for 1', async () => {
      const one = await counted({ extensions: ['jpg'] });
      const eight = await counted({ endPoint: 20 });
      expect([one.results, eight.results]).toEqual([1, 8]);
      expect(eight.statements).toBe(one.statements);
      // authentication, the preamble (library version and reference checks), the page's ids, their size (admitted
      // against the answer: docs/operations.md "Memory") and their rows with their tags, count, then one folders batch
      expect(eight.statements).toBeLessThanOrEqual(7);
    });

    it("reads the tags with the results' rows, as REST does: asking for tags adds no statement", async () => {
      const withTags = await counted({ endPoint: 20 }, 'id tags { id name }');
      const without = await counted({ endPoint: 20 }, 'id');
      expect(withTags.results).toBe(8);
      expect(withTags.statements).toBe(without.statements);
    });
  });
});

describe('GraphQL searchShare and lookups', () => {
  it('searches a share with the same rules as REST', async () => {
    const { linkToken } = await env.core.assets.shares.create(env.core.operatorCtx(), { team: lib.teamA.teamId, folder: '/media' });
    const res = await graphql(
      env,
      lib.keyA.key,
      'query($t: String!) { searchShare(input: { linkToken: $t }) { totalCount assets { name } folders { name } folderCount } }',
      { t: linkToken },
    );
    expect(res.body.data.searchShare).toEqual({ totalCount: 2, assets: [{ name: 'clip.wav' }, { name: 'long.wav' }], folders: [], folderCount: 0 });
    const wrong = await graphql(env, lib.keyB.key, 'query($t: String!) { searchShare(input: { linkToken: $t }) { totalCount } }', { t: linkToken });
    expect(wrong.body.errors[0].extensions.code).toBe('share_not_found');
  });

  it("reads one file and one folder of the team, and null for another team's", async () => {
    const q = 'query($f: Int!, $d: Int!) { libraryFile(id: $f) { name } libraryFolder(id: $d) { name parent { name } } }';
    const mine = await graphql(env, lib.keyA.key, q, { f: lib.files['red.png'], d: lib.folders['/photos/summer'] });
    expect(mine.body.data).toEqual({ libraryFile: { name: 'red.png' }, libraryFolder: { name: 'summer', parent: { name: 'photos' } } });
    const theirs = await graphql(env, lib.keyB.key, q, { f: lib.files['red.png'], d: lib.folders['/photos/summer'] });
    expect(theirs.body.data).toEqual({ libraryFile: null, libraryFolder: null });
  });
});

const CREATE_FOLDER = 'mutation($p: Int, $n: String!) { createLibraryFolder(parentId: $p, name: $n) { id name path parentId } }';
const RENAME_FOLDER = 'mutation($id: Int!, $n: String!) { renameLibraryFolder(id: $id, name: $n) { id name path } }';
const UPDATE_FILE = `mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { ${ITEM} } }`;
const MOVE_FILE = 'mutation($id: Int!, $f: Int) { moveLibraryFile(id: $id, folderId: $f) { id parentIds } }';
const DELETE_FILE = 'mutation($id: Int!) { deleteLibraryFile(id: $id) { id } }';
const ADD_MEMBER = 'mutation($f: Int!, $u: Int!) { addLibraryFolderMember(folderId: $f, userId: $u) { folderId userId } }';

describe('GraphQL library folders', () => {
  it('createLibraryFolder creates a top-level folder and a child with their paths', async () => {
    const top = await graphql(env, keys.editable.key, CREATE_FOLDER, { n: 'Campaigns' });
    expect(top.body.data.createLibraryFolder).toMatchObject({ name: 'Campaigns', path: '/Campaigns', parentId: null });
    const child = await graphql(env, keys.editable.key, CREATE_FOLDER, { p: top.body.data.createLibraryFolder.id, n: '2026' });
    expect(child.body.data.createLibraryFolder).toMatchObject({ name: '2026', path: '/Campaigns/2026', parentId: top.body.data.createLibraryFolder.id });
    const [row] = await db<{ path_ids: number[] }>('select path_ids from library_folders where id = ?', [child.body.data.createLibraryFolder.id]);
    expect(row!.path_ids.map(Number)).toEqual([top.body.data.createLibraryFolder.id, child.body.data.createLibraryFolder.id]);
  });

  it("refuses a sibling name in use (409 name_in_use), a bad name, and another team's parent, changing nothing", async () => {
    const before = await librarySnapshot();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ n: 'photos' }, 'name_in_use'],
      [{ p: lib.folders['/photos'], n: 'summer' }, 'name_in_use'],
      [{ n: 'a/b' }, 'validation_failed'],
      [{ n: '..' }, 'validation_failed'],
      [{ n: '   ' }, 'validation_failed'],
      [{ n: 'x'.repeat(256) }, 'validation_failed'],
      [{ p: lib.folderOfB, n: 'mine' }, 'not_found'],
    ];
    for (const [variables, code] of cases) {
      const res = await graphql(env, keys.editable.key, CREATE_FOLDER, variables);
      expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe(code);
    }
    expect(await librarySnapshot()).toBe(before);
  });

  it('renameLibraryFolder renames a folder and rewrites the paths of its subtree', async () => {
    const top = (await graphql(env, keys.editable.key, CREATE_FOLDER, { n: 'Old name' })).body.data.createLibraryFolder;
    const child = (await graphql(env, keys.editable.key, CREATE_FOLDER, { p: top.id, n: 'inner' })).body.data.createLibraryFolder;
    const grandchild = (await graphql(env, keys.editable.key, CREATE_FOLDER, { p: child.id, n: 'deep' })).body.data.createLibraryFolder;
    const res = await graphql(env, keys.editable.key, RENAME_FOLDER, { id: top.id, n: 'New name' });
    expect(res.body.data.renameLibraryFolder).toEqual({ id: top.id, name: 'New name', path: '/New name' });
    const rows = await db<{ id: number; path: string }>('select id, path from library_folders where id = any(?::int[]) order by id', [
      `{${child.id},${grandchild.id}}`,
    ]);
    expect(rows.map((r) => r.path)).toEqual(['/New name/inner', '/New name/inner/deep']);
  });

  it('renameLibraryFolder refuses a name in use among siblings, changing nothing', async () => {
    const before = await librarySnapshot();
    const res = await graphql(env, keys.editable.key, RENAME_FOLDER, { id: lib.folders['/photos/summer'], n: 'winter' });
    expect(res.body.errors[0].extensions.code).toBe('name_in_use');
    expect(await librarySnapshot()).toBe(before);
  });
});

describe('GraphQL library files', () => {
  it('updateLibraryFile sets name, description, tags, score, link and analysis fields', async () => {
    const res = await graphql(env, keys.editable.key, UPDATE_FILE, {
      id: lib.files['root.png'],
      input: {
        name: 'sun.png',
        description: 'A yellow sun',
        tags: ['sun', 'warm'],
        score: 4,
        link: 'https://example.com/sun',
        analysis: { aiTags: 'sun,sky', aiTitle: 'Sun', aiDescription: 'A yellow square', aiDetailedDescription: [{ object: 'sun' }] },
      },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateLibraryFile).toMatchObject({
      name: 'sun.png',
      description: 'A yellow sun',
      tags: [{ name: 'sun' }, { id: lib.tags.warm, name: 'warm' }],
      score: 4,
      link: 'https://example.com/sun',
      imageContentAnalysis: { aiTags: 'sun,sky', aiTitle: 'Sun', aiDescription: 'A yellow square', aiDetailedDescription: [{ object: 'sun' }] },
    });
    const found = await graphql(env, lib.keyA.key, 'query { searchAssets(input: { keywords: ["yellow square"] }) { assets { name } } }');
    expect(found.body.data.searchAssets.assets).toEqual([{ name: 'sun.png' }]);
  });

  it('updateLibraryFile clears fields with null and leaves omitted ones', async () => {
    const res = await graphql(env, keys.editable.key, UPDATE_FILE, {
      id: lib.files['root.png'],
      input: { description: null, score: null, link: null, analysis: { aiTags: null, aiTitle: null, aiDescription: null, aiDetailedDescription: null } },
    });
    expect(res.body.data.updateLibraryFile).toMatchObject({ name: 'sun.png', description: null, score: null, link: null, imageContentAnalysis: null });
  });

  it('updateLibraryFile refuses invalid values with validation_failed, changing nothing', async () => {
    const before = await librarySnapshot();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'a/b' }, 'name'],
      [{ score: 6 }, 'score'],
      [{ link: 'ftp://example.com/x' }, 'link'],
      [{ tags: ['ok', '  '] }, 'tags'],
      [{ description: 'd'.repeat(1025) }, 'description'],
      [{ analysis: { aiTitle: 't'.repeat(513) } }, 'analysis.aiTitle'],
      [{ analysis: { aiDetailedDescription: { not: 'an array' } } }, 'analysis.aiDetailedDescription'],
      [{ analysis: { aiDetailedDescription: ['x'.repeat(70_000)] } }, 'analysis.aiDetailedDescription'],
    ];
    for (const [input, field] of cases) {
      const res = await graphql(env, keys.editable.key, UPDATE_FILE, { id: lib.files['blue.jpg'], input });
      expect(res.body.errors?.[0]?.extensions, JSON.stringify(input)).toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field })],
      });
    }
    expect(await librarySnapshot()).toBe(before);
  });

  it('moveLibraryFile moves a file into a folder and back to the root', async () => {
    const moved = await graphql(env, keys.editable.key, MOVE_FILE, { id: lib.files['root.png'], f: lib.folders['/docs'] });
    expect(moved.body.data.moveLibraryFile).toEqual({ id: lib.files['root.png'], parentIds: [lib.folders['/docs']] });
    const back = await graphql(env, keys.editable.key, MOVE_FILE, { id: lib.files['root.png'], f: null });
    expect(back.body.data.moveLibraryFile.parentIds).toEqual([]);
  });

  it("moveLibraryFile refuses another team's folder with not_found, changing nothing", async () => {
    const before = await librarySnapshot();
    const res = await graphql(env, keys.editable.key, MOVE_FILE, { id: lib.files['root.png'], f: lib.folderOfB });
    expect(res.body.errors[0].extensions.code).toBe('not_found');
    expect(await librarySnapshot()).toBe(before);
  });

  it('deleteLibraryFile removes the file from search; deleting it again is not_found', async () => {
    const res = await graphql(env, keys.editable.key, DELETE_FILE, { id: lib.files['long.wav'] });
    expect(res.body.data.deleteLibraryFile).toEqual({ id: lib.files['long.wav'] });
    const search = await graphql(env, lib.keyA.key, 'query { searchAssets(input: { extensions: ["wav"] }) { total assets { name } } }');
    expect(search.body.data.searchAssets).toEqual({ total: 1, assets: [{ name: 'clip.wav' }] });
    const again = await graphql(env, keys.editable.key, DELETE_FILE, { id: lib.files['long.wav'] });
    expect(again.body.errors[0].extensions.code).toBe('not_found');
  });
});

describe('GraphQL library edits: roles and teams', () => {
  const edits: Array<[string, string, () => Record<string, unknown>, Role]> = [
    ['createLibraryFolder', CREATE_FOLDER, () => ({ n: `Role folder ${Math.random()}` }), 'editable'],
    ['renameLibraryFolder', RENAME_FOLDER, () => ({ id: lib.folders['/docs'], n: 'docs' }), 'editable'],
    ['updateLibraryFile', UPDATE_FILE, () => ({ id: lib.files['notes.txt'], input: { score: 1 } }), 'editable'],
    ['moveLibraryFile', MOVE_FILE, () => ({ id: lib.files['notes.txt'], f: lib.folders['/docs'] }), 'editable'],
    ['addLibraryFolderMember', ADD_MEMBER, () => ({ f: lib.folders['/docs'], u: lib.ann }), 'manage'],
  ];
  for (const [name, query, variables, minimum] of edits) {
    for (const role of ROLES) {
      const allowed = ROLES.indexOf(role) >= ROLES.indexOf(minimum);
      it(`${name} is ${allowed ? 'allowed' : 'forbidden'} for ${role}`, async () => {
        const before = await librarySnapshot();
        const res = await graphql(env, keys[role].key, query, variables());
        if (allowed) expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
        else {
          expect(res.body.errors[0].extensions.code).toBe('forbidden');
          expect(await librarySnapshot()).toBe(before);
        }
      });
    }
  }

  it('deleteLibraryFile is forbidden below editable, changing nothing', async () => {
    const before = await librarySnapshot();
    for (const role of ['view_only', 'usable'] as const) {
      const res = await graphql(env, keys[role].key, DELETE_FILE, { id: lib.files['notes.txt'] });
      expect(res.body.errors[0].extensions.code).toBe('forbidden');
    }
    expect(await librarySnapshot()).toBe(before);
  });

  it('a key of another team gets not_found for every file and folder of this team, changing nothing', async () => {
    const outsider = await given(env).key(lib.teamB, 'manage');
    const before = await librarySnapshot();
    const attempts: Array<[string, Record<string, unknown>]> = [
      [RENAME_FOLDER, { id: lib.folders['/docs'], n: 'stolen' }],
      [CREATE_FOLDER, { p: lib.folders['/docs'], n: 'inside' }],
      [UPDATE_FILE, { id: lib.files['notes.txt'], input: { name: 'stolen.txt' } }],
      [MOVE_FILE, { id: lib.files['notes.txt'], f: null }],
      [DELETE_FILE, { id: lib.files['notes.txt'] }],
      [ADD_MEMBER, { f: lib.folders['/docs'], u: lib.ann }],
    ];
    for (const [query, variables] of attempts) {
      const res = await graphql(env, outsider.key, query, variables);
      expect(res.body.errors[0].extensions.code, query).toBe('not_found');
    }
    expect(await librarySnapshot()).toBe(before);
  });
});
