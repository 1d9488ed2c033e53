import type { TeamScope } from '../../platform/ctx.ts';
import { float, int, jsonList, text } from '../../platform/row-checks.ts';
import { boundSql, intArray, queryOne, queryRows, type SqlFragment } from '../../platform/sql.ts';
import { COLOUR_FAMILY_RULES, type FacetCounts, type FacetSpec } from './facets.ts';
import { type ResolvedFilter, whereOf } from './search.queries.ts';
import type { SearchFilter } from './search-filter.ts';

/**
 * The statements of facet counts (docs/search.md "Facets"): one grouped statement per facet over
 * the very WHERE clause of the search's count (whereOf, forCount), so the counts are of the same
 * matches as `total`: the team's live files, the caller's filters, currentUserId's access. Each
 * answers one row: the top `limit` values (most matches first, ties by value as text), the sum and
 * number of the values beyond, and the matches without a value.
 */

/** The tail every facet shares, over `c (value text, n float8)`: one row of top values, other and missing. */
function topValues(grouped: SqlFragment, limit: number): SqlFragment {
  return {
    sql: `with c as (${grouped.sql}),
      r as (select value, n, row_number() over (order by n desc, value) as rank from c where value is not null)
      select coalesce((select json_agg(json_build_object('value', r.value, 'count', r.n) order by r.rank) from r where r.rank <= ?), '[]') as "values",
             coalesce((select sum(r.n) from r where r.rank > ?), 0)::float8 as other,
             (select count(*) from r where r.rank > ?)::int as "otherValues",
             coalesce((select sum(c.n) from c where c.value is null), 0)::float8 as missing`,
    params: [...grouped.params, limit, limit, limit],
  };
}

/**
 * COLOUR_FAMILY_RULES's hue ranges on the circle PostgreSQL's atan2 gives, (-180, 180]: ranges
 * past 180 degrees move down by 360 (one crossing 180 is split), neighbours of one family merge.
 */
function signedHueRanges(): Array<{ family: string; from: number }> {
  const pieces: Array<{ family: string; from: number }> = [];
  for (const { family, from, to } of COLOUR_FAMILY_RULES.hues) {
    if (to <= 180) pieces.push({ family, from });
    else if (from >= 180) pieces.push({ family, from: from - 360 });
    else pieces.push({ family, from }, { family, from: -180 });
  }
  pieces.sort((x, y) => x.from - y.from);
  return pieces.filter((piece, i) => i === 0 || pieces[i - 1]!.family !== piece.family);
}

/**
 * COLOUR_FAMILY_RULES as a SQL expression over stored colour `c` (null without a colour). The hue
 * is computed once per row and looked up with width_bucket, the dark half of the buckets (L under
 * brownBelowL) naming orange brown: evaluating the rules as a CASE of hue ranges took 12-13 s over
 * the 690,000 images of the benchmark library against 5-6.5 s this way (load average 23).
 */
export function colourFamilySql(): string {
  const r = COLOUR_FAMILY_RULES;
  const ranges = signedHueRanges();
  const names = ranges.map((range) => `'${range.family}'`);
  const darkNames = ranges.map((range) => (range.family === 'orange' ? "'brown'" : `'${range.family}'`));
  const bounds = ranges.slice(1).map((range) => range.from);
  return `case when c.object_id is null then null
      when c.a::float8 ^ 2 + c.b::float8 ^ 2 < ${r.neutralChroma * r.neutralChroma} then (array['black', 'grey', 'white'])[width_bucket(c.l, array[${r.blackBelowL}, ${r.whiteFromL}]::real[]) + 1]
      else (array[${[...names, ...darkNames].join(', ')}])[width_bucket(degrees(atan2(c.b, c.a)), array[${bounds.join(', ')}]::float8[]) + 1 + ${ranges.length} * (c.l < ${r.brownBelowL})::int] end`;
}

/** The MIME type's kind (facets.ts FILE_TYPES), as events classify a material. */
const FILE_TYPE_SQL = `case when f.mime_type like 'image/%' then 'IMAGE' when f.mime_type like 'video/%' then 'VIDEO' when f.mime_type like 'audio/%' then 'AUDIO'
      when f.mime_type = 'application/pdf' or f.mime_type like 'text/%' or f.mime_type like '%document%' or f.mime_type like '%sheet%' or f.mime_type like '%presentation%' then 'DOCUMENT'
      else 'OTHER' end`;

const ORIENTATION_SQL = `case when f.width is null or f.height is null then null when f.width > f.height then 'LANDSCAPE' when f.width < f.height then 'PORTRAIT' else 'SQUARE' end`;

const VALIDITY_SQL = `case f.validity_status when 0 then 'VALID' when 1 then 'NOT_STARTED' when 2 then 'EXPIRED' end`;

/** A single-valued facet: the value of each match (`key`, null for none) through optional `joins`. */
function groupedBy(where: SqlFragment, key: string, joins: SqlFragment = { sql: '', params: [] }): SqlFragment {
  return {
    sql: `select ${key} as value, count(*)::float8 as n from library_files f ${joins.sql} where ${where.sql} group by 1`,
    params: [...joins.params, ...where.params],
  };
}

/**
 * The statement of one facet of a search. Tags are the one facet with several values per file:
 * a file counts once under each tag it carries (so the counts may add up to more than the total)
 * and under `missing` when it has none. Unnesting each match's tag ids in the scan took 2.9 s
 * over the benchmark's 1,000,000 files where reading them into a materialized CTE first took 7 s.
 */
export function facetStatement(teamId: number, filter: SearchFilter, resolved: ResolvedFilter, facet: FacetSpec, limit: number): SqlFragment {
  const where = whereOf(teamId, filter, resolved, true);
  switch (facet.name) {
    case 'extension':
      return topValues(groupedBy(where, 'f.extension'), limit);
    case 'type':
      return topValues(groupedBy(where, FILE_TYPE_SQL), limit);
    case 'orientation':
      return topValues(groupedBy(where, ORIENTATION_SQL), limit);
    case 'folder':
      return topValues(groupedBy(where, 'f.folder_id::text'), limit);
    case 'validity':
      return topValues(groupedBy(where, VALIDITY_SQL), limit);
    case 'colorFamily':
      // the palette's largest colour is its position 0 (colour.ts sorts by share)
      return topValues(
        groupedBy(where, colourFamilySql(), {
          sql: 'left join stored_object_colours c on c.object_id = f.object_id and c.position = 0 and c.team_id = f.team_id',
          params: [],
        }),
        limit,
      );
    case 'customField':
      return topValues(
        groupedBy(where, "v.value #>> '{}'", {
          sql: 'left join library_file_custom_values v on v.file_id = f.id and v.field_id = ? and v.team_id = f.team_id',
          params: [facet.fieldId],
        }),
        limit,
      );
    case 'tags':
      // a file without tags unnests to one null row: counted under missing
      return topValues(groupedBy(where, 't.tag_id::text', { sql: 'left join lateral unnest(f.tag_ids) as t(tag_id) on true', params: [] }), limit);
  }
}

/** The type of each of the team's custom fields among `ids` (absent: not a field of the team). */
export function customFieldTypesStatement(teamId: number, ids: readonly number[]): SqlFragment {
  return { sql: 'select id, type from library_custom_fields where team_id = ? and id = any(?::int[])', params: [teamId, intArray(ids)] };
}

/** Names of the team's tags or folders among `ids`, for the values of the tags and folder facets. */
export function facetLabelsStatement(teamId: number, facet: 'tags' | 'folder', ids: readonly number[]): SqlFragment {
  const table = facet === 'tags' ? 'library_tags' : 'library_folders';
  return { sql: `select id::text as value, name from ${table} where team_id = ? and id = any(?::int[])`, params: [teamId, intArray(ids)] };
}

/** Runs facetStatement for the scope's team, its parameters bound (boundSql): the facet's counts. */
export async function countFacet(scope: TeamScope, filter: SearchFilter, resolved: ResolvedFilter, facet: FacetSpec, limit: number): Promise<FacetCounts> {
  const statement = facetStatement(scope.teamId, filter, resolved, facet, limit);
  const row = (await queryOne<Record<string, unknown>>(scope, boundSql(statement.sql), statement.params))!;
  return {
    values: jsonList(row.values, 'values').map((v) => {
      const item = v as { value: unknown; count: unknown };
      return { value: String(item.value), count: Number(item.count) };
    }),
    other: float(row.other, 'other'),
    otherValues: int(row.otherValues, 'otherValues'),
    missing: float(row.missing, 'missing'),
  };
}

/** Runs customFieldTypesStatement: the type of each of the team's custom fields among `ids`, by id. */
export async function customFieldTypes(scope: TeamScope, ids: readonly number[]): Promise<Map<number, string>> {
  const statement = customFieldTypesStatement(scope.teamId, ids);
  const rows = await queryRows<Record<string, unknown>>(scope, statement.sql, statement.params);
  return new Map(rows.map((row) => [int(row.id, 'id'), text(row.type, 'type')]));
}

/** Runs facetLabelsStatement: the names of the team's tags or folders among `ids`, by id as text. */
export async function facetLabels(scope: TeamScope, facet: 'tags' | 'folder', ids: readonly number[]): Promise<Map<string, string>> {
  const statement = facetLabelsStatement(scope.teamId, facet, ids);
  const rows = await queryRows<Record<string, unknown>>(scope, statement.sql, statement.params);
  return new Map(rows.map((row) => [text(row.value, 'value'), text(row.name, 'name')]));
}
