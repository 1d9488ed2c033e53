import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let env: TestEnv;
let storageDir: string;
let inputDir: string;
let team: GivenTeam;

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'shelf-icons-store-'));
  inputDir = await mkdtemp(join(tmpdir(), 'shelf-icons-in-'));
  env = await createTestEnv({ STORAGE_DIR: storageDir });
  team = await given(env).team();
});
afterAll(async () => {
  await env.close();
  await rm(storageDir, { recursive: true, force: true });
  await rm(inputDir, { recursive: true, force: true });
});

interface CliRun {
  exitCode: number | null;
  /** The one JSON line the CLI promises on stdout (the test fails if there is not exactly one). */
  json: any;
}

function oneJsonLine(exitCode: number | null, stdout: string): CliRun {
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one JSON line, got: ${stdout}`);
  return { exitCode, json: JSON.parse(lines[0]!) };
}

/** Runs `category-icon import` against this file's database and storage, in this process (support/cli.ts). */
async function shelf(args: string[]): Promise<CliRun> {
  const run = await runCli(args, { DATABASE_URL: env.config.databaseUrl, STORAGE_DIR: storageDir });
  return oneJsonLine(run.code, run.stdout);
}

/** Runs `npm run -s shelf -- ...` as an operator would, a process of its own, against this file's database and storage. */
function shelfProcess(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'shelf', '--', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: env.config.databaseUrl, STORAGE_DIR: storageDir, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      try {
        resolve(oneJsonLine(exitCode, stdout));
      } catch (e) {
        reject(e);
      }
    });
  });
}

async function inputFile(name: string, bytes: Buffer | string): Promise<string> {
  const path = join(inputDir, name);
  await writeFile(path, bytes);
  return path;
}

const canvas = () => sharp({ create: { width: 24, height: 16, channels: 4, background: '#ff8800' } });

async function iconRows(): Promise<
  Array<{ id: number; team_id: number; storage_key: string; mime_type: string; byte_size: number; width: number; height: number }>
> {
  return env.orm.em.fork().execute('select id, team_id, storage_key, mime_type, byte_size, width, height from category_icons order by id');
}

async function storedFiles(): Promise<string[]> {
  return (await readdir(storageDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
}

describe('npm run shelf -- category-icon import', () => {
  it(
    'imports a PNG, prints {"id"} and exits 0; the row and the stored bytes match the file (a process of its own)',
    async () => {
      const bytes = await canvas().png().toBuffer();
      const run = await shelfProcess(['category-icon', 'import', '--team', String(team.teamId), '--file', await inputFile('logo.png', bytes)]);
      expect(run.exitCode).toBe(0);
      expect(run.json).toEqual({ id: expect.any(Number) });
      const row = (await iconRows()).find((r) => r.id === run.json.id)!;
      expect(row).toMatchObject({ team_id: team.teamId, mime_type: 'image/png', byte_size: bytes.length, width: 24, height: 16 });
      expect(await readFile(join(storageDir, ...row.storage_key.split('/')))).toEqual(bytes);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it('identifies jpeg, webp, gif and svg by their content, whatever the file is called', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="20"><circle cx="10" cy="10" r="8"/></svg>';
    const cases: Array<[string, Buffer | string, string, number, number]> = [
      ['photo.png', await canvas().jpeg().toBuffer(), 'image/jpeg', 24, 16],
      ['icon.jpg', await canvas().webp().toBuffer(), 'image/webp', 24, 16],
      ['anim.bin', await canvas().gif().toBuffer(), 'image/gif', 24, 16],
      ['vector', svg, 'image/svg+xml', 32, 20],
    ];
    const runs = await Promise.all(
      cases.map(async ([name, bytes]) => shelf(['category-icon', 'import', '--team', String(team.teamId), '--file', await inputFile(name, bytes)])),
    );
    const rows = await iconRows();
    cases.forEach(([, , mimeType, width, height], i) => {
      expect(runs[i]!.exitCode).toBe(0);
      expect(rows.find((r) => r.id === runs[i]!.json.id)).toMatchObject({ mime_type: mimeType, width, height });
    });
  });

  const refused: Array<[string, () => Promise<Buffer | string>]> = [
    ['a text file named icon.png', async () => 'definitely not an image'],
    ['a TIFF image', async () => canvas().tiff().toBuffer()],
    ['a truncated PNG', async () => (await canvas().png().toBuffer()).subarray(0, 60)],
    ['an empty file', async () => Buffer.alloc(0)],
  ];
  for (const [label, content] of refused) {
    it(`refuses ${label} with {"error":{"code":"validation_failed"}} and a non-zero exit, storing nothing`, async () => {
      const rowsBefore = await iconRows();
      const filesBefore = await storedFiles();
      const run = await shelf(['category-icon', 'import', '--team', String(team.teamId), '--file', await inputFile('icon.png', await content())]);
      expect(run.exitCode).not.toBe(0);
      expect(run.json.error).toMatchObject({ code: 'validation_failed', message: expect.any(String) });
      expect(await iconRows()).toEqual(rowsBefore);
      expect(await storedFiles()).toEqual(filesBefore);
    });
  }

  it('refuses a missing file with validation_failed and an unknown team with not_found, exiting non-zero', async () => {
    const png = await inputFile('ok.png', await canvas().png().toBuffer());
    const rowsBefore = await iconRows();
    const [missing, unknownTeam] = await Promise.all([
      shelf(['category-icon', 'import', '--team', String(team.teamId), '--file', join(inputDir, 'nope.png')]),
      shelf(['category-icon', 'import', '--team', '2147483647', '--file', png]),
    ]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.json.error).toMatchObject({ code: 'validation_failed', message: expect.any(String) });
    expect(unknownTeam.exitCode).not.toBe(0);
    expect(unknownTeam.json.error).toMatchObject({ code: 'not_found', message: expect.any(String) });
    expect(await iconRows()).toEqual(rowsBefore);
  });

  it('gives an id that the team can use as a category iconAssetId', async () => {
    const run = await shelf([
      'category-icon',
      'import',
      '--team',
      String(team.teamId),
      '--file',
      await inputFile('use-me.png', await canvas().png().toBuffer()),
    ]);
    const g = given(env);
    const key = await g.key(team, 'manage');
    const brand = await g.brand(key);
    const res = await send(env, {
      method: 'POST',
      url: '/v1/categories',
      key: key.key,
      body: { brandId: brand.id, name: 'With icon', iconAssetId: run.json.id },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.iconAssetId).toBe(run.json.id);
  });
});
