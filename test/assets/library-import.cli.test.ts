import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let env: TestEnv;
let g: ReturnType<typeof given>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
let other: GivenTeam;
let member: number;
let outsider: number;
let png: string;
let pngBytes: Buffer;

beforeAll(async () => {
  storage = await tempDir('storage');
  inputs = await tempDir('inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  g = given(env);
  team = await g.team('Library');
  other = await g.team('Other');
  member = (await g.member(team, 'Ann')).userId;
  outsider = (await g.member(other, 'Bob')).userId;
  png = join(inputs.path, 'photo.jpg');
  // a PNG named .jpg: the MIME type must come from the content
  pngBytes = await writeImage(png, { width: 300, height: 200, colour: '#ff0000', format: 'png' });
});
afterAll(async () => {
  await env.close();
  await storage.remove();
  await inputs.remove();
});

/**
 * Runs an operator command against this file's database and storage: in this process (support/cli.ts),
 * or as an operator would (`npm run -s shelf -- ...`, a process of its own) where the test is about
 * the process (its stdout and stderr, npm's start).
 */
const shelf = (...args: string[]): Promise<CliResult> => runCli(args, { DATABASE_URL: env.config.databaseUrl, STORAGE_DIR: storage.path });

function shelfProcess(...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'shelf', '--', ...args], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: env.config.databaseUrl, STORAGE_DIR: storage.path },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Everything an import can change: library rows of every table, and the files in storage. */
async function librarySnapshot() {
  const [counts] = await db<Record<string, string>>(
    `select (select count(*) from library_files) as files, (select count(*) from library_folders) as folders,
            (select count(*) from stored_objects) as objects, (select count(*) from library_tags) as tags,
            (select count(*) from library_file_tags) as file_tags`,
  );
  return { counts, stored: await listFiles(storage.path) };
}

describe('asset import --file', () => {
  it(
    'prints {id, assetId, folderIds}, creates the folders and records every flag (npm run -s shelf, a process of its own)',
    async () => {
      const run = await shelfProcess(
        'asset',
        'import',
        '--team',
        String(team.teamId),
        '--file',
        png,
        '--folder',
        '/brand/shots',
        '--name',
        'Hero.jpg',
        '--tags',
        'red, hero',
        '--description',
        'Front view',
        '--score',
        '4',
        '--link',
        'https://example.com/p/1',
        '--user',
        String(member),
      );
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(Object.keys(run.json).sort()).toEqual(['assetId', 'folderIds', 'id']);
      const folders = await db<{ id: number; path: string }>('select id, path from library_folders where id = any(?::int[]) order by id', [
        `{${run.json.folderIds.join(',')}}`,
      ]);
      expect(folders.map((f) => f.path)).toEqual(['/brand', '/brand/shots']);
      expect(folders.map((f) => f.id)).toEqual(run.json.folderIds);
      const [file] = await env.core.assets.library.findFilesByIds({ em: env.orm.em.fork(), teamId: team.teamId }, [run.json.id]);
      expect(file).toMatchObject({
        objectId: run.json.assetId,
        folderId: run.json.folderIds[1],
        name: 'Hero.jpg',
        extension: 'jpg',
        mimeType: 'image/png',
        size: String(pngBytes.length),
        width: 300,
        height: 200,
        description: 'Front view',
        score: 4,
        link: 'https://example.com/p/1',
        source: 2,
        ownerUserId: member,
        creatorUserId: member,
        createUserId: member,
        updateUserId: member,
      });
      expect(file!.tags.map((t) => t.name)).toEqual(['hero', 'red']);
      const [object] = await db<{ storage_key: string }>('select storage_key from stored_objects where id = ?', [run.json.assetId]);
      expect(await readFile(join(storage.path, object!.storage_key))).toEqual(pngBytes);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it('reuses existing folders and stores identical bytes once (same assetId, a second placement)', async () => {
    const first = await shelf('asset', 'import', '--team', String(team.teamId), '--file', png, '--folder', '/reuse/a');
    const second = await shelf('asset', 'import', '--team', String(team.teamId), '--file', png, '--folder', '/reuse/a/b');
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.json.folderIds.slice(0, 2)).toEqual(first.json.folderIds);
    expect(second.json.folderIds).toHaveLength(3);
    expect(second.json.assetId).toBe(first.json.assetId);
    expect(second.json.id).not.toBe(first.json.id);
    const objects = await listFiles(join(storage.path, 'objects'));
    expect(objects).toHaveLength(1);
  });

  it('places a file at the library root without --folder (folderIds [])', async () => {
    const run = await shelf('asset', 'import', '--team', String(team.teamId), '--file', png);
    expect(run.code).toBe(0);
    expect(run.json.folderIds).toEqual([]);
    const [row] = await db<{ folder_id: number | null; name: string }>('select folder_id, name from library_files where id = ?', [run.json.id]);
    expect(row).toEqual({ folder_id: null, name: 'photo.jpg' });
  });
});

describe('asset import --dir', () => {
  it(
    'mirrors the tree, reports per-file failures without stopping, and keeps stdout one JSON object with progress on stderr (a process of its own)',
    async () => {
      const root = join(inputs.path, 'tree');
      await mkdir(join(root, 'docs', 'deep'), { recursive: true });
      await mkdir(join(root, 'empty'));
      await writeFile(join(root, 'top.png'), pngBytes);
      await writeFile(join(root, 'docs', 'readme.txt'), 'read me\n');
      await writeImage(join(root, 'docs', 'deep', 'pic.jpg'), { width: 40, height: 30, colour: '#00ff00', format: 'jpeg' });
      await writeFile(join(root, 'bad\u0001name.txt'), 'x');
      await symlink(join(root, 'top.png'), join(root, 'shortcut.png'));
      const run = await shelfProcess('asset', 'import', '--team', String(team.teamId), '--dir', root, '--folder', '/imported');
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(run.json.imported).toBe(3);
      expect(run.json.failed).toEqual([
        { path: 'shortcut.png', error: 'symbolic links are not followed' },
        { path: 'bad\u0001name.txt', error: expect.stringMatching(/^validation_failed: .*\(name must not contain/) },
      ]);
      expect(run.stderr).toContain('4/4 files');
      const folders = await db<{ path: string }>("select path from library_folders where team_id = ? and path like '/imported%' order by path", [team.teamId]);
      expect(folders.map((f) => f.path)).toEqual(['/imported', '/imported/docs', '/imported/docs/deep', '/imported/empty']);
      const files = await db<{ path: string; name: string; mime_type: string }>(
        `select d.path, f.name, f.mime_type from library_files f join library_folders d on d.id = f.folder_id
        where f.team_id = ? and d.path like '/imported%' order by d.path, f.name`,
        [team.teamId],
      );
      expect(files).toEqual([
        { path: '/imported', name: 'top.png', mime_type: 'image/png' },
        { path: '/imported/docs', name: 'readme.txt', mime_type: 'text/plain' },
        { path: '/imported/docs/deep', name: 'pic.jpg', mime_type: 'image/jpeg' },
      ]);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it('imports into the library root without --folder', async () => {
    const root = join(inputs.path, 'flat');
    await mkdir(join(root, 'rootsub'), { recursive: true });
    await writeFile(join(root, 'rootsub', 'one.txt'), 'one\n');
    const run = await shelf('asset', 'import', '--team', String(team.teamId), '--dir', root);
    expect(run.json).toEqual({ imported: 1, failed: [] });
    const [folder] = await db<{ path: string; parent_id: number | null }>(
      "select path, parent_id from library_folders where team_id = ? and name = 'rootsub'",
      [team.teamId],
    );
    expect(folder).toEqual({ path: '/rootsub', parent_id: null });
  });
});

// One run per flag and per CLI-level rule; every variant of each rule is checked against the core
// by test/assets/library.core.test.ts ("importFile input rules").
describe('asset import input errors: {"error":{code,message}}, a non-zero exit, and nothing written', () => {
  const T = () => String(team.teamId);
  const file = () => ['--file', png];
  const cases: Array<[string, () => string[], string, string | null]> = [
    ['a missing --team', () => [...file()], 'validation_failed', 'team'],
    ['a non-numeric --team', () => ['--team', 'abc', ...file()], 'validation_failed', 'team'],
    ['an unknown team', () => ['--team', '2147483647', ...file()], 'not_found', null],
    ['neither --file nor --dir', () => ['--team', T()], 'validation_failed', 'file'],
    ['both --file and --dir', () => ['--team', T(), ...file(), '--dir', inputs.path], 'validation_failed', 'file'],
    ['a --file that does not exist', () => ['--team', T(), '--file', join(inputs.path, 'missing.png')], 'validation_failed', 'file'],
    ['a --file that is a directory', () => ['--team', T(), '--file', inputs.path], 'validation_failed', 'file'],
    ['a --folder without a leading slash', () => ['--team', T(), ...file(), '--folder', 'a/b'], 'validation_failed', 'folder'],
    ['a --name with a slash', () => ['--team', T(), ...file(), '--name', 'a/b.png'], 'validation_failed', 'name'],
    ['an empty tag in --tags', () => ['--team', T(), ...file(), '--tags', 'a,,b'], 'validation_failed', 'tags'],
    ['a 1025-character --description', () => ['--team', T(), ...file(), '--description', 'd'.repeat(1025)], 'validation_failed', 'description'],
    ['--score 6', () => ['--team', T(), ...file(), '--score', '6'], 'validation_failed', 'score'],
    ['a non-numeric --score', () => ['--team', T(), ...file(), '--score', 'high'], 'validation_failed', 'score'],
    ['an ftp --link', () => ['--team', T(), ...file(), '--link', 'ftp://example.com/a'], 'validation_failed', 'link'],
    ['a --user of another team', () => ['--team', T(), ...file(), '--user', String(outsider)], 'validation_failed', 'user'],
    ['a non-numeric --user', () => ['--team', T(), ...file(), '--user', 'ann'], 'validation_failed', 'user'],
    ['an unknown flag', () => ['--team', T(), ...file(), '--colour', 'red'], 'usage', null],
    ['a --dir that does not exist', () => ['--team', T(), '--dir', join(inputs.path, 'nowhere')], 'validation_failed', 'dir'],
    ['a --dir that is a file', () => ['--team', T(), '--dir', png], 'validation_failed', 'dir'],
    ['--dir with a file-only flag', () => ['--team', T(), '--dir', inputs.path, '--tags', 'a'], 'validation_failed', 'tags'],
    ['--dir with an invalid --folder', () => ['--team', T(), '--dir', inputs.path, '--folder', 'nope'], 'validation_failed', 'folder'],
    ['--dir with an unknown team', () => ['--team', '2147483647', '--dir', inputs.path], 'not_found', null],
  ];

  for (const [what, args, code, field] of cases) {
    it(`rejects ${what} with ${code}${field ? ` on ${field}` : ''} and writes nothing`, async () => {
      const before = await librarySnapshot();
      const run = await shelf('asset', 'import', ...args());
      expect(run.code).not.toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(run.json.error).toMatchObject({ code, message: expect.any(String) });
      if (field) expect(run.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await librarySnapshot()).toEqual(before);
    });
  }
});
