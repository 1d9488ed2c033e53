import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { bigintText, int, intList, jsonList, nullableFloat, nullableInt, nullableText, text, textList } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { ASSET_ROW_COLUMNS, type AssetRow, assetRowOf } from '../search/asset-rows.queries.ts';
import { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE } from '../versions/version-lines.queries.ts';
import type { LibraryFileView } from './library.schemas.ts';

/*
 * Statements on library files (library_files) with their folder and tags: the facts events
 * describe, edits and the library's reads. Every statement names the team. Validity periods are
 * file-validity.queries.ts, asset lookup asset-lookup.queries.ts.
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
