import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lookupAssets } from '../../src/core/assets/files/asset-lookup.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { useSearchLibrary } from '../support/search-library.ts';

const fixture = useSearchLibrary();
const withoutLinks = (items: Array<Record<string, unknown>>) => items.map(({ previewUrl: _link, ...rest }) => rest);
const lookup = (query: string) => send(fixture.env, { url: `/v1/assets${query}`, key: fixture.lib.keyA.key });

describe('GET /v1/assets by name, repeated at one library version (asset lookup)', () => {
  it('answers a repeated name lookup from the kept match ids exactly as a first lookup reads it', async () => {
    const { env, lib } = fixture;
    const ctx = await given(env).ctx(lib.keyA);
    for (const name of ['e', '.png', 'red', 'no-such-name']) {
      for (const [page, pageSize] of [
        [1, 1],
        [2, 2],
        [3, 2],
        [1, 100],
        [9, 100],
      ] as const) {
        const query = `?name=${encodeURIComponent(name)}&page=${page}&pageSize=${pageSize}`;
        const first = (await lookup(query)).body;
        const repeat = (await lookup(query)).body;
        // no memos at all: what the route's statements read afresh
        const fresh = await lookupAssets(ctx, env.core.assets.library, null, { name, page, pageSize });
        // previewUrl is signed at request time: its expiry may differ by a second
        expect(withoutLinks(repeat.data), `${name} page ${page} of ${pageSize}`).toEqual(withoutLinks(first.data));
        expect(repeat.pagination).toEqual(first.pagination);
        expect(repeat.data.map((item: { id: number }) => item.id)).toEqual(fresh.items.map((item) => item.id));
        expect(repeat.pagination).toEqual(fresh.pagination);
      }
    }
    // the fixture holds several matches of "e", so slices past the first page were compared
    expect((await lookup('?name=e')).body.pagination.totalCount).toBeGreaterThan(3);
  });

  it("reads a name's match ids once per library version, and again after a change to the library", async () => {
    const { env, lib } = fixture;
    const memo = env.core.assets.lookupNameMatchIds;
    const misses = memo.misses;
    await lookup('?name=png');
    expect(memo.misses).toBe(misses); // a first lookup only counts
    const before = (await lookup('?name=png&pageSize=1&page=2')).body;
    await lookup('?name=png&pageSize=1&page=3');
    expect(memo.misses).toBe(misses + 1);
    const dir = await tempDir('lookup-repeat');
    try {
      await writeImage(join(dir.path, 'zz-new.png'), { width: 8, height: 8, colour: '#123456', format: 'png' });
      await given(env).libraryFile(lib.teamA, { file: join(dir.path, 'zz-new.png') });
    } finally {
      await dir.remove();
    }
    await lookup('?name=png');
    const after = (await lookup('?name=png&pageSize=100')).body;
    expect(memo.misses).toBe(misses + 2);
    expect(after.pagination.totalCount).toBe(before.pagination.totalCount + 1);
    expect(after.data.map((item: { name: string }) => item.name)).toContain('zz-new.png');
  });
});
