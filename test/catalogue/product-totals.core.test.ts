import { describe, expect, it } from 'vitest';
import { ProductTotals } from '../../src/core/catalogue/products/product-totals.ts';

/** The memo of exact product list totals (src/core/catalogue/products/product-totals.ts). */
describe('ProductTotals', () => {
  it('shares one count among concurrent misses of the same key, and counts again for a new version', async () => {
    const totals = new ProductTotals();
    let counted = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const count = async () => {
      counted++;
      await gate;
      return 42;
    };
    const waiting = Promise.all([1, 2, 3].map(() => totals.total(7, '5', 'all', count)));
    release();
    expect(await waiting).toEqual([42, 42, 42]);
    expect(counted).toBe(1);
    expect(await totals.total(7, '5', 'all', count)).toBe(42);
    expect(counted).toBe(1);
    expect(await totals.total(7, '6', 'all', async () => 41)).toBe(41);
    expect(await totals.total(8, '5', 'all', async () => 3)).toBe(3);
  });

  it('does not keep a failed count: the next request counts again', async () => {
    const totals = new ProductTotals();
    await expect(totals.total(1, '1', 'all', async () => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(await totals.total(1, '1', 'all', async () => 9)).toBe(9);
  });

  it('forgets the least recently used entry beyond its capacity', async () => {
    const totals = new ProductTotals(2);
    await totals.total(1, '1', 'a', async () => 1);
    await totals.total(1, '1', 'b', async () => 2);
    await totals.total(1, '1', 'a', async () => 1);
    await totals.total(1, '1', 'c', async () => 3);
    const misses = totals.misses;
    expect(await totals.total(1, '1', 'a', async () => 10)).toBe(1);
    expect(await totals.total(1, '1', 'b', async () => 20)).toBe(20);
    expect(totals.misses).toBe(misses + 1);
  });
});
