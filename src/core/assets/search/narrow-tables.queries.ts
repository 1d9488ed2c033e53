import type { TeamScope } from '../../platform/ctx.ts';
import { float, int } from '../../platform/row-checks.ts';
import { intArray, queryRows, type SqlFragment } from '../../platform/sql.ts';
import { deepTextConditions, type ResolvedFilter, whereOf } from './search.queries.ts';
import type { SearchFilter, SearchOrder } from './search-filter.ts';

/**
 * Statements on the narrow tables that hold one row per live file with its creation time
 * (docs/search.md): library_search_texts for DEEP keywords and library_tag_postings for tags. A
 * search on their filters alone reads them alone; with other filters, a page may walk them in
 * creation order and read each passing entry's file (creationOrderPage).
 */

/** The keywords of a search whose only filter is DEEP keywords, else null: such a search reads library_search_texts alone. */
function deepOnlyKeywords(filter: SearchFilter): string[] | null {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || !filter.keywords || filter.keywords.mode !== 'DEEP') return null;
  return filter.keywords.values;
}

/**
 * The count of a search whose only filter is DEEP keywords, on library_search_texts alone: it holds
 * exactly the team's live files, so library_files is not read at all (docs/search.md). null for
 * any other search, which counts over library_files.
 */
export function deepOnlyCount(teamId: number, filter: SearchFilter): SqlFragment | null {
  const keywords = deepOnlyKeywords(filter);
  if (!keywords) return null;
  const text = deepTextConditions(teamId, keywords);
  return { sql: `select count(*)::float8 as n from library_search_texts s where ${text.sql}`, params: text.params };
}

/**
 * How a page finds its matches: `collect` every match through the filters' indexes and sort them
 * (few matches known), `walk` a sort index in order testing each row (many matches known), or
 * leave it to the `planner` (the total is not known yet).
 */
export type PageShape = 'collect' | 'walk' | 'planner';

/**
 * The page ids of a search whose only filter is DEEP keywords, in creation order, on
 * library_search_texts alone (it carries each file's creation time); null for any other search or
 * order. `walk`: the page walks (team, created_at, file) and tests the narrow rows' text from the
 * index. Each keyword is tested there with strpos, the same containment as LIKE, because the
 * planner estimates LIKE through the trigram statistics and takes a keyword matching 13,788 files
 * for 100: it collected them all through the trigram index (15-25 ms) where the walk reads 5,700
 * index entries (0.6 ms). strpos has no index and no statistics, so the planner walks. `collect`:
 * every match is taken from the trigram index and sorted (search-pages.queries.ts). `planner`: the
 * LIKE conditions, for the planner to choose.
 */
export function deepOnlyPage(
  teamId: number,
  filter: SearchFilter,
  order: SearchOrder,
  page: { offset: number; limit: number },
  shape: PageShape,
): SqlFragment | null {
  const keywords = deepOnlyKeywords(filter);
  if (!keywords || order.name !== 'CREATE_TIME') return null;
  const where = shape === 'walk' ? walkedTextCondition(teamId, keywords) : deepTextConditions(teamId, keywords);
  return creationOrderPage({ table: 'library_search_texts', alias: 's', where }, null, order, page, shape === 'collect');
}

/**
 * The page ids of a search with DEEP keywords and other filters, in creation order, when many
 * matches are known (the `walk` shape), else null: it walks library_search_texts in creation order
 * testing the keywords from the index (as deepOnlyPage walks), and reads the file of each text
 * that matches by primary key to test the other filters. Left to the planner, 'umbrella' with
 * extensions jpg and png (9,411 matches of 1,000,000 files) collected the keyword's 13,788 matches
 * through the trigram index and sorted them, 108 ms; this walk reads 8,000 texts and 76 files,
 * 2.2 ms. A known total above COLLECT_MAX_MATCHES bounds the walk: about (offset + limit) times
 * files / total texts.
 */
export function deepWalkWithFilesPage(
  teamId: number,
  filter: SearchFilter,
  order: SearchOrder,
  page: { offset: number; limit: number },
  resolved: ResolvedFilter,
): SqlFragment | null {
  if (filter.keywords?.mode !== 'DEEP' || order.name !== 'CREATE_TIME') return null;
  const texts = { table: 'library_search_texts', alias: 's', where: walkedTextCondition(teamId, filter.keywords.values) };
  return creationOrderPage(texts, whereOf(teamId, { ...filter, keywords: undefined }, resolved), order, page);
}

/** A narrow table (`alias.file_id`, `alias.created_at`: the search texts or a tag's postings) and the condition its rows pass. */
interface NarrowRows {
  table: string;
  alias: string;
  where: SqlFragment;
}

/**
 * The ids of a page in creation order from the narrow rows that pass `narrow.where`: walking the
 * table in order, and reading the file of each passing row by primary key when `files` holds other
 * filters to test; with `collect`, taking every passing row first and sorting them.
 */
function creationOrderPage(
  narrow: NarrowRows,
  files: SqlFragment | null,
  order: SearchOrder,
  page: { offset: number; limit: number },
  collect = false,
): SqlFragment {
  const { table, alias: a, where } = narrow;
  const dir = order.direction === 'ASC' ? 'asc' : 'desc';
  const rows = files ? `${table} ${a} join library_files f on f.id = ${a}.file_id where ${where.sql} and ${files.sql}` : `${table} ${a} where ${where.sql}`;
  const source = collect ? `(with m as materialized (select ${a}.file_id, ${a}.created_at from ${rows}) select * from m) ${a}` : rows;
  return {
    sql: `select ${a}.file_id as id from ${source} order by ${a}.created_at ${dir}, ${a}.file_id ${dir} limit ? offset ?`,
    params: [...where.params, ...(files?.params ?? []), page.limit, page.offset],
  };
}

/**
 * The text contains every keyword, as one condition the planner estimates at a third of the rows
 * (an inequality on an expression without statistics): least(strpos(...), ...) > 0. Separate
 * conditions would multiply to a few rows for several keywords and bring back the collecting plan.
 */
function walkedTextCondition(teamId: number, keywords: string[]): SqlFragment {
  return {
    sql: `s.team_id = ? and least(${keywords.map(() => 'strpos(s.search_text, ?)').join(', ')}) > 0`,
    params: [teamId, ...keywords],
  };
}

/**
 * The tags every result of a search carries (an AND of tags, or a single tag), else null: the
 * search may walk the postings of the rarest of them (ResolvedFilter.walkTag).
 */
export function andTagIds(filter: SearchFilter): number[] | null {
  if (!filter.tags) return null;
  return filter.tags.all || filter.tags.ids.length === 1 ? filter.tags.ids : null;
}

/** andTagIds of a search whose only filter is tags: such a search reads library_tag_postings alone. */
export function tagsOnlyIds(filter: SearchFilter): number[] | null {
  return Object.keys(filter).length === 1 ? andTagIds(filter) : null;
}

/**
 * The postings `p` of the tag a search walks (`walkTag`, the rarest of `tagIds`, resolved first)
 * that carry every tag of the search: each entry's tag ids are in the index, so no file is read.
 */
function tagPostingsCondition(teamId: number, tagIds: number[], walkTag: number): SqlFragment {
  if (tagIds.length === 1) return { sql: 'p.team_id = ? and p.tag_id = ?', params: [teamId, walkTag] };
  return { sql: 'p.team_id = ? and p.tag_id = ? and p.tag_ids @> ?::int[]', params: [teamId, walkTag, intArray(tagIds)] };
}

/** The count of a tags-only search (tagsOnlyIds) on the walked tag's postings, else null. */
export function tagsOnlyCount(teamId: number, filter: SearchFilter, walkTag: number | undefined): SqlFragment | null {
  const tagIds = tagsOnlyIds(filter);
  if (!tagIds || walkTag === undefined) return null;
  const postings = tagPostingsCondition(teamId, tagIds, walkTag);
  return { sql: `select count(*)::float8 as n from library_tag_postings p where ${postings.sql}`, params: postings.params };
}

/**
 * The page ids of a search with an AND of tags and other filters, in creation order, when many
 * matches are known (the `walk` shape), else null: it walks the rarest tag's postings in creation
 * order testing the other tags from the index, and reads the file of each posting that passes by
 * primary key to test the other filters (creationOrderPage). Left to the planner, tags 1 and 8 with a
 * description (1,767 matches of 1,000,000 files) walked every file newest first, 52 ms; this walk
 * reads some 560 postings and 80 files, 0.6 ms (2.6 ms with cold caches).
 */
export function tagsWalkWithFilesPage(
  teamId: number,
  filter: SearchFilter,
  order: SearchOrder,
  page: { offset: number; limit: number },
  resolved: ResolvedFilter,
): SqlFragment | null {
  const tagIds = andTagIds(filter);
  if (!tagIds || resolved.walkTag === undefined || order.name !== 'CREATE_TIME') return null;
  const postings = { table: 'library_tag_postings', alias: 'p', where: tagPostingsCondition(teamId, tagIds, resolved.walkTag) };
  return creationOrderPage(postings, whereOf(teamId, { ...filter, tags: undefined }, resolved), order, page);
}

/**
 * The page ids of a tags-only search in creation order, walking the rarest tag's postings in
 * order and stopping at the page's end; else null. The walk reads about (offset + limit) times
 * (files with the rarest tag / files with all the tags) index entries, whatever the page.
 */
export function tagsOnlyPage(
  teamId: number,
  filter: SearchFilter,
  order: SearchOrder,
  page: { offset: number; limit: number },
  walkTag: number | undefined,
): SqlFragment | null {
  const tagIds = tagsOnlyIds(filter);
  if (!tagIds || walkTag === undefined || order.name !== 'CREATE_TIME') return null;
  return creationOrderPage({ table: 'library_tag_postings', alias: 'p', where: tagPostingsCondition(teamId, tagIds, walkTag) }, null, order, page);
}

/**
 * How many live files of the team carry each of `tagIds` (the rows of their postings), for
 * choosing the tag an AND of tags walks: an index-only count of each tag's postings.
 */
export function tagFileCountsStatement(teamId: number, tagIds: readonly number[]): SqlFragment {
  return {
    sql: `select t.id as "tagId", (select count(*) from library_tag_postings p where p.team_id = ? and p.tag_id = t.id)::float8 as files
            from unnest(?::int[]) t(id)`,
    params: [teamId, intArray(tagIds)],
  };
}

/** Runs tagFileCountsStatement for the scope's team: each tag with its live files' count. */
export async function tagFileCounts(scope: TeamScope, tagIds: readonly number[]): Promise<Array<{ tagId: number; files: number }>> {
  const statement = tagFileCountsStatement(scope.teamId, tagIds);
  const rows = await queryRows<Record<string, unknown>>(scope, statement.sql, statement.params);
  return rows.map((row) => ({ tagId: int(row.tagId, 'tagId'), files: float(row.files, 'files') }));
}
