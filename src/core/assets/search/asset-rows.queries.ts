import type { TeamScope } from '../../platform/ctx.ts';
import { bigintNumber, float, int, intList, jsonList, nullableFloat, nullableInt, nullableText, text } from '../../platform/row-checks.ts';
import { intArray, type PreparedSql, preparedSql, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { TagDTO } from './search.schemas.ts';

/*
 * Statements reading what an AssetItem (spec 2.6, asset-items.ts) is built from: library files
 * with their folder, and their tags. Search pages, edits and shares read them.
 */

/** The columns of a library file that an AssetItem (spec 2.6) is built from; `f` is library_files, `d` its folder. */
export const ASSET_ROW_COLUMNS = `f.id, coalesce(d.path_ids, '{}') as "parentIds", f.owner_id as "ownerId", f.name, f.source, f.link, f.extension,
  f.duration_ms::float8 as "durationMs", ceil(f.byte_size / 1024.0)::float8 as "sizeKb", f.width, f.height, f.description, f.score,
  ${isoSql('f.created_at')} as "createTime", f.create_user_id as "createUserId", ${isoSql('f.updated_at')} as "updateTime",
  f.update_user_id as "updateUserId", f.mime_type as "mimeType",
  f.ai_tags as "aiTags", f.ai_title as "aiTitle", f.ai_description as "aiDescription", f.ai_detailed_description as "aiDetailedDescription"`;

/**
 * The tags of the row's file as TagDTO JSON, ordered by name then id: the file's own tag ids
 * (kept by a trigger, docs/search.md), each name looked up by primary key. A join of the tags
 * table (500 rows) to the ids was planned as a scan of the whole table for every result row: 0.5 ms
 * of a 10-result page, now 0.1 ms.
 */
export const ASSET_TAGS_COLUMN = `coalesce((select json_agg(json_build_object('id', u.id, 'name', u.name) order by u.name, u.id)
    from (select u.id, (select t.name from library_tags t where t.id = u.id and t.team_id = f.team_id) as name from unnest(f.tag_ids) u(id)) u
   where u.name is not null), '[]') as tags`;

/**
 * The AssetRows of the team's live files among some ids (parameters: team id, int[] literal of
 * ids), with their tags, in no particular order: prepared, so PostgreSQL plans it once per
 * connection (the plan is the same for any ids: primary-key lookups).
 */
export const ASSET_ROWS: PreparedSql = preparedSql(
  'search.assetRowsWithTags',
  `select ${ASSET_ROW_COLUMNS}, ${ASSET_TAGS_COLUMN}
     from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
    where f.team_id = ? and f.deleted_at is null and f.id = any(?::int[])`,
);

/**
 * What the AssetRows of `ids` would carry: the stored size of their free-text columns (up to about
 * 130 KB a file: descriptions, the AI texts), their tags and the rest of an item, to admit a page
 * against its answer before it is read (platform/answer-budget.ts).
 */
const ASSET_ROWS_BYTES = preparedSql(
  'search.assetRowsBytes',
  `select coalesce(sum(coalesce(octet_length(f.description), 0) + coalesce(octet_length(f.link), 0) + coalesce(octet_length(f.ai_tags), 0)
      + coalesce(octet_length(f.ai_title), 0) + coalesce(octet_length(f.ai_description), 0) + coalesce(octet_length(f.ai_detailed_description::text), 0)
      + coalesce(cardinality(f.tag_ids), 0) * 96 + 2048), 0)::bigint as bytes
     from library_files f where f.team_id = ? and f.deleted_at is null and f.id = any(?::int[])`,
);

export async function assetRowsBytes(scope: TeamScope, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await queryRows<Record<string, unknown>>(scope, ASSET_ROWS_BYTES, [scope.teamId, intArray(ids)]);
  return bigintNumber(rows[0]!.bytes, 'bytes');
}

/** The rows of `ids` in the order of `ids`; ids without a row (not the team's, or deleted since) are left out. */
export async function assetRowsInOrder(scope: TeamScope, ids: readonly number[]): Promise<AssetRow[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(scope, ASSET_ROWS, [scope.teamId, intArray(ids)]);
  const byId = new Map(rows.map((row) => assetRowOf(row)).map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export interface AssetRow {
  id: number;
  parentIds: number[];
  ownerId: number | null;
  name: string;
  source: number;
  link: string | null;
  extension: string | null;
  durationMs: number | null;
  sizeKb: number;
  width: number | null;
  height: number | null;
  description: string | null;
  score: number | null;
  createTime: string;
  createUserId: number | null;
  updateTime: string;
  updateUserId: number | null;
  mimeType: string;
  aiTags: string | null;
  aiTitle: string | null;
  aiDescription: string | null;
  aiDetailedDescription: unknown[] | null;
  tags?: TagDTO[];
}

/**
 * An AssetRow from a row of ASSET_ROW_COLUMNS (and ASSET_TAGS_COLUMN when the statement has it),
 * its columns checked (row-checks.ts): the search pages, shares and events build AssetItems from it.
 */
export function assetRowOf(row: Record<string, unknown>): AssetRow {
  const asset: AssetRow = {
    id: int(row.id, 'id'),
    parentIds: intList(row.parentIds, 'parentIds'),
    ownerId: nullableInt(row.ownerId, 'ownerId'),
    name: text(row.name, 'name'),
    source: int(row.source, 'source'),
    link: nullableText(row.link, 'link'),
    extension: nullableText(row.extension, 'extension'),
    durationMs: nullableFloat(row.durationMs, 'durationMs'),
    sizeKb: float(row.sizeKb, 'sizeKb'),
    width: nullableInt(row.width, 'width'),
    height: nullableInt(row.height, 'height'),
    description: nullableText(row.description, 'description'),
    score: nullableInt(row.score, 'score'),
    createTime: text(row.createTime, 'createTime'),
    createUserId: nullableInt(row.createUserId, 'createUserId'),
    updateTime: text(row.updateTime, 'updateTime'),
    updateUserId: nullableInt(row.updateUserId, 'updateUserId'),
    mimeType: text(row.mimeType, 'mimeType'),
    aiTags: nullableText(row.aiTags, 'aiTags'),
    aiTitle: nullableText(row.aiTitle, 'aiTitle'),
    aiDescription: nullableText(row.aiDescription, 'aiDescription'),
    aiDetailedDescription: row.aiDetailedDescription === null ? null : jsonList(row.aiDetailedDescription, 'aiDetailedDescription'),
  };
  if (row.tags !== undefined) asset.tags = jsonList(row.tags, 'tags').map((tag, i) => tagOf(tag, `tags[${i}]`));
  return asset;
}

/** One `{id, name}` of ASSET_TAGS_COLUMN's JSON. */
function tagOf(value: unknown, column: string): TagDTO {
  const tag = (value ?? {}) as { id?: unknown; name?: unknown };
  return { id: int(tag.id, `${column}.id`), name: text(tag.name, `${column}.name`) };
}
