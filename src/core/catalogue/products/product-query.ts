import { actorMay } from '../../access/roles.ts';
import type { CallerScope } from '../../platform/ctx.ts';
import { invalid, invalidFields } from '../../platform/errors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../platform/pagination.ts';
import { isStorableTimestamp } from '../../platform/timestamps.ts';
import { compileInput } from '../../platform/validate.ts';
import { PRODUCT_STATUSES, ProductListQuery } from './product.schemas.ts';
import type { ProductFilters } from './products.queries.ts';

/*
 * GET /products query parameters (spec 4.5): which mode, which filters, and the rules that refuse
 * a query before any row is read.
 */

const KNOWN = Object.keys(ProductListQuery.properties);
const checkQuery = compileInput(ProductListQuery);

/**
 * Spec 4.5 "duplicate sync parameters rejected": a parameter given twice reaches us as an array
 * (Fastify's query parser). Unknown parameters are ignored, repeated or not (spec 2.1).
 */
export function rejectRepeatedParameters(query: Record<string, unknown>): void {
  const repeated = KNOWN.filter((name) => Array.isArray(query[name]));
  if (repeated.length > 0) {
    throw invalidFields(repeated.map((field) => ({ field, message: 'must not be repeated' })));
  }
}

export interface OrdinaryQuery {
  mode: 'page';
  page: number;
  pageSize: number;
  filters: ProductFilters;
}

export interface SyncQuery {
  mode: 'sync';
  /** Capped at 100; undefined when the caller did not send it (a continuation then keeps the cursor's). */
  pageSize: number | undefined;
  filters: ProductFilters;
  /** As sent (validated format); normalized in SQL. */
  updatedAfter: string | undefined;
  cursor: string | undefined;
  /** Which filters the caller sent, for "repeat equivalent values" on continuations. */
  sentFilters: Record<string, string | number | null>;
  /** The sync feed opt-in (docs/products.md "Sync feed"); undefined when not sent (a continuation keeps the cursor's). */
  changes: boolean | undefined;
}

/**
 * Spec 4.5 updatedAfter: RFC 3339 with Z or an offset and 0-6 fractional digits, checked by the
 * one timestamp rule (so PostgreSQL never sees an impossible date or offset); the value itself is
 * parsed and normalized by PostgreSQL, keeping microseconds.
 */
export function checkUpdatedAfter(value: string): string {
  if (!isStorableTimestamp(value))
    throw invalid('updatedAfter', 'must be an RFC 3339 timestamp with Z or an offset and 0-6 fractional digits, e.g. 2026-01-01T00:00:00.000000Z');
  return value.toUpperCase();
}

/** Parses and checks the query of GET /products (spec 4.5) for this caller. */
export function parseProductQuery(ctx: CallerScope, raw: Record<string, unknown>): OrdinaryQuery | SyncQuery {
  rejectRepeatedParameters(raw);
  const query = checkQuery(raw);
  if (query.sync !== undefined && query.sync !== 'true' && query.sync !== 'false') throw invalid('sync', "must be 'true' or 'false'");
  if (query.status !== undefined && !(PRODUCT_STATUSES as readonly string[]).includes(query.status)) throw invalid('status', "must be 'draft' or 'published'");
  const search = query.search?.trim() ? query.search.trim() : null;
  const filters: ProductFilters = {
    // spec 3.1: view_only and usable see published products only; a status filter never widens that
    publishedOnly: !actorMay(ctx.actor, 'products:read_drafts'),
    status: (query.status as ProductFilters['status'] | undefined) ?? null,
    brandId: query.brandId ?? null,
    categoryId: query.categoryId ?? null,
    search,
  };
  const pageSize = query.pageSize === undefined ? undefined : Math.min(query.pageSize, MAX_PAGE_SIZE);
  if (query.sync !== 'true') {
    if (query.updatedAfter !== undefined) throw invalid('updatedAfter', 'is only available with sync=true');
    if (query.cursor !== undefined) throw invalid('cursor', 'is only available with sync=true');
    if (query.changes !== undefined) throw invalid('changes', 'is only available with sync=true');
    return { mode: 'page', page: query.page ?? 1, pageSize: pageSize ?? DEFAULT_PAGE_SIZE, filters };
  }
  if (query.page !== undefined) throw invalid('page', 'is not available with sync=true; follow nextCursor instead');
  if (query.cursor !== undefined && (query.cursor.length < 1 || query.cursor.length > 8192)) throw invalid('cursor', 'must be 1-8192 characters');
  if (query.changes !== undefined && query.changes !== 'true' && query.changes !== 'false') throw invalid('changes', "must be 'true' or 'false'");
  const changes = query.changes === undefined ? undefined : query.changes === 'true';
  // a feed page merges two index-ordered streams; a search would need the scan budget on both
  if (changes === true && search !== null)
    throw invalid('changes', 'cannot be combined with search; sync with changes=true without search, or search without changes');
  return {
    mode: 'sync',
    pageSize,
    filters,
    updatedAfter: query.updatedAfter === undefined ? undefined : checkUpdatedAfter(query.updatedAfter),
    cursor: query.cursor,
    sentFilters: { brandId: filters.brandId, categoryId: filters.categoryId, status: filters.status, search: filters.search },
    changes,
  };
}
