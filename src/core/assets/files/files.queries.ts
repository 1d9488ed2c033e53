import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { bigintText, int, intList, jsonList, nullableFloat, nullableInt, nullableText, text, textList } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { IN_LIVE_SUBTREE } from '../folders/folders.queries.ts';
import { ASSET_ROW_COLUMNS, assetRowOf, type AssetRow } from '../search/asset-rows.queries.ts';
import { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE } from '../versions/version-lines.queries.ts';
import { NARROW_NAME_MATCHES } from './file-names.queries.ts';
import type { LibraryFileView } from './library.schemas.ts';

/*
 * Statements on library files (library_files) with their folder and tags: the facts events
 * describe, edits, validity periods, the library's reads and asset lookup. Every statement names
 * the team but the daily validity check's, which runs across teams.
 */

/**
 * A file as the events describe it, read in the write's transaction: the columns an AssetItem is
 * built from (one projection for both), with its folder and its tags as parallel arrays.
 */
export interface FileFacts extends Omit<AssetRow, 'tags'> {
  folderId: number | null;
  tagIds: number[];
  tagNames: string[];
}

const FACTS_SQL = `select ${ASSET_ROW_COLUMNS}, f.folder_id as "folderId",
    -- one order (the tag id) for both arrays: tagIds[i] names tagNames[i]
    coalesce((select array_agg(t.id order by t.id) from library_tags t where t.team_id = f.team_id and t.id = any(f.tag_ids)), '{}') as "tagIds",
    coalesce((select array_agg(t.name order by t.id) from library_tags t where t.team_id = f.team_id and t.id = any(f.tag_ids)), '{}') as "tagNames"
  from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
 where f.team_id = ? and f.id = ?`;

/** A file's facts with their columns checked: the AssetRow part as search checks it, then the folder and the tag arrays. */
function factsOf(row: Record<string, unknown>): FileFacts {
  return {
    ...assetRowOf(row),
    folderId: nullableInt(row.folderId, 'folderId'),
    tagIds: intList(row.tagIds, 'tagIds'),
    tagNames: textList(row.tagNames, 'tagNames'),
  };
}

/** Reads a file of the scope's team as the events describe it (null when it is not the team's). */
export async function fileFacts(scope: TeamScope, fileId: number): Promise<FileFacts | null> {
  const row = await queryOne<Record<string, unknown>>(scope, FACTS_SQL, [scope.teamId, fileId]);
  return row && factsOf(row);
}

/** Reads files of the scope's team as the events describe them, in id order (ids of other teams are left out). */
export async function filesFacts(scope: TeamScope, fileIds: readonly number[]): Promise<FileFacts[]> {
  const rows = await queryRows<Record<string, unknown>>(scope, `${FACTS_SQL.replace('f.id = ?', 'f.id = any(?::int[])')} order by f.id`, [
    scope.teamId,
    intArray(fileIds),
  ]);
  return rows.map(factsOf);
}

// locks and edits

/** Locks a live file of the team (`for update`) until the transaction ends; false when it is missing, deleted or another team's. */
export async function lockLiveFileRow(tx: UnitOfWork, teamId: number, fileId: number): Promise<boolean> {
  const row = await queryOne(tx, 'select id from library_files where id = ? and team_id = ? and deleted_at is null for update', [fileId, teamId]);
  return row !== null;
}

/** Records an edit of a file's values: its update time and update user (null: a key or the system). */
export async function markFileEdited(tx: TeamScope, fileId: number, memberId: number | null): Promise<void> {
  await queryRows(tx, 'update library_files set update_user_id = ?, updated_at = now() where id = ? and team_id = ?', [memberId, fileId, tx.teamId]);
}

/** The columns of a library file an edit may set (`ai_detailed_description` takes JSON text). */
export type EditableFileColumn =
  | 'name'
  | 'description'
  | 'score'
  | 'link'
  | 'owner_id'
  | 'update_user_id'
  | 'ai_tags'
  | 'ai_title'
  | 'ai_description'
  | 'ai_detailed_description';

/** A column assignment of a file edit, with its value. */
export interface FileAssignment {
  column: EditableFileColumn;
  value: unknown;
}

/** Sets columns of a file of the team, in the order given, and its update time. */
export async function updateFileColumns(tx: UnitOfWork, teamId: number, fileId: number, sets: readonly FileAssignment[]): Promise<void> {
  const columns = sets.map((s) => (s.column === 'ai_detailed_description' ? `${s.column} = ?::jsonb` : `${s.column} = ?`));
  await queryRows(tx, `update library_files set ${[...columns, 'updated_at = now()'].join(', ')} where id = ? and team_id = ?`, [
    ...sets.map((s) => s.value),
    fileId,
    teamId,
  ]);
}

/** Moves a file of the team to a folder (null: the root), as an edit by `memberId`. */
export async function moveFileToFolder(tx: TeamScope, fileId: number, folderId: number | null, memberId: number | null): Promise<void> {
  await queryRows(tx, 'update library_files set folder_id = ?, update_user_id = ?, updated_at = now() where id = ? and team_id = ?', [
    folderId,
    memberId,
    fileId,
    tx.teamId,
  ]);
}

// validity periods (docs/library.md "Validity")

/** A file's validity status: 0 valid, 1 not started, 2 expired. */
export type ValidityStatusCode = 0 | 1 | 2;

/** A file's validity period as stored, with its status. */
export interface PeriodRow {
  id: number;
  startTime: string | null;
  endTime: string | null;
  /** The end in epoch ms (null: permanent). */
  endMs: number | null;
  status: ValidityStatusCode;
}

/** The status of a period at a time given as one `?` parameter (SQL): one expression for the edit and the daily check. */
const STATUS_SQL = `(case when validity_start > ?::timestamptz then 1 when validity_end <= ?::timestamptz then 2 else 0 end)::smallint`;

const PERIOD_COLUMNS = `id, ${isoSql('validity_start')} as "startTime", ${isoSql('validity_end')} as "endTime",
  (extract(epoch from validity_end) * 1000)::float8 as "endMs", validity_status as status`;

function validityStatus(value: unknown, column: string): ValidityStatusCode {
  const status = int(value, column);
  if (status !== 0 && status !== 1 && status !== 2) throw new Error(`column ${column}: expected a validity status 0, 1 or 2, got ${status}`);
  return status;
}

function periodOf(row: Record<string, unknown>): PeriodRow {
  return {
    id: int(row.id, 'id'),
    startTime: nullableText(row.startTime, 'startTime'),
    endTime: nullableText(row.endTime, 'endTime'),
    endMs: nullableFloat(row.endMs, 'endMs'),
    status: validityStatus(row.status, 'status'),
  };
}

/** Locks a live file of the team (`for update`) and reads its period; null when it is not the team's live file. */
export async function lockFilePeriod(tx: TeamScope, fileId: number): Promise<PeriodRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select ${PERIOD_COLUMNS} from library_files where id = ? and team_id = ? and deleted_at is null for update`,
    [fileId, tx.teamId],
  );
  return row && periodOf(row);
}

/** Replaces a file's validity period (RFC 3339 bounds, null: open); its status is set by `refreshValidityStatus`. */
export async function setFilePeriod(tx: TeamScope, fileId: number, start: string | null, end: string | null): Promise<void> {
  await queryRows(
    tx,
    'update library_files set validity_start = ?::timestamptz, validity_end = ?::timestamptz, updated_at = now() where id = ? and team_id = ?',
    [start, end, fileId, tx.teamId],
  );
}

/** Sets a file's validity status as of `at` (RFC 3339) and reads its period. */
export async function refreshValidityStatus(tx: TeamScope, fileId: number, at: string): Promise<PeriodRow> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update library_files set validity_status = ${STATUS_SQL} where id = ? and team_id = ? returning ${PERIOD_COLUMNS}`,
    [at, at, fileId, tx.teamId],
  );
  return periodOf(row!);
}

/** The periods of the team's live files among `ids` (in no particular order). */
export async function filePeriods(scope: TeamScope, ids: readonly number[]): Promise<PeriodRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${PERIOD_COLUMNS} from library_files where team_id = ? and deleted_at is null and id = any(?::int[])`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(periodOf);
}

/**
 * The daily check's step, across teams: up to `batchSize` live files with a period whose status as
 * of `at` (RFC 3339) differs from the stored one get the new status; their periods, with their
 * teams. Rows another transaction holds are skipped (`skip locked`), left for the next run.
 */
export async function moveDueValidityStatuses(tx: UnitOfWork, at: string, batchSize: number): Promise<(PeriodRow & { teamId: number })[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `update library_files f set validity_status = ${STATUS_SQL}, updated_at = now()
      where f.id in (select id from library_files
                      where deleted_at is null and (validity_start is not null or validity_end is not null)
                        and validity_status <> ${STATUS_SQL}
                      order by id limit ? for update skip locked)
     returning f.team_id as "teamId", ${PERIOD_COLUMNS}`,
    [at, at, at, at, batchSize],
  );
  return rows.map((row) => ({ teamId: int(row.teamId, 'teamId'), ...periodOf(row) }));
}

// library reads (LibraryService)

const FILE_COLUMNS = `f.id, f.object_id as "objectId", f.folder_id as "folderId", coalesce(d.path_ids, '{}') as "folderIds",
  f.name, f.extension, f.mime_type as "mimeType", f.byte_size::text as size, f.width, f.height,
  f.duration_ms::float8 as "durationMs", f.description, f.score, f.link, f.source,
  f.owner_id as "ownerUserId", f.creator_id as "creatorUserId", f.create_user_id as "createUserId", f.update_user_id as "updateUserId",
  coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by t.name, t.id)
              from library_file_tags ft join library_tags t on t.id = ft.tag_id and t.team_id = ft.team_id
             where ft.file_id = f.id and ft.team_id = f.team_id), '[]') as tags,
  ${isoSql('f.created_at')} as "createdAt", ${isoSql('f.updated_at')} as "updatedAt"`;

const FILE_SOURCES = [1, 2, 3] as const;

function fileSource(value: unknown, column: string): LibraryFileView['source'] {
  const source = int(value, column);
  if (!(FILE_SOURCES as readonly number[]).includes(source)) throw new Error(`column ${column}: expected a source 1, 2 or 3, got ${source}`);
  return source as LibraryFileView['source'];
}

function libraryFileOf(row: Record<string, unknown>): LibraryFileView {
  return {
    id: int(row.id, 'id'),
    objectId: int(row.objectId, 'objectId'),
    folderId: nullableInt(row.folderId, 'folderId'),
    folderIds: intList(row.folderIds, 'folderIds'),
    name: text(row.name, 'name'),
    extension: nullableText(row.extension, 'extension'),
    mimeType: text(row.mimeType, 'mimeType'),
    size: bigintText(row.size, 'size'),
    width: nullableInt(row.width, 'width'),
    height: nullableInt(row.height, 'height'),
    durationMs: nullableFloat(row.durationMs, 'durationMs'),
    description: nullableText(row.description, 'description'),
    score: nullableInt(row.score, 'score'),
    link: nullableText(row.link, 'link'),
    source: fileSource(row.source, 'source'),
    ownerUserId: nullableInt(row.ownerUserId, 'ownerUserId'),
    creatorUserId: nullableInt(row.creatorUserId, 'creatorUserId'),
    createUserId: nullableInt(row.createUserId, 'createUserId'),
    updateUserId: nullableInt(row.updateUserId, 'updateUserId'),
    tags: jsonList(row.tags, 'tags').map((item, i) => {
      const tag = item as Record<string, unknown>;
      return { id: int(tag.id, `tags[${i}].id`), name: text(tag.name, `tags[${i}].name`) };
    }),
    createdAt: text(row.createdAt, 'createdAt'),
    updatedAt: text(row.updatedAt, 'updatedAt'),
  };
}

/** Live files of the team among `ids`, ordered by id. */
export async function liveFilesAmong(scope: TeamScope, ids: readonly number[]): Promise<LibraryFileView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${FILE_COLUMNS} from library_files f
         left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
        where f.team_id = ? and f.deleted_at is null and f.id = any(?::int[])
        order by f.id`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(libraryFileOf);
}

/** What a media object (spec 2.5) is made of: the shown file's facts, for the id it was requested by. */
export interface MediaRow {
  requested: number;
  id: number;
  name: string;
  mimeType: string;
  /** Decimal byte count. */
  size: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

/**
 * The files the team's references among `ids` show (versions/version-lines.queries.ts: a hidden version of
 * a version line shows the line's cover), one row per reference that shows one, in no particular order.
 * On asset lookup's hot path: its text is the one the 16-client lookup bench measured, blanks included.
 */
export async function visibleMediaRows(scope: TeamScope, ids: readonly number[]): Promise<MediaRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select r.id as requested, f.id, f.name, f.mime_type as "mimeType", f.byte_size::text as size, f.width, f.height, f.duration_ms::float8 as "durationMs"
         from ${VISIBLE_FROM}
         join library_files f on f.team_id = r.team_id and f.deleted_at is null and f.id = ${VISIBLE_ID}
        where r.team_id = ? and r.id = any(?::int[]) and ${VISIBLE_WHERE}`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map((row) => ({
    requested: int(row.requested, 'requested'),
    id: int(row.id, 'id'),
    name: text(row.name, 'name'),
    mimeType: text(row.mimeType, 'mimeType'),
    size: bigintText(row.size, 'size'),
    width: nullableInt(row.width, 'width'),
    height: nullableInt(row.height, 'height'),
    durationMs: nullableFloat(row.durationMs, 'durationMs'),
  }));
}

// asset lookup (asset-lookup.ts): the team's live files by name, folder, extension, content hash or ids

/** One file of a lookup page. */
export interface LookupRow {
  id: number;
  assetId: number;
  name: string;
  folderPath: string;
}

/** A lookup's folder filter: files directly in the root, in a folder, or in a folder's live subtree. */
export type LookupFolder = 'root' | { id: number; recursive: boolean };

/** What a lookup matches; null fields do not filter. */
export interface LookupFilter {
  /** A LIKE pattern on the lower-cased name (escaped with `\`). */
  namePattern: string | null;
  folder: LookupFolder | null;
  /** Lower-case, without the dot. */
  extension: string | null;
  /** Lower-case hex. */
  sha256: string | null;
  ids: readonly number[] | null;
}

/** A lookup's conditions on library files (`f`, with its folder `d`) and their parameters. */
export interface LookupMatches {
  readonly where: readonly string[];
  readonly params: readonly unknown[];
}

/** The team's live files a lookup filter matches. */
export function lookupMatches(scope: TeamScope, filter: LookupFilter): LookupMatches {
  const where: string[] = ['f.team_id = ?', 'f.deleted_at is null'];
  const params: unknown[] = [scope.teamId];
  if (filter.namePattern !== null) {
    where.push(`lower(f.name) like ? escape '\\'`);
    params.push(filter.namePattern);
  }
  if (filter.folder === 'root') where.push('f.folder_id is null');
  else if (filter.folder?.recursive) {
    where.push(IN_LIVE_SUBTREE);
    params.push(scope.teamId, filter.folder.id);
  } else if (filter.folder) {
    where.push('f.folder_id = ?');
    params.push(filter.folder.id);
  }
  if (filter.extension !== null) {
    where.push('f.extension = ?');
    params.push(filter.extension);
  }
  if (filter.sha256 !== null) {
    where.push('f.object_id = (select o.id from stored_objects o where o.team_id = f.team_id and o.sha256 = ?)');
    params.push(filter.sha256);
  }
  if (filter.ids !== null) {
    where.push('f.id = any(?::int[])');
    params.push(intArray(filter.ids));
  }
  return { where, params };
}

/** Names what a lookup matches, for memos of its count. */
export function lookupMatchesKey(matches: LookupMatches): string {
  return `asset-lookup|${JSON.stringify([matches.where, matches.params])}`;
}

/** The live files of the team matching conditions, with their folders. */
const filesWhere = (conditions: readonly string[]) =>
  `from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id where ${conditions.join(' and ')}`;

/** A page, in id order, of the files `from` (a filesWhere) gives; its last two parameters are the limit and offset. */
const pageSql = (from: string) => `select f.id, f.object_id as "assetId", f.name, coalesce(d.path, '/') as "folderPath" ${from} order by f.id limit ? offset ?`;

function lookupRowOf(row: Record<string, unknown>): LookupRow {
  return { id: int(row.id, 'id'), assetId: int(row.assetId, 'assetId'), name: text(row.name, 'name'), folderPath: text(row.folderPath, 'folderPath') };
}

async function lookupRows(scope: TeamScope, sql: string, params: unknown[]): Promise<LookupRow[]> {
  return (await queryRows<Record<string, unknown>>(scope, sql, params)).map(lookupRowOf);
}

/** How many files a lookup matches: an exact count, reading every match. */
export async function countLookupMatches(scope: TeamScope, matches: LookupMatches): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, `select count(*)::int as n ${filesWhere(matches.where)}`, [...matches.params]);
  return int(row!.n, 'n');
}

/** A page of a lookup's matches, in id order. */
export async function lookupPage(scope: TeamScope, matches: LookupMatches, limit: number, offset: number): Promise<LookupRow[]> {
  return lookupRows(scope, pageSql(filesWhere(matches.where)), [...matches.params, limit, offset]);
}

/** The lookup rows of the team's live files among `ids` (at most `limit`), in id order. */
export async function lookupRowsByIds(scope: TeamScope, ids: Int32Array, limit: number): Promise<LookupRow[]> {
  const from = filesWhere(['f.id = any(?::int[])', 'f.team_id = ?', 'f.deleted_at is null']);
  return lookupRows(scope, pageSql(from), [`{${ids.join(',')}}`, scope.teamId, limit, 0]);
}

/**
 * A page of the live files whose name is like a pattern, read by id from the narrow name table's
 * matches: for a name with few matches.
 */
export async function lookupPageByNameMatches(scope: TeamScope, namePattern: string, limit: number, offset: number): Promise<LookupRow[]> {
  const from = filesWhere([`f.id = any(array(select n.file_id ${NARROW_NAME_MATCHES}))`, 'f.team_id = ?', 'f.deleted_at is null']);
  return lookupRows(scope, pageSql(from), [scope.teamId, namePattern, scope.teamId, limit, offset]);
}

/**
 * A page of the live files whose name is like a pattern, walking the narrow name table in id
 * order: for a name with many matches, which fill a page within a few pages' rows.
 */
export async function lookupPageByNameWalk(scope: TeamScope, namePattern: string, limit: number, offset: number): Promise<LookupRow[]> {
  const from = filesWhere([
    `f.id = any(array(select n.file_id ${NARROW_NAME_MATCHES} order by n.file_id limit ? offset ?))`,
    'f.team_id = ?',
    'f.deleted_at is null',
  ]);
  return lookupRows(scope, pageSql(from), [scope.teamId, namePattern, limit, offset, scope.teamId, limit, 0]);
}
