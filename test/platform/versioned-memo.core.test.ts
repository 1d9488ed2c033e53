import { describe, expect, it } from 'vitest';
import { VersionedMemo } from '../../src/core/platform/versioned-memo.ts';

/** Gets `key` at version "1" of team 1, computing `value`; returns what the memo answered and whether it computed. */
async function fetch<T>(memo: VersionedMemo<T>, key: string, value: T): Promise<{ answer: T; computed: boolean }> {
  let computed = false;
  const answer = await memo.get(1, '1', key, async () => {
    computed = true;
    return value;
  });
  return { answer, computed };
}

describe('VersionedMemo (search totals, colour matches, product list totals)', () => {
  it('computes a key once per team and library version, and again for a new version or another team', async () => {
    const memo = new VersionedMemo<number>(10);
    expect((await fetch(memo, 'a', 5)).computed).toBe(true);
    expect(await fetch(memo, 'a', 6)).toEqual({ answer: 5, computed: false });
    let computed = 0;
    await memo.get(1, '2', 'a', async () => ++computed);
    await memo.get(2, '1', 'a', async () => ++computed);
    expect(computed).toBe(2);
    expect([memo.hits, memo.misses]).toEqual([1, 3]);
  });

  it('keeps at most `capacity` entries, dropping the least recently used', async () => {
    const memo = new VersionedMemo<number>(2);
    await fetch(memo, 'a', 1);
    await fetch(memo, 'b', 2);
    await fetch(memo, 'a', 1); // a is now the most recently used
    await fetch(memo, 'c', 3); // evicts b
    expect((await fetch(memo, 'a', 1)).computed).toBe(false);
    expect((await fetch(memo, 'b', 2)).computed).toBe(true);
  });

  it('with a weight budget, evicts the oldest entries until the kept weight fits (colour match sets of many ids)', async () => {
    const memo = new VersionedMemo<number[]>(100, { of: (ids) => ids.length, max: 10 });
    await fetch(memo, 'a', [1, 2, 3, 4]);
    await fetch(memo, 'b', [1, 2, 3, 4]);
    expect(memo.keptWeight).toBe(8);
    await fetch(memo, 'c', [1, 2, 3, 4]); // 12 > 10: a goes
    expect(memo.keptWeight).toBe(8);
    expect((await fetch(memo, 'b', [])).computed).toBe(false);
    expect((await fetch(memo, 'c', [])).computed).toBe(false);
    expect((await fetch(memo, 'a', [1, 2, 3, 4])).computed).toBe(true);
  });

  it('never keeps a value heavier than the whole budget, and keeps what it had', async () => {
    const memo = new VersionedMemo<number[]>(100, { of: (ids) => ids.length, max: 10 });
    await fetch(memo, 'small', [1]);
    const heavy = Array.from({ length: 11 }, (_, i) => i);
    expect(await fetch(memo, 'heavy', heavy)).toEqual({ answer: heavy, computed: true });
    expect((await fetch(memo, 'heavy', heavy)).computed).toBe(true);
    expect((await fetch(memo, 'small', [1])).computed).toBe(false);
    expect(memo.keptWeight).toBe(1);
  });

  it('when disabled, computes every time and keeps nothing', async () => {
    const memo = new VersionedMemo<number[]>(100, { of: (ids) => ids.length, max: 10 });
    memo.enabled = false;
    expect((await fetch(memo, 'a', [1])).computed).toBe(true);
    expect((await fetch(memo, 'a', [1])).computed).toBe(true);
    expect(memo.keptWeight).toBe(0);
  });

  it('shares one computation among concurrent misses of the same key, and computes again for a new version', async () => {
    const memo = new VersionedMemo<number>(10);
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const compute = async () => {
      computed++;
      await gate;
      return 42;
    };
    const waiting = Promise.all([1, 2, 3].map(() => memo.get(7, '5', 'all', compute)));
    release();
    expect(await waiting).toEqual([42, 42, 42]);
    expect(computed).toBe(1);
    expect(await memo.get(7, '5', 'all', compute)).toBe(42);
    expect(computed).toBe(1);
    expect(await memo.get(7, '6', 'all', async () => 41)).toBe(41);
    expect(await memo.get(8, '5', 'all', async () => 3)).toBe(3);
  });

  it('does not keep a failed computation: the next request computes again', async () => {
    const memo = new VersionedMemo<number>(10);
    await expect(memo.get(1, '1', 'all', async () => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(await memo.get(1, '1', 'all', async () => 9)).toBe(9);
  });
});
