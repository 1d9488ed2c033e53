import { createHash } from 'node:crypto';
import type { TeamScope } from '../../platform/ctx.ts';
import { int } from '../../platform/row-checks.ts';
import { boundSql, type PreparedSql, preparedSql, queryRows, type SqlFragment } from '../../platform/sql.ts';
import {
  deepOnlyCount,
  deepOnlyPage,
  deepWalkWithFilesPage,
  type PageShape,
  tagsOnlyCount,
  tagsOnlyPage,
  tagsWalkWithFilesPage,
} from './narrow-tables.queries.ts';
import { orderByOf, type ResolvedFilter, whereOf } from './search.queries.ts';
import type { AssetSearchPlan, SearchFilter } from './search-filter.ts';

/** Above this many extensions a SIZE search is one scan, not one branch per extension. */
const MAX_EXTENSION_BRANCHES = 20;
/**
 * Up to this many folders, a parentId search in creation order is one branch per folder. A larger
 * subtree holds a large share of the files, so walking the creation-time index finds a page soon.
 */
export const MAX_FOLDER_BRANCHES = 32;

/**
 * Up to this many matches, when the memo of totals already knows how many there are, a page
 * collects every match through the filters' indexes and sorts them, instead of letting the planner
 * walk a sort index. Collecting costs about 1 µs per match; walking costs about 1 µs per row
 * walked, (startPoint + page size) / fraction matching, so with few matches a walk reads tens of
 * thousands of rows (docs/search.md: two tags matching 0.27 % of 1,000,000 files, 18,000 rows and
 * 17 ms walked, 4 ms collected). The planner cannot know this: it estimates the number of matches,
 * the memo knows it.
 */
export const COLLECT_MAX_MATCHES = 1_500;

/** The sort keys a collected page orders by, under the names orderByOf uses. */
const SORT_COLUMNS = 'f.id, f.created_at, f.updated_at, f.name, f.duration_ms, f.byte_size, f.score';

/**
 * A page's ids statement. `preparable`: its best plan does not depend on its values, so it may run
 * as a named prepared statement, which PostgreSQL stops planning after a few runs (a branched page
 * of 11 folders spent 1.3-1.4 ms planning and 0.15-0.2 ms executing). Only the branched shapes
 * whose other filters are none (folders) or a size range (extensions), and the walk of a tag's
 * postings, qualify: each reads ordered ranges of one index whatever the values. Every other page
 * is planned for its values.
 */
export interface PageStatement extends SqlFragment {
  preparable: boolean;
}

/**
 * The page as one branch per value of `column` (the rest of the filter in each), each reading an
 * index that starts with (team, column, sort key) in order and stopping after offset + limit
 * rows, merged on the sort key (`sortColumn`) and the id.
 */
function branchedPage(plan: AssetSearchPlan, rest: SqlFragment, column: string, values: readonly unknown[], sortColumn: string): SqlFragment {
  const reach = plan.page.offset + plan.page.limit;
  const branch = `(select f.id, f.${sortColumn} from library_files f where ${rest.sql} and f.${column} = ? order by ${orderByOf(plan.order)} limit ?)`;
  const dir = plan.order.direction === 'ASC' ? 'asc' : 'desc';
  return {
    sql: `select u.id from (${values.map(() => branch).join(' union all ')}) u order by u.${sortColumn} ${dir}, u.id ${dir} limit ? offset ?`,
    params: [...values.flatMap((value) => [...rest.params, value, reach]), plan.page.limit, plan.page.offset],
  };
}

/**
 * The ids of the page. Usually one statement the planner may serve by walking a sort index. Two
 * searches are one branch per value instead (branchedPage), where a single scan would walk a sort
 * index and test every row (docs/search.md):
 * - extensions sorted by SIZE, per extension on (team, extension, byte_size, id): as one scan the
 *   size index was filtered row by row, 150,000 rows (7 s under load) for an extension with no file
 *   in the size range;
 * - a parentId subtree of at most MAX_FOLDER_BRANCHES folders in creation order, per folder on
 *   (team, folder, created_at, id): as one scan the creation-time index was walked testing each
 *   file's folder, 10,568 files (25 ms) for the page at startPoint 40 of a folder holding 0.5 % of
 *   1,000,000 files; the branches read at most 50 index entries each.
 * A tags-only search in creation order walks its rarest tag's postings (tagsOnlyPage), a DEEP-only
 * one reads library_search_texts alone (deepOnlyPage), walking its creation-time index when many
 * matches are known; DEEP keywords or an AND of tags with other filters and many matches known
 * walk the texts or the rarest tag's postings and test each entry's file (deepWalkWithFilesPage,
 * tagsWalkWithFilesPage). With few matches known
 * (COLLECT_MAX_MATCHES) the page collects and sorts them.
 */
function pageIds(teamId: number, plan: AssetSearchPlan, resolved: ResolvedFilter, knownTotal: number | undefined, collectMaxMatches: number): PageStatement {
  // a colour with many matching objects is tested file by file: collecting would test every file
  const collect = knownTotal !== undefined && knownTotal <= collectMaxMatches && !(resolved.colour && !resolved.colour.ids);
  const folders = resolved.subtreeFolderIds;
  if (plan.order.name === 'CREATE_TIME' && folders && folders.length > 0 && folders.length <= MAX_FOLDER_BRANCHES) {
    const rest = { ...plan.filter, parentId: undefined };
    const page = branchedPage(plan, whereOf(teamId, rest, resolved), 'folder_id', folders, 'created_at');
    return { ...page, preparable: onlyFilters(rest, []) };
  }
  // its plan, an ordered range of one index, never depends on the tags
  const tagsOnly = tagsOnlyPage(teamId, plan.filter, plan.order, plan.page, resolved.walkTag);
  if (tagsOnly) return { ...tagsOnly, preparable: true };
  const shape: PageShape = collect ? 'collect' : knownTotal === undefined ? 'planner' : 'walk';
  const deepOnly = deepOnlyPage(teamId, plan.filter, plan.order, plan.page, shape);
  // walking: one index range in order, whatever the keywords; collecting or left to the planner: planned for the keywords
  if (deepOnly) return { ...deepOnly, preparable: shape === 'walk' };
  // many matches known, other filters too: walk the keywords' texts or the rarest tag's postings and read their files
  const walkWithFiles =
    shape === 'walk'
      ? (deepWalkWithFilesPage(teamId, plan.filter, plan.order, plan.page, resolved) ??
        tagsWalkWithFilesPage(teamId, plan.filter, plan.order, plan.page, resolved))
      : null;
  if (walkWithFiles) return { ...walkWithFiles, preparable: false };
  const extensions = plan.filter.extensions;
  if (plan.order.name === 'SIZE' && extensions && extensions.length <= MAX_EXTENSION_BRANCHES) {
    const rest = { ...plan.filter, extensions: undefined };
    const page = branchedPage(plan, whereOf(teamId, rest, resolved), 'extension', extensions, 'byte_size');
    return { ...page, preparable: onlyFilters(rest, ['sizeBytes']) };
  }
  // a collected page reads every match, as the count does
  const where = whereOf(teamId, plan.filter, resolved, collect);
  const source = collect
    ? `(with m as materialized (select ${SORT_COLUMNS} from library_files f where ${where.sql}) select * from m) f`
    : `library_files f where ${where.sql}`;
  return {
    sql: `select f.id from ${source} order by ${orderByOf(plan.order)} limit ? offset ?`,
    params: [...where.params, plan.page.limit, plan.page.offset],
    preparable: false,
  };
}

/** `filter` sets no filter outside `allowed` (undefined entries are unset). */
function onlyFilters(filter: SearchFilter, allowed: ReadonlyArray<keyof SearchFilter>): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || allowed.includes(key as keyof SearchFilter));
}

/**
 * The page and count statements of a planned search; the benchmark runs the very same SQL bare.
 * `page` selects the ids of the page in order; their rows come from the prepared `ASSET_ROWS`
 * statement (asset-rows.queries.ts), planned once per connection: planning the rows as part of the page
 * statement cost 0.3-0.5 ms of PostgreSQL's CPU per search (docs/search.md).
 * `knownTotal` is the search's exact total when the memo of totals already holds it;
 * `collectMaxMatches` is COLLECT_MAX_MATCHES but in tests, which lower it to walk a small library.
 */
export function searchStatements(
  teamId: number,
  plan: AssetSearchPlan,
  resolved: ResolvedFilter = {},
  knownTotal?: number,
  collectMaxMatches = COLLECT_MAX_MATCHES,
): { page: PageStatement; count: SqlFragment } {
  const where = whereOf(teamId, plan.filter, resolved, true);
  return {
    page: pageIds(teamId, plan, resolved, knownTotal, collectMaxMatches),
    count: tagsOnlyCount(teamId, plan.filter, resolved.walkTag) ??
      deepOnlyCount(teamId, plan.filter) ?? { sql: `select count(*)::float8 as n from library_files f where ${where.sql}`, params: where.params },
  };
}

/**
 * How a page's ids statement runs: preparable shapes as a named prepared statement (named by a
 * hash of their text, so equal shapes share a name and different ones never collide), the others
 * unnamed with bound parameters (boundSql).
 */
export function pageSql(page: PageStatement): PreparedSql {
  if (!page.preparable) return boundSql(page.sql);
  return preparedSql(`search.page.${createHash('sha256').update(page.sql).digest('hex').slice(0, 24)}`, page.sql);
}

/** Runs a page's ids statement (pageSql): the ids of the page, in page order. */
export async function pageIdsOf(scope: TeamScope, page: PageStatement): Promise<number[]> {
  const rows = await queryRows<Record<string, unknown>>(scope, pageSql(page), page.params);
  return rows.map((row) => int(row.id, 'id'));
}
