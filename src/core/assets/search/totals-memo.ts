import { VersionedMemo } from './versioned-memo.ts';

/**
 * A memo of exact totals keyed by a version the caller reads first (versioned-memo.ts explains why an
 * entry is never stale). Search keeps its totals in one (core.searchTotals); product listings use it
 * too (catalogue/product-totals.ts).
 */
export class TotalsMemo extends VersionedMemo<number> {
  constructor(capacity = 20_000) {
    super(capacity);
  }

  /** The total for `filterKey` at `version`, counting with `count` on a miss; `version` must be read before `count` runs. */
  total(teamId: number, version: string, filterKey: string, count: () => Promise<number>): Promise<number> {
    return this.get(teamId, version, filterKey, count);
  }
}
