import { DomainError } from './errors.ts';

/**
 * The memory budget for answers (docs/operations.md "Memory"): heavy answers (pages of templates,
 * products, their histories) are read and written in batches, and each batch holds a lease on this
 * process-wide budget while it is in memory, from its read until the client's socket took it. Peak
 * memory is then a property of configuration (the budget), not of what teams stored: a request that
 * finds the budget taken waits a short while in line, then gets `service_unavailable` with
 * Retry-After rather than running the heap out.
 */

/** How much heap one stored byte of a JSON column costs while it is read, parsed and serialized again. */
export const HEAP_BYTES_PER_STORED_BYTE = 6;

/** Rows are read in batches of at most this many stored bytes (at least one row per batch). */
export const BATCH_STORED_BYTES = 2 * 1024 * 1024;

/**
 * Stored bytes a read may bring back together with their size, admitted right after it: a small
 * read (a template's versions) then costs one statement instead of a size query and a read. Past
 * it the read returns only the size, and its rows are read once admitted. It is of the order of
 * what an ordinary request holds unadmitted (REST's GET of one template reads its definition).
 */
export const READ_WITH_SIZE_BYTES = 256 * 1024;

/** What a request waits in line for the budget before it is told to come back. */
export const BUDGET_WAIT_MS = 5_000;

/** Seconds a refused request is told to wait (Retry-After). */
export const BUDGET_RETRY_AFTER_SECONDS = 2;

/** A share of the budget; `release` gives it back (a second call does nothing). */
export interface BudgetLease {
  readonly bytes: number;
  release(): void;
}

interface Waiter {
  bytes: number;
  grant: (lease: BudgetLease) => void;
  timer: NodeJS.Timeout;
}

export class AnswerBudget {
  private inUse = 0;
  private readonly line: Waiter[] = [];
  /** The most ever held at once, for the memory benchmark and metrics. */
  peak = 0;
  /** Requests refused because the budget stayed taken. */
  refused = 0;

  /** Heap bytes that answers in memory may take at once. */
  readonly totalBytes: number;
  private readonly waitMs: number;

  constructor(totalBytes: number, waitMs = BUDGET_WAIT_MS) {
    this.totalBytes = totalBytes;
    this.waitMs = waitMs;
  }

  get used(): number {
    return this.inUse;
  }

  /**
   * A lease of `heapBytes` (clamped to the whole budget: one answer larger than the budget runs
   * alone). Waits in line (first come, first served) up to the wait bound, then refuses.
   */
  reserve(heapBytes: number): Promise<BudgetLease> {
    const bytes = Math.max(1, Math.min(Math.ceil(heapBytes), this.totalBytes));
    if (this.line.length === 0 && this.inUse + bytes <= this.totalBytes) return Promise.resolve(this.grant(bytes));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        grant: resolve,
        timer: setTimeout(() => {
          this.line.splice(this.line.indexOf(waiter), 1);
          this.refused++;
          reject(
            new DomainError('service_unavailable', 'Shelf is answering as many large requests as its memory allows; retry shortly', undefined, {
              reason: 'memory_budget_exhausted',
              retryAfterSeconds: BUDGET_RETRY_AFTER_SECONDS,
            }),
          );
          // a refused head of the line may have blocked smaller requests behind it
          this.admitWaiting();
        }, this.waitMs),
      };
      waiter.timer.unref();
      this.line.push(waiter);
    });
  }

  private grant(bytes: number): BudgetLease {
    this.inUse += bytes;
    if (this.inUse > this.peak) this.peak = this.inUse;
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.inUse -= bytes;
        this.admitWaiting();
      },
    };
  }

  private admitWaiting(): void {
    while (this.line.length > 0 && this.inUse + this.line[0]!.bytes <= this.totalBytes) {
      const next = this.line.shift()!;
      clearTimeout(next.timer);
      next.grant(this.grant(next.bytes));
    }
  }
}

/** Ids of a page in its order, with the stored size of each row's large columns. */
export interface SizedRow<K> {
  id: K;
  storedBytes: number;
}

/** Cuts a page's rows into batches of at most BATCH_STORED_BYTES (a larger row makes a batch alone). */
export function batchesOf<K>(rows: readonly SizedRow<K>[], batchBytes = BATCH_STORED_BYTES): SizedRow<K>[][] {
  const batches: SizedRow<K>[][] = [];
  let current: SizedRow<K>[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (current.length > 0 && bytes + row.storedBytes > batchBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.storedBytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** A batch of items in memory and its lease; the consumer releases the lease once the items are written. */
export interface LeasedBatch<T> {
  items: T[];
  lease: BudgetLease;
}

const UNLEASED: BudgetLease = { bytes: 0, release: () => {} };

/**
 * Reads a page batch by batch, each under a lease of its estimated heap cost on `budget` (none when
 * the caller admitted the whole page already), in the page's order. `load` reads the rows of some
 * ids (in any order; rows that vanished meanwhile are skipped). The next batch is read only once
 * the consumer asks for it, so a page holds one batch at a time.
 */
export async function* leasedBatches<K, T>(
  budget: AnswerBudget | null,
  rows: readonly SizedRow<K>[],
  load: (ids: K[]) => Promise<T[]>,
  idOf: (item: T) => K,
): AsyncGenerator<LeasedBatch<T>> {
  for (const batch of batchesOf(rows)) {
    yield await readLeased(budget, batch, async () => {
      const loaded = await load(batch.map((row) => row.id));
      const byId = new Map(loaded.map((item) => [idOf(item), item]));
      return batch.flatMap((row) => {
        const item = byId.get(row.id);
        return item === undefined ? [] : [item];
      });
    });
  }
}

/** Reads one batch under a lease of its estimated heap cost (none without a budget); the lease goes back if the read fails. */
async function readLeased<K, T>(budget: AnswerBudget | null, batch: readonly SizedRow<K>[], read: () => Promise<T[]>): Promise<LeasedBatch<T>> {
  const stored = batch.reduce((sum, row) => sum + row.storedBytes, 0);
  const lease = budget ? await budget.reserve(stored * HEAP_BYTES_PER_STORED_BYTE) : UNLEASED;
  try {
    return { items: await read(), lease };
  } catch (e) {
    lease.release();
    throw e;
  }
}

/**
 * A page sized before it is read: its pagination, the stored bytes of its rows, and its items read
 * in batches while the answer is written. REST streams the batches (rest/streamed-page.ts); GraphQL
 * and the CLI admit the whole page against their answer's allowance and collect it (collectPage).
 * A page is read batch by batch, not as one snapshot: a row deleted meanwhile is left out.
 */
export interface SizedPage<T, P> {
  pagination: P;
  storedBytes: number;
  batches(budget: AnswerBudget | null): AsyncGenerator<LeasedBatch<T>>;
}

export function sizedPage<K, T, P>(pagination: P, rows: readonly SizedRow<K>[], load: (ids: K[]) => Promise<T[]>, idOf: (item: T) => K): SizedPage<T, P> {
  return {
    pagination,
    storedBytes: rows.reduce((sum, row) => sum + row.storedBytes, 0),
    batches: (budget) => leasedBatches(budget, rows, load, idOf),
  };
}

/**
 * A page whose items are already chosen but not complete (their large columns deferred): batches
 * by each item's stored size, each completed by `complete` (which may drop items that vanished).
 */
export function sizedItems<T, P>(
  pagination: P,
  items: readonly T[],
  storedBytesOf: (item: T) => number,
  complete: (batch: T[]) => Promise<T[]>,
): SizedPage<T, P> {
  const rows = items.map((item, index) => ({ id: index, storedBytes: storedBytesOf(item) }));
  return {
    pagination,
    storedBytes: rows.reduce((sum, row) => sum + row.storedBytes, 0),
    batches: async function* (budget) {
      for (const batch of batchesOf(rows)) yield await readLeased(budget, batch, () => complete(batch.map((row) => items[row.id]!)));
    },
  };
}

/** The same page with each batch's items mapped (a projection that needs a read per batch, such as media). */
export function mapPage<T, U, P>(page: SizedPage<T, P>, map: (items: T[]) => Promise<U[]>): SizedPage<U, P> {
  return {
    pagination: page.pagination,
    storedBytes: page.storedBytes,
    batches: async function* (budget) {
      for await (const batch of page.batches(budget)) {
        let items: U[];
        try {
          items = await map(batch.items);
        } catch (e) {
          batch.lease.release();
          throw e;
        }
        yield { items, lease: batch.lease };
      }
    },
  };
}

/** A sized page as one list, admitted whole against the caller's answer (GraphQL, the CLI). */
export async function collectPage<T, P>(scope: { answer?: AnswerAllowance }, page: SizedPage<T, P>): Promise<{ items: T[]; pagination: P }> {
  await admitStored(scope, page.storedBytes);
  const items: T[] = [];
  for await (const batch of page.batches(null)) items.push(...batch.items);
  return { items, pagination: page.pagination };
}

/**
 * What one materialized answer (a GraphQL operation, a CLI command) may still hold: every heavy read
 * admits its stored size before it runs, which counts against the answer's byte cap
 * (`response_too_large` past it) and takes a lease on the process budget, held until the answer is
 * written (`releaseAll`). Streamed REST pages do not use it: their batches hold leases of their own.
 */
export class AnswerAllowance {
  private admitted = 0;
  private released = false;
  private readonly leases: BudgetLease[] = [];

  private readonly budget: AnswerBudget;
  /** Stored bytes one answer may carry. */
  readonly maxBytes: number;

  constructor(budget: AnswerBudget, maxBytes: number) {
    this.budget = budget;
    this.maxBytes = maxBytes;
  }

  get admittedBytes(): number {
    return this.admitted;
  }

  async admit(storedBytes: number): Promise<void> {
    if (storedBytes <= 0) return;
    if (this.admitted + storedBytes > this.maxBytes) {
      throw new DomainError(
        'response_too_large',
        `The answer would carry more than ${Math.floor(this.maxBytes / 1_048_576)} MiB of stored data; ask for fewer items (a smaller pageSize) or fewer fields`,
      );
    }
    this.admitted += storedBytes;
    const lease = await this.budget.reserve(storedBytes * HEAP_BYTES_PER_STORED_BYTE);
    // an answer already written (or its client gone) holds nothing: a read still running then gives its lease back at once
    if (this.released) lease.release();
    else this.leases.push(lease);
  }

  /** Gives back every lease, now and of any read still running; called once the answer is written or its client went away. */
  releaseAll(): void {
    this.released = true;
    for (const lease of this.leases.splice(0)) lease.release();
  }
}

/**
 * Stored bytes a heavy read may load in the statement that measures it, admitted right after: one
 * statement instead of two for the common small read, while what an answer holds before admission
 * stays this small (x HEAP_BYTES_PER_STORED_BYTE in heap).
 */
export const SMALL_READ_BYTES = 64 * 1024;

/**
 * A heavy read admitted against the caller's answer (GraphQL, the CLI), in one statement when it is
 * small: `readWithin(SMALL_READ_BYTES)` answers the stored size and, when it is at most that, what
 * it read; a larger read is admitted by its size first and then read whole by `readWhole`, as
 * admitStored does. Without an answer to admit against, `readWhole` alone.
 */
export async function readAdmitted<T>(
  scope: { answer?: AnswerAllowance },
  readWithin: (limit: number) => Promise<{ storedBytes: number; value: T | null }>,
  readWhole: () => Promise<T>,
): Promise<T> {
  if (!scope.answer) return readWhole();
  const small = await readWithin(SMALL_READ_BYTES);
  await scope.answer.admit(small.storedBytes);
  return small.value ?? readWhole();
}

/** Admits a heavy read's stored size against the caller's answer, when the caller has one (GraphQL, the CLI). */
export async function admitStored(scope: { answer?: AnswerAllowance }, storedBytes: number): Promise<void> {
  if (scope.answer) await scope.answer.admit(storedBytes);
}
