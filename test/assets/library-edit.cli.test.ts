import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { tempDir, writeImage } from '../support/media-files.ts';

/*
 * The library edits GraphQL offers (updateLibraryFile, moveLibraryFile) from the operator CLI:
 * `asset rename|describe|tags|move --user U --file F ...`, acting as that member through the same
 * core operation, answering with the file as search shows it.
 */

let env: TestEnv;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
let ann: number;
let outsider: number;
let otherTeamFolder: number;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  inputs = await tempDir('edit-cli-inputs');
  storage = await tempDir('edit-cli-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  const g = given(env);
  team = await g.team('Editors');
  ann = (await g.member(team, 'Ann')).userId;
  const elsewhere = await g.team('Elsewhere');
  outsider = (await g.member(elsewhere, 'Eve')).userId;
  await writeImage(join(inputs.path, 'red.png'), { width: 8, height: 8, colour: '#ff0000', format: 'png' });
  otherTeamFolder = (await g.libraryFile(elsewhere, { file: join(inputs.path, 'red.png'), folder: '/theirs' })).folderIds.at(-1)!;
  cliEnv = { DATABASE_URL: env.config.databaseUrl, STORAGE_DIR: storage.path, REDIS_URL: env.config.redisUrl, QUEUE_PREFIX: env.config.queuePrefix };
});
afterAll(async () => {
  await env.close();
  await inputs.remove();
  await storage.remove();
});

const shelf = (...args: string[]) => runCli(args, cliEnv);

async function newFile(folder = '/inbox'): Promise<{ id: number; folderIds: number[] }> {
  return given(env).libraryFile(team, { file: join(inputs.path, 'red.png'), folder, name: 'red.png', description: 'first', tags: ['old'] });
}

/** The file's row and tags as the database holds them. */
async function fileState(id: number) {
  const [row] = await env.orm.em
    .fork()
    .execute<{ name: string; description: string | null; folder_id: number | null; update_user_id: number | null }[]>(
      'select name, description, folder_id, update_user_id from library_files where id = ?',
      [id],
    );
  const tags = await env.orm.em
    .fork()
    .execute<{ name: string }[]>('select t.name from library_file_tags ft join library_tags t on t.id = ft.tag_id where ft.file_id = ? order by t.name', [id]);
  return { ...row!, tags: tags.map((t) => t.name) };
}

describe('asset rename | describe | tags | move (as the member --user)', () => {
  it('asset rename renames the file as the member and prints it as search shows it', async () => {
    const { id } = await newFile();
    const res = await shelf('asset', 'rename', '--user', String(ann), '--file', String(id), '--name', 'crimson.png');
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ id, name: 'crimson.png', updateUser: ann, description: 'first', tags: [{ name: 'old' }] });
    expect(res.json.downloadUrl).toEqual(expect.any(String));
    expect(await fileState(id)).toMatchObject({ name: 'crimson.png', update_user_id: ann });
  });

  it('asset describe sets the description, and an empty --description clears it', async () => {
    const { id } = await newFile();
    expect((await shelf('asset', 'describe', '--user', String(ann), '--file', String(id), '--description', 'a red square')).json).toMatchObject({
      id,
      description: 'a red square',
    });
    expect((await fileState(id)).description).toBe('a red square');
    const cleared = await shelf('asset', 'describe', '--user', String(ann), '--file', String(id), '--description', '');
    expect(cleared.json).toMatchObject({ id, description: null });
    expect((await fileState(id)).description).toBeNull();
  });

  it('asset tags replaces the tags (trimmed, duplicates collapsed), and an empty --tags clears them', async () => {
    const { id } = await newFile();
    const res = await shelf('asset', 'tags', '--user', String(ann), '--file', String(id), '--tags', 'red, square,red');
    expect(res.code).toBe(0);
    expect(res.json.tags.map((t: { name: string }) => t.name)).toEqual(['red', 'square']);
    expect((await fileState(id)).tags).toEqual(['red', 'square']);
    expect((await shelf('asset', 'tags', '--user', String(ann), '--file', String(id), '--tags', '')).json.tags).toEqual([]);
    expect((await fileState(id)).tags).toEqual([]);
  });

  it('asset move moves the file to a folder of the team, and --folder root to the library root', async () => {
    const { folderIds: target } = await newFile('/archive/2026');
    const { id } = await newFile();
    const moved = await shelf('asset', 'move', '--user', String(ann), '--file', String(id), '--folder', String(target.at(-1)));
    expect(moved.code).toBe(0);
    expect(moved.json).toMatchObject({ id, parentIds: target });
    expect((await fileState(id)).folder_id).toBe(target.at(-1));
    const root = await shelf('asset', 'move', '--user', String(ann), '--file', String(id), '--folder', 'root');
    expect(root.json).toMatchObject({ id, parentIds: [] });
    expect((await fileState(id)).folder_id).toBeNull();
  });

  const refusals: Array<[string, (file: number) => string[], string, string | null]> = [
    ['a name with a slash', (f) => ['rename', '--user', String(ann), '--file', String(f), '--name', 'a/b.png'], 'validation_failed', 'name'],
    ['a missing --name', (f) => ['rename', '--user', String(ann), '--file', String(f)], 'validation_failed', 'name'],
    ['an empty tag among others', (f) => ['tags', '--user', String(ann), '--file', String(f), '--tags', 'a,,b'], 'validation_failed', 'tags'],
    [
      'a 1025-character description',
      (f) => ['describe', '--user', String(ann), '--file', String(f), '--description', 'd'.repeat(1025)],
      'validation_failed',
      'description',
    ],
    [
      'a --folder that is neither an id nor root',
      (f) => ['move', '--user', String(ann), '--file', String(f), '--folder', 'archive'],
      'validation_failed',
      'folderId',
    ],
    ["another team's folder", (f) => ['move', '--user', String(ann), '--file', String(f), '--folder', String(otherTeamFolder)], 'not_found', null],
    ['a member of another team', (f) => ['rename', '--user', String(outsider), '--file', String(f), '--name', 'theirs.png'], 'not_found', null],
    ['a member that does not exist', (f) => ['describe', '--user', '2147483647', '--file', String(f), '--description', 'x'], 'not_found', null],
    ['a file that does not exist', () => ['rename', '--user', String(ann), '--file', '2147483647', '--name', 'x.png'], 'not_found', null],
  ];
  for (const [what, args, code, field] of refusals) {
    it(`refuses ${what} with ${code}${field ? ` naming ${field}` : ''}, exit 1, and changes nothing`, async () => {
      const { id } = await newFile();
      const before = await fileState(id);
      const res = await shelf('asset', ...args(id));
      expect(res.code).toBe(1);
      expect(res.json.error.code).toBe(code);
      if (field) expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await fileState(id)).toEqual(before);
    });
  }
});
