import type { Ctx } from '../../platform/ctx.ts';
import { preparedSql, queryOne } from '../../platform/sql.ts';

/*
 * Exact totalCount of ordinary product pages (spec 2.1), without counting on every request.
 *
 * An exact count(*) of a team's live products reads the whole index range: about 100 ms of
 * PostgreSQL CPU at 1,000,000 products, so counting per request capped the list at a few requests
 * per second (bench/RESULTS-products.md). The total is therefore memoized per team, visibility
 * and filters, keyed by the team's product version: a deferred trigger on products raises it at
 * the commit of any change to the team's products (insert, update, soft delete), so an entry is
 * only read while the products are exactly as they were counted, in any process. A search also
 * matches library file names, so its key adds the library version (raised the same way by every
 * change to the team's files). Keys of older versions are never read again and age out of the LRU.
 */

const PRODUCT_VERSION = preparedSql('products.version', `select coalesce((select version from product_versions where team_id = ?), 0)::text as version`);
const PRODUCT_AND_LIBRARY_VERSION = preparedSql(
  'products.versionWithLibrary',
  `select coalesce((select version from product_versions where team_id = ?), 0)::text || '.' ||
          coalesce((select version from library_versions where team_id = ?), 0)::text as version`,
);

/** What a total depends on: the products of the team, and for searches also its library's file names. */
export async function readCountVersion(ctx: Pick<Ctx, 'em' | 'teamId'>, withLibrary: boolean): Promise<string> {
  const row = withLibrary
    ? await queryOne<{ version: string }>(ctx, PRODUCT_AND_LIBRARY_VERSION, [ctx.teamId, ctx.teamId])
    : await queryOne<{ version: string }>(ctx, PRODUCT_VERSION, [ctx.teamId]);
  return row!.version;
}

/** A bounded LRU of exact totals, one per process (ProductService); entries are exact, so processes never need to agree. */
export class ProductTotals {
  private readonly entries = new Map<string, number>();
  /** Counts running now: concurrent misses of one key share one count instead of each starting its own. */
  private readonly inFlight = new Map<string, Promise<number>>();
  private readonly capacity: number;
  /** Counts actually run, and memo hits (tests read these). */
  misses = 0;
  hits = 0;

  constructor(capacity = 10_000) {
    this.capacity = capacity;
  }

  /**
   * The total for `filterKey` at `version`; `count` runs on a miss. `version` must have been read
   * before `count` runs, so a memoized total never reflects an older state than its key.
   */
  async total(teamId: number, version: string, filterKey: string, count: () => Promise<number>): Promise<number> {
    const key = `${teamId}|${version}|${filterKey}`;
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.hits++;
      // least recently used first: a hit moves the entry to the end
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    // after a change, every concurrent list request misses at once: one count serves them all
    const running = this.inFlight.get(key);
    if (running) return running;
    this.misses++;
    const counting = count().then((value) => {
      this.entries.set(key, value);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
      return value;
    });
    this.inFlight.set(key, counting);
    try {
      return await counting;
    } finally {
      this.inFlight.delete(key);
    }
  }
}
