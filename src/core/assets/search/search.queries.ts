import type { TeamScope } from '../../platform/ctx.ts';
import { bool, float, int, intList, text } from '../../platform/row-checks.ts';
import { boundSql, escapeLike, intArray, queryOne, queryRows, type SqlFragment, textArray } from '../../platform/sql.ts';
import { LIBRARY_VERSION_SQL } from './library-versions.queries.ts';
import type { FolderDTO, KeywordSearchType } from './search.schemas.ts';
import type { Range, SearchFilter, SearchOrder } from './search-filter.ts';

/*
 * Statements of asset search (docs/search.md) on library_files and what its filters read: the
 * WHERE clause and ORDER BY that pages, counts and facets share, the preamble, colour matches,
 * the count and the child folders. search-pages.queries.ts shapes the page, narrow-tables.queries.ts
 * the statements on the search texts and tag postings, facets.queries.ts the facet counts.
 */

/** A regular-expression literal for text (PostgreSQL ARE). */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
}

/** Whole words (or phrases): not preceded or followed by a letter, digit or underscore. */
function wholeWordRegex(keyword: string): string {
  return `(?<![[:alnum:]_])${escapeRegex(keyword)}(?![[:alnum:]_])`;
}

/** A file name without its last extension, lower-cased (`logo.png` -> `logo`); indexed as library_files_live_stem. */
export const NAME_STEM_SQL = `lower(regexp_replace(f.name, '\\.[^.]*$', ''))`;

/** The DEEP text conditions on `library_search_texts s`: every keyword is contained (substring). */
export function deepTextConditions(teamId: number, keywords: string[]): SqlFragment {
  return {
    sql: ['s.team_id = ?', ...keywords.map(() => 's.search_text like ?')].join(' and '),
    params: [teamId, ...keywords.map((k) => `%${escapeLike(k)}%`)],
  };
}

/**
 * Keywords under a keywordSearchType (docs/search.md); every keyword must match. Keywords arrive
 * lower-cased; names are compared lower-cased and search texts are stored lower-cased, so every
 * match ignores case.
 * - DEFAULT: the name contains the keyword.
 * - PRECISE: the name is the keyword, or the keyword plus one extension ("logo" finds "logo.png").
 * - DEEP: name, description, tag names or analysis fields contain the keyword (library_search_texts).
 * - DEEP_AND_PRECISE: PRECISE, or the keyword is a whole word (or phrase) of those fields.
 */
function keywordConditions(teamId: number, mode: KeywordSearchType, keywords: string[]): SqlFragment[] {
  // the name, or the name without its last extension (library_files_live_stem), equals the keyword
  const precise = (keyword: string) => ({
    sql: `(lower(f.name) = ? or ${NAME_STEM_SQL} = ?)`,
    params: [keyword, keyword],
  });
  switch (mode) {
    case 'DEFAULT':
      return keywords.map((keyword) => ({ sql: 'lower(f.name) like ?', params: [`%${escapeLike(keyword)}%`] }));
    case 'PRECISE':
      return keywords.map(precise);
    case 'DEEP': {
      const text = deepTextConditions(teamId, keywords);
      return [{ sql: `f.id in (select s.file_id from library_search_texts s where ${text.sql})`, params: text.params }];
    }
    case 'DEEP_AND_PRECISE':
      return keywords.map((keyword) => {
        const exact = precise(keyword);
        return {
          sql: `(${exact.sql} or f.id in (select s.file_id from library_search_texts s where s.team_id = ? and s.search_text ~ ?))`,
          params: [...exact.params, teamId, wholeWordRegex(keyword)],
        };
      });
  }
}

function rangeConditions(column: string, range: Range | undefined, out: SqlFragment[]): void {
  if (!range) return;
  // bounds go up to 2^53-1 (docs/search.md) while width and height are int columns: compared as
  // bigint (the int4-int8 operators of the same btree family, so the indexes still serve), a bound
  // past 2147483647 simply matches nothing instead of failing the cast
  if (range.min !== undefined) out.push({ sql: `${column} >= ?::bigint`, params: [range.min] });
  if (range.max !== undefined) out.push({ sql: `${column} <= ?::bigint`, params: [range.max] });
}

/** The colours of stored object `c` within ΔE*ab <= maxDistance of the requested one (the exact sphere). */
function colourNear(colour: NonNullable<SearchFilter['colour']>): SqlFragment {
  const { lab, maxDistance: d } = colour;
  return { sql: '(c.l - ?::float8) ^ 2 + (c.a - ?::float8) ^ 2 + (c.b - ?::float8) ^ 2 <= ?::float8', params: [lab.l, lab.a, lab.b, d * d] };
}

/**
 * Colour (docs/search.md): the stored objects whose colours within ΔE*ab <= maxDistance of the
 * requested one cover at least minShare percent of the image. The cube box (±maxDistance on L, a,
 * b, within the team) is answered by the GiST index; the exact sphere and the coverage sum follow.
 */
function colourMatchingObjects(teamId: number, colour: NonNullable<SearchFilter['colour']>): SqlFragment {
  const { lab, maxDistance: d, minShare } = colour;
  const near = colourNear(colour);
  return {
    sql: `select c.object_id from stored_object_colours c
       where cube(array[c.team_id, c.l, c.a, c.b]::float8[]) <@ cube(array[?, ?, ?, ?]::float8[], array[?, ?, ?, ?]::float8[])
         and ${near.sql}
       group by c.object_id having sum(c.share) >= ?::float8`,
    params: [teamId, lab.l - d, lab.a - d, lab.b - d, teamId, lab.l + d, lab.a + d, lab.b + d, ...near.params, minShare],
  };
}

/**
 * How many stored objects match a colour, and their ids when there are at most `idsMax`. Searches
 * run it first (once per library version, through the memo): a few matching objects are then
 * given to the page and count as ids, so the planner sees how many there are; many are tested row
 * by row instead (colourCondition), because sending 150,000 ids with every page cost 50 ms.
 */
export function colourMatchStatement(teamId: number, colour: NonNullable<SearchFilter['colour']>, idsMax: number): SqlFragment {
  const objects = colourMatchingObjects(teamId, colour);
  return {
    sql: `select count(*)::int as objects,
                 case when count(*) <= ? then coalesce(array_agg(m.object_id order by m.object_id), '{}') end as ids
            from (${objects.sql}) m`,
    params: [idsMax, ...objects.params],
  };
}

/**
 * Up to this many stored objects matching a colour, searches filter by their ids; beyond, each
 * file is tested against its palette (colourCondition). Sending ids costs about 0.3 µs each with
 * every page (50 ms for the 160,000 images matching white); testing costs about 1.5 µs per file
 * walked, and with more than 10,000 matches among 1,000,000 files a page walks about 5,000 at most
 * (docs/search.md).
 */
export const COLOUR_IDS_MAX = 10_000;

/** The stored objects matching a search's colour: how many, and their ids when they are few (colourMatchStatement). */
export interface ColourMatch {
  objects: number;
  ids: number[] | null;
}

/** Runs colourMatchStatement. */
export async function readColourMatch(scope: TeamScope, colour: NonNullable<SearchFilter['colour']>, idsMax: number): Promise<ColourMatch> {
  const statement = colourMatchStatement(scope.teamId, colour, idsMax);
  const row = (await queryOne<Record<string, unknown>>(scope, statement.sql, statement.params))!;
  return { objects: int(row.objects, 'objects'), ids: row.ids === null ? null : intList(row.ids, 'ids') };
}

/**
 * The colour condition on `library_files f`. With the matching objects' ids, one array condition.
 * With many matching objects: a page tests each file it walks against its own palette (a primary-key
 * probe of its 1-8 colours, about 1.5 µs, and at least 1 % of the files match), and a count, which
 * reads every match anyway, joins the matching objects.
 */
function colourCondition(teamId: number, colour: NonNullable<SearchFilter['colour']>, match: ColourMatch, forCount: boolean): SqlFragment {
  if (match.ids) return { sql: 'f.object_id = any(?::int[])', params: [intArray(match.ids)] };
  if (forCount) {
    const objects = colourMatchingObjects(teamId, colour);
    return { sql: `f.object_id in (${objects.sql})`, params: objects.params };
  }
  const near = colourNear(colour);
  return {
    sql: `(select coalesce(sum(c.share), 0) from stored_object_colours c where c.object_id = f.object_id and c.team_id = f.team_id and ${near.sql}) >= ?::float8`,
    params: [...near.params, colour.minShare],
  };
}

/** What a search resolved before its main statements. */
export interface ResolvedFilter {
  /** The stored objects matching its colour. */
  colour?: ColourMatch;
  /** The live folders of a parentId subtree (the folder and its descendants), when there are few (search-pages.queries.ts). */
  subtreeFolderIds?: number[];
  /** The tag whose postings a search with an AND of tags may walk: the one fewest live files carry (andTagIds). */
  walkTag?: number;
}

/**
 * The live folders of the subtree under `parentId`, at most `limit` of them (GIN index on
 * path_ids): a search of a small subtree pages through one ordered scan per folder.
 */
export function subtreeFoldersStatement(teamId: number, parentId: number, limit: number): SqlFragment {
  const ids = subtreeFolderIds(teamId, parentId, limit);
  return { sql: `select ${ids.sql} as ids`, params: ids.params };
}

/** subtreeFoldersStatement's value as a scalar subquery (an int[]), for the search preamble. */
function subtreeFolderIds(teamId: number, parentId: number, limit: number): SqlFragment {
  return {
    sql: `(select coalesce(array_agg(s.id order by s.id), '{}') from (
      select d.id from library_folders d where d.team_id = ? and d.path_ids @> array[?]::int[] and d.deleted_at is null limit ?) s)`,
    params: [teamId, parentId, limit],
  };
}

/** What a search reads before its page, in one statement (searchPreambleStatement). */
export interface SearchPreamble {
  /** The team's library version (versioned-memo.ts), read before any total is counted. */
  version: string;
  /** parentId names a live folder of the team (true without parentId). */
  folderFound: boolean;
  /** currentUserId names a member of the team (true without currentUserId). */
  memberFound: boolean;
  /** The subtree's live folders, at most `subtreeLimit` (only when asked for). */
  subtreeFolderIds: number[] | null;
}

/**
 * One round trip before a search's page: the library version, the reference checks of parentId
 * and currentUserId, and the folders of the parentId subtree when `subtreeLimit` is given; each
 * part filtered by the team.
 */
export function searchPreambleStatement(teamId: number, filter: SearchFilter, subtreeLimit: number | null): SqlFragment {
  const parts: SqlFragment[] = [{ sql: `${LIBRARY_VERSION_SQL} as version`, params: [teamId] }];
  parts.push(
    filter.parentId === undefined
      ? { sql: 'true as "folderFound"', params: [] }
      : {
          sql: 'exists (select 1 from library_folders p where p.id = ? and p.team_id = ? and p.deleted_at is null) as "folderFound"',
          params: [filter.parentId, teamId],
        },
  );
  parts.push(
    filter.currentUserId === undefined
      ? { sql: 'true as "memberFound"', params: [] }
      : { sql: 'exists (select 1 from members m where m.id = ? and m.team_id = ?) as "memberFound"', params: [filter.currentUserId, teamId] },
  );
  if (filter.parentId !== undefined && subtreeLimit !== null) {
    const ids = subtreeFolderIds(teamId, filter.parentId, subtreeLimit);
    parts.push({ sql: `${ids.sql} as "subtreeFolderIds"`, params: ids.params });
  } else {
    parts.push({ sql: 'null::int[] as "subtreeFolderIds"', params: [] });
  }
  return { sql: `select ${parts.map((p) => p.sql).join(', ')}`, params: parts.flatMap((p) => p.params) };
}

/** Runs searchPreambleStatement for the scope's team. */
export async function readSearchPreamble(scope: TeamScope, filter: SearchFilter, subtreeLimit: number | null): Promise<SearchPreamble> {
  const statement = searchPreambleStatement(scope.teamId, filter, subtreeLimit);
  const row = (await queryOne<Record<string, unknown>>(scope, statement.sql, statement.params))!;
  return {
    version: text(row.version, 'version'),
    folderFound: bool(row.folderFound, 'folderFound'),
    memberFound: bool(row.memberFound, 'memberFound'),
    subtreeFolderIds: row.subtreeFolderIds === null ? null : intList(row.subtreeFolderIds, 'subtreeFolderIds'),
  };
}

/** Runs a search's count statement (searchStatements' `count`), its parameters bound (boundSql): the exact total. */
export async function countMatches(scope: TeamScope, count: SqlFragment): Promise<number> {
  const row = (await queryOne<Record<string, unknown>>(scope, boundSql(count.sql), count.params))!;
  return float(row.n, 'n');
}

/** needChildren: the live child folders of parentId, or the top-level folders; with currentUserId only those the member may access. */
export async function childFolders(scope: TeamScope, filter: SearchFilter): Promise<FolderDTO[]> {
  const params: unknown[] = [scope.teamId];
  let access = '';
  if (filter.currentUserId !== undefined) {
    // a member sees the folders they belong to, their descendants, and the ancestors leading to them
    access = `and exists (select 1 from library_folder_members m where m.team_id = c.team_id and m.member_id = ?
                              and (c.path_ids @> array[m.folder_id] or exists (
                                select 1 from library_folders mf where mf.id = m.folder_id and mf.path_ids @> array[c.id])))`;
    params.push(filter.currentUserId);
  }
  const parent = filter.parentId === undefined ? 'c.parent_id is null' : 'c.parent_id = ?';
  if (filter.parentId !== undefined) params.push(filter.parentId);
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select c.id, c.name from library_folders c
        where c.team_id = ? and c.deleted_at is null ${access} and ${parent}
        order by lower(c.name), c.id`,
    params,
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), name: text(row.name, 'name') }));
}

/**
 * currentUserId (docs/search.md): a member may access the files they own and every file under a
 * folder they are a member of (that folder and its descendants).
 */
function accessCondition(teamId: number, memberId: number): SqlFragment {
  return {
    sql: `(f.owner_id = ? or f.folder_id in (
      select d.id from library_folder_members m
        join library_folders d on d.team_id = m.team_id and d.path_ids @> array[m.folder_id] and d.deleted_at is null
       where m.team_id = ? and m.member_id = ?))`,
    params: [memberId, teamId, memberId],
  };
}

/**
 * parentId: the file is in that folder or a descendant. As `folder_id in (subquery)` the planner
 * may join each folder of the subtree to the other filters' indexes: with tags, a count of a
 * top-level folder's subtree (111 folders) ANDed the GIN scan of the tags with each folder's files,
 * decoding the tags' posting lists 111 times, 340 ms. A statement that reads every match (forCount)
 * takes the subtree's folders first as one array, `folder_id = any(array(subquery))`, so each index
 * is scanned once: 9 ms, and as fast or faster for the other filters measured, but DEEP keywords
 * (33 -> 114 ms for a second-level folder), which keep the join. Pages keep it too: the planner
 * underestimates the array's matches and walked the folder index for a SIZE page, 9 -> 98 ms.
 */
function subtreeCondition(teamId: number, filter: SearchFilter, forCount: boolean): SqlFragment {
  const folders = 'select d.id from library_folders d where d.team_id = ? and d.path_ids @> array[?]::int[] and d.deleted_at is null';
  const asArray = forCount && !filter.keywords;
  return { sql: asArray ? `f.folder_id = any(array(${folders}))` : `f.folder_id in (${folders})`, params: [teamId, filter.parentId] };
}

/**
 * Tags: any of them (tagOrAnd false) overlaps the file's tag ids, all of them are contained in
 * them; both are one condition the GIN index on tag_ids answers, or that a walk of a sort index
 * tests on the row it reads (docs/search.md: a join per tag probed two indexes for every file walked).
 */
function tagCondition(tags: NonNullable<SearchFilter['tags']>): SqlFragment {
  return { sql: tags.all ? 'f.tag_ids @> ?::int[]' : 'f.tag_ids && ?::int[]', params: [intArray(tags.ids)] };
}

/**
 * customFieldTemplateIds / customFieldId (docs/search.md): the file has a custom field value of
 * the team matching `condition` on library_file_custom_values, found through its (team, template,
 * file) or (team, field, file) index; another team's ids find no row.
 */
function customValuesCondition(teamId: number, condition: string, value: unknown): SqlFragment {
  return { sql: `f.id in (select v.file_id from library_file_custom_values v where v.team_id = ? and v.${condition})`, params: [teamId, value] };
}

/**
 * The WHERE clause of a search over `library_files f`: always the team and live rows, then each
 * filter. `forCount`: the clause of a statement that reads every match (the count, or a page that
 * collects them), which may test a filter differently (colourCondition, subtreeCondition).
 */
export function whereOf(teamId: number, filter: SearchFilter, resolved: ResolvedFilter = {}, forCount = false): SqlFragment {
  const parts: SqlFragment[] = [{ sql: 'f.team_id = ? and f.deleted_at is null', params: [teamId] }];
  if (filter.parentId !== undefined) parts.push(subtreeCondition(teamId, filter, forCount));
  if (filter.extensions) parts.push({ sql: 'f.extension = any(?::text[])', params: [textArray(filter.extensions)] });
  rangeConditions('f.duration_ms', filter.durationMs, parts);
  rangeConditions('f.byte_size', filter.sizeBytes, parts);
  rangeConditions('f.width', filter.width, parts);
  rangeConditions('f.height', filter.height, parts);
  if (filter.updatedMs?.min !== undefined) parts.push({ sql: 'f.updated_at >= to_timestamp(?::float8 / 1000)', params: [filter.updatedMs.min] });
  // inclusive at millisecond precision: anything before the next millisecond
  if (filter.updatedMs?.max !== undefined) parts.push({ sql: 'f.updated_at < to_timestamp((?::float8 + 1) / 1000)', params: [filter.updatedMs.max] });
  if (filter.keywords) parts.push(...keywordConditions(teamId, filter.keywords.mode, filter.keywords.values));
  if (filter.tags) parts.push(tagCondition(filter.tags));
  if (filter.createUsers) parts.push({ sql: 'f.create_user_id = any(?::int[])', params: [intArray(filter.createUsers)] });
  if (filter.ratings) parts.push({ sql: 'f.score = any(?::int[])', params: [intArray(filter.ratings)] });
  if (filter.hasLink !== undefined) parts.push({ sql: filter.hasLink ? "coalesce(f.link, '') <> ''" : "coalesce(f.link, '') = ''", params: [] });
  if (filter.hasDesc !== undefined) parts.push({ sql: filter.hasDesc ? "coalesce(f.description, '') <> ''" : "coalesce(f.description, '') = ''", params: [] });
  if (filter.linkContains) parts.push({ sql: 'lower(f.link) like ?', params: [`%${escapeLike(filter.linkContains)}%`] });
  if (filter.descContains) parts.push({ sql: 'lower(f.description) like ?', params: [`%${escapeLike(filter.descContains)}%`] });
  if (filter.colour) {
    if (!resolved.colour) throw new Error('a colour search needs its matching objects resolved first');
    parts.push(colourCondition(teamId, filter.colour, resolved.colour, forCount));
  }
  if (filter.customFieldTemplateIds) parts.push(customValuesCondition(teamId, 'template_id = any(?::int[])', intArray(filter.customFieldTemplateIds)));
  if (filter.customFieldId !== undefined) parts.push(customValuesCondition(teamId, 'field_id = ?', filter.customFieldId));
  if (filter.currentUserId !== undefined) parts.push(accessCondition(teamId, filter.currentUserId));
  return { sql: parts.map((p) => p.sql).join('\n   and '), params: parts.flatMap((p) => p.params) };
}

/**
 * ORDER BY for a sort (spec 4.6 SortConditionVO), always ending with the id in the same direction,
 * so pages are stable. A missing duration or rating counts as the lowest value: first ascending,
 * last descending (the indexes are built `nulls first` so both directions walk them).
 */
export function orderByOf(order: SearchOrder): string {
  const dir = order.direction === 'ASC' ? 'asc' : 'desc';
  const nulls = order.direction === 'ASC' ? 'nulls first' : 'nulls last';
  switch (order.name) {
    case 'CREATE_TIME':
      return `f.created_at ${dir}, f.id ${dir}`;
    case 'UPDATE_TIME':
      return `f.updated_at ${dir}, f.id ${dir}`;
    case 'NAME':
      return `lower(f.name) ${dir}, f.id ${dir}`;
    case 'DURATION':
      return `f.duration_ms ${dir} ${nulls}, f.id ${dir}`;
    case 'SIZE':
      return `f.byte_size ${dir}, f.id ${dir}`;
    case 'SCORE':
      return `f.score ${dir} ${nulls}, f.id ${dir}`;
  }
}
