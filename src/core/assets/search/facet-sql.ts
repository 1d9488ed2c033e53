import { intArray, type SqlFragment } from '../../platform/sql.ts';
import { COLOUR_FAMILY_RULES, type FacetSpec } from './facets.ts';
import { whereOf, type ResolvedFilter } from './search-sql.ts';
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

/** Lab hue angle in degrees, 0-360, of stored colour `c`. */
const HUE = '(degrees(atan2(c.b, c.a)) + 360)::numeric % 360';

/** COLOUR_FAMILY_RULES as a SQL expression over stored colour `c` (null without a colour). */
export function colourFamilySql(): string {
  const r = COLOUR_FAMILY_RULES;
  const hue = r.hues.map((h) => `when ${HUE} >= ${h.from} and ${HUE} < ${h.to} then '${h.family}'`);
  return `case when c.object_id is null then null
      when sqrt(c.a ^ 2 + c.b ^ 2) < ${r.neutralChroma} then case when c.l >= ${r.whiteFromL} then 'white' when c.l < ${r.blackBelowL} then 'black' else 'grey' end
      when ${HUE} >= 50 and ${HUE} < 80 and c.l < ${r.brownBelowL} then 'brown'
      ${hue.join('\n      ')} end`;
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
 * and under `missing` when it has none; the matches' tag ids are read once (a materialized CTE).
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
      return topValues(groupedBy(where, colourFamilySql(), { sql: 'left join stored_object_colours c on c.object_id = f.object_id and c.position = 0 and c.team_id = f.team_id', params: [] }), limit);
    case 'customField':
      return topValues(
        groupedBy(where, "v.value #>> '{}'", { sql: 'left join library_file_custom_values v on v.file_id = f.id and v.field_id = ? and v.team_id = f.team_id', params: [facet.fieldId] }),
        limit,
      );
    case 'tags':
      return topValues(
        {
          sql: `with m as materialized (select f.tag_ids from library_files f where ${where.sql})
            select t.tag_id::text as value, count(*)::float8 as n from m cross join unnest(m.tag_ids) as t(tag_id) group by 1
            union all select null, count(*)::float8 from m where cardinality(m.tag_ids) = 0`,
          params: where.params,
        },
        limit,
      );
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
