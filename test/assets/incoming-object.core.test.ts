import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDiskStorage } from '../../src/core/assets/storage/storage.ts';
import { tempDir } from '../support/media-files.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let storage: LocalDiskStorage;

beforeEach(async () => {
  dir = await tempDir('incoming');
  storage = new LocalDiskStorage(dir.path);
});
afterEach(async () => {
  await dir.remove();
});

/** Every regular file under the storage root, relative to it. */
async function files(): Promise<string[]> {
  const entries = await readdir(dir.path, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.path.length + 1))
    .sort();
}

async function received(...chunks: string[]) {
  const object = await storage.receive();
  for (const chunk of chunks) await object.write(Buffer.from(chunk));
  return object;
}

describe('objects received into local storage before their key is known', () => {
  it('places the written bytes under the key, leaving no part file behind', async () => {
    const object = await received('hello ', 'world');
    expect(await object.place('objects/ab/abc')).toBe(true);
    expect(await readFile(join(dir.path, 'objects/ab/abc'), 'utf8')).toBe('hello world');
    expect(await files()).toEqual(['objects/ab/abc']);
  });

  it('keeps an object already under the key and reports that nothing was added', async () => {
    await (await received('first')).place('objects/ab/abc');
    const second = await received('first');
    expect(await second.place('objects/ab/abc')).toBe(false);
    expect(await readFile(join(dir.path, 'objects/ab/abc'), 'utf8')).toBe('first');
    expect(await files()).toEqual(['objects/ab/abc']);
  });

  it('adds the object once when two receptions of the same bytes are placed at the same moment', async () => {
    const [a, b] = await Promise.all([received('same'), received('same')]);
    const placed = await Promise.all([a.place('objects/cd/cde'), b.place('objects/cd/cde')]);
    expect(placed.filter(Boolean)).toHaveLength(1);
    expect(await files()).toEqual(['objects/cd/cde']);
  });

  it('leaves nothing when discarded midway, and discarding again changes nothing', async () => {
    const object = await received('half of a download');
    expect(await files()).toHaveLength(1);
    await object.discard();
    await object.discard();
    expect(await files()).toEqual([]);
  });

  it('refuses a key outside the storage rules and leaves nothing', async () => {
    const object = await received('bytes');
    await expect(object.place('../escape')).rejects.toThrow(/invalid storage key/);
    expect(await files()).toEqual([]);
  });
});
