import { queryOne } from '../../platform/sql.ts';
import type { TeamScope } from '../library.service.ts';

/**
 * The team's library version as text, 0 before its first change (triggers raise it at the commit of
 * every change): a scalar SQL expression taking the team id as its one parameter.
 */
export const LIBRARY_VERSION_SQL = 'coalesce((select v.version from library_versions v where v.team_id = ?), 0)::text';

/** The team's library version as of now (LIBRARY_VERSION_SQL). */
export async function libraryVersionOf(scope: TeamScope): Promise<string> {
  const row = await queryOne<{ version: string }>(scope, `select ${LIBRARY_VERSION_SQL} as version`, [scope.teamId]);
  return row!.version;
}

/**
 * A memo of facts about a team's library as it is at one library version (docs/search.md): exact
 * search totals, and the files matching a colour. Computing them costs time proportional to the
 * matches (an exact `count(*)` of 100,000 matches of 1M files reads every matching row), so each
 * is computed once per team, library version and key and reused for every page and repeat of the
 * search. The key carries the library version, which triggers raise at the commit of any change to
 * the team's library: an entry can only be hit while the library is exactly as it was when it was
 * computed, so a fact is never stale, in any process. Entries of older versions are never read
 * again and age out of the bounded LRU.
 */
export class VersionedMemo<T> {
  private readonly entries = new Map<string, { value: T; weight: number }>();
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

  /** The team's library version: read it before computing, so a value never reflects an older state than its key. */
  versionOf(scope: TeamScope): Promise<string> {
    return libraryVersionOf(scope);
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
    this.misses++;
    const value = await compute();
    if (this.enabled) this.keep(entryKey, value);
    return value;
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
