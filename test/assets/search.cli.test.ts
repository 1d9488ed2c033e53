import { beforeAll, describe, expect, it } from 'vitest';
import { hashShareToken } from '../../src/core/assets/shares/share-secrets.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import type { TestEnv } from '../support/env.ts';
import { send } from '../support/http.ts';
import { type SearchLibrary, useSearchLibrary } from '../support/search-library.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

const fixture = useSearchLibrary();
let env: TestEnv;
let lib: SearchLibrary;
beforeAll(() => {
  ({ env, lib } = fixture);
});

const shelf = (...args: string[]) => runCli(args, { DATABASE_URL: env.config.databaseUrl, STORAGE_DIR: env.config.storageDir });
const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);
const shareCount = async () => Number((await db<{ n: string }>('select count(*) as n from library_shares'))[0]!.n);

describe('share create (CLI)', () => {
  it(
    'prints {"linkToken"} for a folder (a process of its own); the token opens that folder through search-share',
    async () => {
      const run = await spawnCli(['share', 'create', '--team', String(lib.teamA.teamId), '--folder', '/photos/summer'], {
        DATABASE_URL: env.config.databaseUrl,
        STORAGE_DIR: env.config.storageDir,
      });
      expect(run.code).toBe(0);
      expect(Object.keys(run.json)).toEqual(['linkToken']);
      expect(run.json.linkToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const res = await send(env, { method: 'POST', url: '/open/search-share', key: lib.keyA.key, body: { linkToken: run.json.linkToken } });
      expect(res.body.result.assets.map((a: { name: string }) => a.name)).toEqual(['red.png']);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it('protects the share with --password', async () => {
    const run = await shelf('share', 'create', '--team', String(lib.teamA.teamId), '--folder', '/docs', '--password', 'correct horse');
    expect(run.code).toBe(0);
    const [row] = await db<{ password_hash: string }>('select password_hash from library_shares where token_hash = ?', [hashShareToken(run.json.linkToken)]);
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    const open = (password?: string) =>
      send(env, { method: 'POST', url: '/open/search-share', key: lib.keyA.key, body: { linkToken: run.json.linkToken, ...(password ? { password } : {}) } });
    expect((await open()).body.code).toBe('share_password_required');
    expect((await open('wrong horse')).body.code).toBe('share_password_invalid');
    expect((await open('correct horse')).body.result.totalCount).toBe(1);
  });

  const refusals: Array<[string, string[], string, number]> = [
    ['a missing folder', ['--folder', '/missing'], 'validation_failed', 1],
    ['the library root', ['--folder', '/'], 'validation_failed', 1],
    ['a relative folder path', ['--folder', 'photos'], 'validation_failed', 1],
    ['a 3-character password', ['--folder', '/photos', '--password', 'abc'], 'validation_failed', 1],
    ['no --folder', [], 'validation_failed', 1],
    ['an unknown flag', ['--folder', '/photos', '--public'], 'usage', 2],
  ];
  for (const [label, args, code, exit] of refusals) {
    it(`refuses ${label} with ${code}, writing nothing`, async () => {
      const before = await shareCount();
      const run = await shelf('share', 'create', '--team', String(lib.teamA.teamId), ...args);
      expect(run.code).toBe(exit);
      expect(run.json.error.code).toBe(code);
      expect(await shareCount()).toBe(before);
    });
  }

  it('refuses an unknown team with not_found, writing nothing', async () => {
    const before = await shareCount();
    const run = await shelf('share', 'create', '--team', '2147483647', '--folder', '/photos');
    expect([run.code, run.json.error.code]).toEqual([1, 'not_found']);
    expect(await shareCount()).toBe(before);
  });
});

describe('asset analysis set (CLI)', () => {
  it('sets the analysis fields of a file, prints {"id"}, and DEEP keywords find them', async () => {
    const run = await shelf(
      'asset',
      'analysis',
      'set',
      '--team',
      String(lib.teamA.teamId),
      '--file-id',
      String(lib.files['blue.jpg']),
      '--ai-tags',
      'ocean,wave',
      '--ai-title',
      'Blue ocean',
      '--ai-description',
      'Calm water',
      '--ai-detailed-description',
      '[{"label":"water"}]',
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.json).toEqual({ id: lib.files['blue.jpg'] });
    const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body: { keywords: ['calm water'] } });
    expect(res.body.result.assets).toHaveLength(1);
    expect(res.body.result.assets[0].imageContentAnalysis).toEqual({
      aiTags: 'ocean,wave',
      aiTitle: 'Blue ocean',
      aiDescription: 'Calm water',
      aiDetailedDescription: [{ label: 'water' }],
    });
  });

  it('clears a field given as an empty value and leaves the others', async () => {
    const run = await shelf('asset', 'analysis', 'set', '--team', String(lib.teamA.teamId), '--file-id', String(lib.files['blue.jpg']), '--ai-title', '');
    expect(run.code).toBe(0);
    const [row] = await db<{ ai_title: string | null; ai_tags: string }>('select ai_title, ai_tags from library_files where id = ?', [lib.files['blue.jpg']]);
    expect(row).toEqual({ ai_title: null, ai_tags: 'ocean,wave' });
  });

  const refusals: Array<[string, string[], string]> = [
    ['invalid JSON', ['--ai-detailed-description', '[oops'], 'validation_failed'],
    ['JSON that is not an array', ['--ai-detailed-description', '{"a":1}'], 'validation_failed'],
    ['no analysis field', [], 'validation_failed'],
    ["another team's file", ['--ai-title', 'x', '--team-file-of-b'], 'not_found'],
  ];
  for (const [label, args, code] of refusals) {
    it(`refuses ${label} with ${code}, changing nothing`, async () => {
      const before = await db<unknown>('select ai_tags, ai_title, ai_description, ai_detailed_description from library_files order by id');
      const ofB = args.includes('--team-file-of-b');
      const fileId = ofB ? lib.fileOfB : lib.files['blue.jpg']!;
      const run = await shelf(
        'asset',
        'analysis',
        'set',
        '--team',
        String(lib.teamA.teamId),
        '--file-id',
        String(fileId),
        ...args.filter((a) => a !== '--team-file-of-b'),
      );
      expect(run.code).toBe(1);
      expect(run.json.error.code).toBe(code);
      expect(await db<unknown>('select ai_tags, ai_title, ai_description, ai_detailed_description from library_files order by id')).toEqual(before);
    });
  }
});
