import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

/*
 * The operator CLI's start caches (src/cli/start-cache.ts) live in Node's compile cache directory:
 * a stale or broken resolution cache must cost speed only, never a run.
 */

let directory: string;
const env = () => ({ NODE_COMPILE_CACHE: directory, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'shelf-cli-cache-'));
});
afterAll(async () => rm(directory, { recursive: true, force: true }));

async function resolutionCacheFile(): Promise<string> {
  for (const sub of await readdir(directory, { recursive: true })) if (/shelf-cli-resolve-.*\.json$/.test(sub)) return join(directory, sub);
  throw new Error('no resolution cache written');
}

describe('operator CLI start caches', () => {
  it('writes a resolution cache on the first run and answers the same from it on the next', async () => {
    const first = await runCli(['team', '--help'], env());
    const file = await resolutionCacheFile();
    expect(JSON.parse(await readFile(file, 'utf8')).entries).toEqual(expect.any(Object));
    const second = await runCli(['team', '--help'], env());
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
  });

  it('loads a native addon (sharp, for asset import) as well from the cache as without it', async () => {
    // no database listens: both runs get as far as connecting, after the command's modules loaded
    for (const run of [1, 2]) {
      const res = await runCli(['asset', 'import', '--team', '1', '--file', 'nowhere.png'], env());
      expect(res.json.error, `run ${run}`).toMatchObject({ code: 'internal_error', message: expect.stringContaining('ECONNREFUSED') });
    }
  });

  it('resolves again an entry whose file is gone, and ignores a cache that is not JSON', async () => {
    const file = await resolutionCacheFile();
    const runTs = async () =>
      Object.values<Record<string, Record<string, [string, string]>>>(JSON.parse(await readFile(file, 'utf8')).entries)
        .map((byParent) => byParent['./src/cli/main.ts']?.['./run.ts']?.[0])
        .filter(Boolean);
    const cache = JSON.parse(await readFile(file, 'utf8'));
    for (const byParent of Object.values<Record<string, Record<string, [string, string]>>>(cache.entries)) {
      const fromMain = byParent['./src/cli/main.ts']?.['./run.ts'];
      if (fromMain) fromMain[0] = './src/cli/gone.ts';
    }
    await writeFile(file, JSON.stringify(cache));
    expect(await runTs()).toEqual(['./src/cli/gone.ts']);
    const stale = await runCli(['team', '--help'], env());
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('team create --name NAME');
    expect(await runTs()).toEqual(['./src/cli/run.ts']);
    await writeFile(file, '{"key": "half a fi');
    const broken = await runCli(['key', 'revoke'], env());
    expect(broken.code).toBe(1);
    expect(broken.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'key-id', message: 'is required' }] });
  });
});
