import type { TeamScope } from '../../platform/ctx.ts';
import { productCountVersion } from './products.queries.ts';

/*
 * Exact totalCount of ordinary product pages (spec 2.1), without counting on every request.
 *
 * An exact count(*) of a team's live products reads the whole index range: about 100 ms of
 * PostgreSQL CPU at 1,000,000 products, so counting per request capped the list at a few requests
 * per second (bench/RESULTS-products.md). The total is therefore memoized per team, visibility
 * and filters, keyed by the team's product version: a deferred trigger on products raises it at
 * the commit of any change to the team's products (insert, update, soft delete), so an entry is
 * only read while the products are exactly as they were counted, in any process (ProductService's
 * VersionedMemo, platform/versioned-memo.ts). A search also matches library file names, so its key
 * adds the library version (raised the same way by every change to the team's files).
 */

/** What a total depends on: the products of the team, and for searches also its library's file names. */
export async function readCountVersion(ctx: TeamScope, withLibrary: boolean): Promise<string> {
  return productCountVersion(ctx, withLibrary);
}
