/**
 * A memo of facts about a team's data as it is at one version of it: exact search totals and the
 * files matching a colour (keyed by the library version, docs/search.md), exact product list totals
 * (keyed by the product version, docs/products.md). Computing them costs time proportional to the
 * matches (an exact `count(*)` of 100,000 matches of 1M rows reads every matching row), so each is
 * computed once per team, version and key and reused for every page and repeat of the request.
 * Triggers raise the version at the commit of any change to what it covers: an entry can only be
 * hit while the data is exactly as it was when it was computed, so a fact is never stale, in any
 * process, and processes never need to agree. Entries of older versions are never read again and
 * age out of the bounded LRU.
 *
 * The caller reads the version before computing, so a value never reflects an older state than
 * its key.
 */
export class VersionedMemo<T> {
  private readonly entries = new Map<string, { value: T; weight: number }>();
  /** Computations running now: concurrent misses of one key share one computation. */
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly capacity: number;
  private readonly weight: { of: (value: T) => number; max: number } | undefined;
  private totalWeight = 0;
  /** Computations actually run, and reuses (tests and the benchmark read these). */
  misses = 0;
  hits = 0;
  /** The benchmark turns memos off to measure cold searches. */
  enabled = true;

  /**
   * At most `capacity` entries, and with `weight` at most `weight.max` in total (a colour match set
   * weighs its number of ids: a broad colour matches some 150,000 images, so a count alone would not
   * bound memory). A value heavier than the whole budget is never kept.
   */
  constructor(capacity: number, weight?: { of: (value: T) => number; max: number }) {
    this.capacity = capacity;
    this.weight = weight;
  }

  /** The total weight of the entries kept (tests). */
  get keptWeight(): number {
    return this.totalWeight;
  }

  /** The value for `key` at `version` when it is known, without computing it or counting a hit or miss. */
  peek(teamId: number, version: string, key: string): T | undefined {
    return this.enabled ? this.entries.get(`${teamId}|${version}|${key}`)?.value : undefined;
  }

  /** The value for `key` at `version`, computing it with `compute` on a miss. */
  async get(teamId: number, version: string, key: string, compute: () => Promise<T>): Promise<T> {
    const entryKey = `${teamId}|${version}|${key}`;
    const known = this.enabled ? this.entries.get(entryKey) : undefined;
    if (known !== undefined) {
      this.hits++;
      // least recently used first: a hit moves the entry to the end
      this.entries.delete(entryKey);
      this.entries.set(entryKey, known);
      return known.value;
    }
    if (!this.enabled) {
      this.misses++;
      return compute();
    }
    // after a change every concurrent request misses at once: one computation serves them all
    const running = this.inFlight.get(entryKey);
    if (running) return running;
    this.misses++;
    const computing = compute().then((value) => {
      this.keep(entryKey, value);
      return value;
    });
    this.inFlight.set(entryKey, computing);
    try {
      return await computing;
    } finally {
      this.inFlight.delete(entryKey);
    }
  }

  private keep(entryKey: string, value: T): void {
    const weight = this.weight?.of(value) ?? 0;
    if (this.weight && weight > this.weight.max) return;
    const previous = this.entries.get(entryKey);
    if (previous) {
      this.entries.delete(entryKey);
      this.totalWeight -= previous.weight;
    }
    this.entries.set(entryKey, { value, weight });
    this.totalWeight += weight;
    while (this.entries.size > this.capacity || (this.weight && this.totalWeight > this.weight.max)) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestKey);
      this.totalWeight -= oldest.weight;
    }
  }
}
