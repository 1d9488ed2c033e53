import { describe, expect, it } from 'vitest';
import {
  AnswerAllowance,
  AnswerBudget,
  BATCH_STORED_BYTES,
  batchesOf,
  collectPage,
  HEAP_BYTES_PER_STORED_BYTE,
  readAdmitted,
  SMALL_READ_BYTES,
  sizedItems,
  sizedPage,
} from '../../src/core/platform/answer-budget.ts';
import { DomainError } from '../../src/core/platform/errors.ts';

/* docs/operations.md "Memory": the answer budget, batches by stored size, and an answer's allowance. */

describe('the answer budget', () => {
  it('grants leases while they fit and releases them once, even when release is called twice', async () => {
    const budget = new AnswerBudget(100);
    const a = await budget.reserve(60);
    const b = await budget.reserve(40);
    expect(budget.used).toBe(100);
    a.release();
    a.release();
    expect(budget.used).toBe(40);
    b.release();
    expect(budget.used).toBe(0);
    expect(budget.peak).toBe(100);
  });

  it('a request larger than the whole budget runs alone (clamped), never refused for its size', async () => {
    const budget = new AnswerBudget(100);
    const lease = await budget.reserve(10_000);
    expect(lease.bytes).toBe(100);
    lease.release();
  });

  it('waiting requests are admitted first come, first served as leases return', async () => {
    const budget = new AnswerBudget(100, 60_000);
    const held = await budget.reserve(100);
    const order: string[] = [];
    const first = budget.reserve(70).then((l) => (order.push('first'), l));
    const second = budget.reserve(10).then((l) => (order.push('second'), l));
    held.release();
    const [l1, l2] = await Promise.all([first, second]);
    // the small one did not overtake the one ahead of it in line
    expect(order).toEqual(['first', 'second']);
    l1.release();
    l2.release();
    expect(budget.used).toBe(0);
  });

  it('over the budget past the wait: service_unavailable with a Retry-After, counted as refused, and nothing held', async () => {
    const budget = new AnswerBudget(100, 20);
    const held = await budget.reserve(100);
    const refused = await budget.reserve(50).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'service_unavailable', reason: 'memory_budget_exhausted', retryAfterSeconds: 2 });
    expect(budget.refused).toBe(1);
    held.release();
    expect(budget.used).toBe(0);
  });
});

describe('batches by stored size', () => {
  it('cuts rows into batches of at most BATCH_STORED_BYTES, a larger row alone, order kept', () => {
    const mb = 1024 * 1024;
    const rows = [0.5, 0.5, 0.9, 3, 0.2, 0.2].map((size, id) => ({ id, storedBytes: size * mb }));
    expect(batchesOf(rows).map((batch) => batch.map((r) => r.id))).toEqual([[0, 1, 2], [3], [4, 5]]);
    expect(BATCH_STORED_BYTES).toBe(2 * mb);
  });

  it('a sized page reads batch by batch in page order, skipping rows that vanished, each batch under a lease of its heap cost', async () => {
    const budget = new AnswerBudget(1_000_000_000);
    const mb = 1024 * 1024;
    const page = sizedPage(
      { total: 4 },
      [
        { id: 'd', storedBytes: 1.5 * mb },
        { id: 'a', storedBytes: 1.5 * mb },
        { id: 'gone', storedBytes: 10 },
        { id: 'c', storedBytes: 10 },
      ],
      async (ids) => ids.filter((id) => id !== 'gone').map((id) => ({ id })),
      (item) => item.id,
    );
    expect(page.storedBytes).toBe(3 * mb + 20);
    const seen: Array<{ ids: string[]; lease: number; used: number }> = [];
    for await (const batch of page.batches(budget)) {
      seen.push({ ids: batch.items.map((i) => i.id), lease: batch.lease.bytes, used: budget.used });
      batch.lease.release();
    }
    expect(seen.map((s) => s.ids)).toEqual([['d'], ['a', 'c']]);
    expect(seen[0]!.lease).toBe(1.5 * mb * HEAP_BYTES_PER_STORED_BYTE);
    // one batch in memory at a time
    for (const s of seen) expect(s.used).toBe(s.lease);
    expect(budget.used).toBe(0);
  });

  it('a failed batch read gives its lease back', async () => {
    const budget = new AnswerBudget(1_000_000_000);
    const page = sizedItems(
      {},
      [1, 2],
      () => 100,
      async () => {
        throw new Error('PostgreSQL went away');
      },
    );
    await expect(page.batches(budget).next()).rejects.toThrow('PostgreSQL went away');
    expect(budget.used).toBe(0);
  });
});

describe("an answer's allowance (GraphQL, the CLI)", () => {
  it('admits stored bytes up to its cap, holds their leases until released, and refuses past it with response_too_large', async () => {
    const budget = new AnswerBudget(1_000_000);
    const answer = new AnswerAllowance(budget, 1000);
    await answer.admit(600);
    expect(budget.used).toBe(600 * HEAP_BYTES_PER_STORED_BYTE);
    await expect(answer.admit(500)).rejects.toMatchObject({ code: 'response_too_large' });
    expect(answer.admittedBytes).toBe(600);
    answer.releaseAll();
    expect(budget.used).toBe(0);
  });

  it('a read admitted after the answer was written (its client gone) gives its lease back at once', async () => {
    const budget = new AnswerBudget(1_000_000);
    const answer = new AnswerAllowance(budget, 1000);
    answer.releaseAll();
    await answer.admit(100);
    expect(budget.used).toBe(0);
  });

  it('collectPage admits the whole page against the answer before reading it', async () => {
    const budget = new AnswerBudget(1_000_000);
    const answer = new AnswerAllowance(budget, 100);
    let reads = 0;
    const page = sizedItems(
      { n: 2 },
      ['x', 'y'],
      () => 60,
      async (batch) => {
        reads++;
        return batch;
      },
    );
    await expect(collectPage({ answer }, page)).rejects.toMatchObject({ code: 'response_too_large' });
    expect(reads).toBe(0);
    const small = sizedItems(
      { n: 1 },
      ['x'],
      () => 60,
      async (batch) => batch,
    );
    expect(await collectPage({ answer }, small)).toEqual({ items: ['x'], pagination: { n: 1 } });
  });
});

describe('readAdmitted: a heavy read in one statement when small', () => {
  /** A read of `storedBytes` that records what was asked of it. */
  function reads(storedBytes: number) {
    const asked: string[] = [];
    return {
      asked,
      within: async (limit: number) => {
        asked.push(`within ${limit}`);
        return { storedBytes, value: storedBytes <= limit ? 'small' : null };
      },
      whole: async () => {
        asked.push('whole');
        return 'whole';
      },
    };
  }

  it('reads a read of at most SMALL_READ_BYTES with its size in one go and admits that size', async () => {
    const answer = new AnswerAllowance(new AnswerBudget(10_000_000), 1_000_000);
    const read = reads(SMALL_READ_BYTES);
    expect(await readAdmitted({ answer }, read.within, read.whole)).toBe('small');
    expect(read.asked).toEqual([`within ${SMALL_READ_BYTES}`]);
    expect(answer.admittedBytes).toBe(SMALL_READ_BYTES);
  });

  it('admits a larger read by its size before reading it whole, and refuses one past the cap without reading it', async () => {
    const answer = new AnswerAllowance(new AnswerBudget(10_000_000), 200_000);
    const large = reads(SMALL_READ_BYTES + 1);
    expect(await readAdmitted({ answer }, large.within, large.whole)).toBe('whole');
    expect(large.asked).toEqual([`within ${SMALL_READ_BYTES}`, 'whole']);
    expect(answer.admittedBytes).toBe(SMALL_READ_BYTES + 1);
    const tooLarge = reads(200_000);
    await expect(readAdmitted({ answer }, tooLarge.within, tooLarge.whole)).rejects.toMatchObject({ code: 'response_too_large' });
    expect(tooLarge.asked).toEqual([`within ${SMALL_READ_BYTES}`]);
    expect(answer.admittedBytes).toBe(SMALL_READ_BYTES + 1);
  });

  it('without an answer to admit against (REST) reads whole at once', async () => {
    const read = reads(10);
    expect(await readAdmitted({}, read.within, read.whole)).toBe('whole');
    expect(read.asked).toEqual(['whole']);
  });
});
