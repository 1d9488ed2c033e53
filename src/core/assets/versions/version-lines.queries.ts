import type { TeamScope } from '../../platform/ctx.ts';
import { bool, float, int, nullableInt, nullableText, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { VersionView } from './version-lines.schemas.ts';

/*
 * Statements on version lines (docs/library.md "Version lines"): library_version_lines, and the
 * line columns of library_files (version_line_id, version_number, and the deleted_at that hides a
 * version). Every statement names the team.
 */

/** A file as a version line sees it. */
export interface MemberRow {
  id: number;
  folderId: number | null;
  lineId: number | null;
  version: number | null;
  live: boolean;
}

const MEMBER_COLUMNS = 'id, folder_id as "folderId", version_line_id as "lineId", version_number as "version", deleted_at is null as live';

function memberOf(row: Record<string, unknown>): MemberRow {
  return {
    id: int(row.id, 'id'),
    folderId: nullableInt(row.folderId, 'folderId'),
    lineId: nullableInt(row.lineId, 'lineId'),
    version: nullableInt(row.version, 'version'),
    live: bool(row.live, 'live'),
  };
}

/** A file of the team that is live or a hidden version (not in the recycle bin), locked; null when it is neither. */
export async function lockMember(tx: TeamScope, fileId: number): Promise<MemberRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select ${MEMBER_COLUMNS} from library_files
      where id = ? and team_id = ? and recycle_entry_id is null and (deleted_at is null or version_line_id is not null) for update`,
    [fileId, tx.teamId],
  );
  return row && memberOf(row);
}

/** lockMember's file, unlocked (a read). */
export async function findMember(scope: TeamScope, fileId: number): Promise<MemberRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select ${MEMBER_COLUMNS} from library_files where id = ? and team_id = ? and recycle_entry_id is null and (deleted_at is null or version_line_id is not null)`,
    [fileId, scope.teamId],
  );
  return row && memberOf(row);
}

/** Locks a line; its cover. */
export async function lockLineCover(tx: TeamScope, lineId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'select cover_file_id as "coverId" from library_version_lines where id = ? and team_id = ? for update',
    [lineId, tx.teamId],
  );
  return int(row!.coverId, 'coverId');
}

/** A line's files, locked in id order. */
export async function lockLineMembers(tx: TeamScope, lineId: number): Promise<MemberRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select ${MEMBER_COLUMNS} from library_files where team_id = ? and version_line_id = ? order by id for update`,
    [tx.teamId, lineId],
  );
  return rows.map(memberOf);
}

/** A new line with `coverFileId` as its cover; its id. */
export async function insertLine(tx: TeamScope, coverFileId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(tx, 'insert into library_version_lines (team_id, cover_file_id) values (?, ?) returning id', [
    tx.teamId,
    coverFileId,
  ]);
  return int(row!.id, 'id');
}

export async function setLineCover(tx: TeamScope, lineId: number, coverFileId: number): Promise<void> {
  await queryRows(tx, 'update library_version_lines set cover_file_id = ? where id = ? and team_id = ?', [coverFileId, lineId, tx.teamId]);
}

export async function deleteLine(tx: TeamScope, lineId: number): Promise<void> {
  await queryRows(tx, 'delete from library_version_lines where id = ? and team_id = ?', [lineId, tx.teamId]);
}

/** Sets a file's line columns (`sets`, with `params`), as the member `memberId` (null: the system). */
async function setFile(tx: TeamScope, fileId: number, memberId: number | null, sets: string, params: unknown[]): Promise<void> {
  await queryRows(tx, `update library_files set ${sets}, update_user_id = ?, updated_at = now() where id = ? and team_id = ?`, [
    ...params,
    memberId,
    fileId,
    tx.teamId,
  ]);
}

/** Makes a file the first version of a new line (it stays live: the line's cover). */
export function startLine(tx: TeamScope, fileId: number, memberId: number | null, lineId: number): Promise<void> {
  return setFile(tx, fileId, memberId, 'version_line_id = ?, version_number = 1', [lineId]);
}

/** Makes a file version `version` of a line in `folderId`: the cover (live) or a hidden version. */
export function joinLine(
  tx: TeamScope,
  fileId: number,
  memberId: number | null,
  join: { lineId: number; version: number; folderId: number | null; cover: boolean },
): Promise<void> {
  return setFile(tx, fileId, memberId, `version_line_id = ?, version_number = ?, folder_id = ?, deleted_at = ${join.cover ? 'null' : 'now()'}`, [
    join.lineId,
    join.version,
    join.folderId,
  ]);
}

/** Hides a version (the cover that is replaced). */
export function hideVersion(tx: TeamScope, fileId: number, memberId: number | null): Promise<void> {
  return setFile(tx, fileId, memberId, 'deleted_at = now()', []);
}

/** Shows a version in `folderId` (the new cover). */
export function showVersion(tx: TeamScope, fileId: number, memberId: number | null, folderId: number | null): Promise<void> {
  return setFile(tx, fileId, memberId, 'deleted_at = null, folder_id = ?', [folderId]);
}

/** Takes a file out of its line, a live file of its own in `folderId`. */
export function leaveLine(tx: TeamScope, fileId: number, memberId: number | null, folderId: number | null): Promise<void> {
  return setFile(tx, fileId, memberId, 'version_line_id = null, version_number = null, folder_id = ?, deleted_at = null', [folderId]);
}

/** The last version of a dissolved line: a plain file again. */
export function dissolveLineOf(tx: TeamScope, fileId: number, memberId: number | null): Promise<void> {
  return setFile(tx, fileId, memberId, 'version_line_id = null, version_number = null', []);
}

/** A line's versions, oldest first. */
export async function lineVersions(scope: TeamScope, lineId: number): Promise<VersionView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select f.id as "materialId", f.version_number as version, f.id = l.cover_file_id as "isCover", f.name, f.extension,
            f.byte_size::float8 as "byteSize", ${isoSql('f.created_at')} as "createdAt"
       from library_files f join library_version_lines l on l.id = f.version_line_id and l.team_id = f.team_id
      where f.team_id = ? and f.version_line_id = ? order by f.version_number`,
    [scope.teamId, lineId],
  );
  return rows.map((row) => ({
    materialId: int(row.materialId, 'materialId'),
    version: int(row.version, 'version'),
    isCover: bool(row.isCover, 'isCover'),
    name: text(row.name, 'name'),
    extension: nullableText(row.extension, 'extension'),
    byteSize: float(row.byteSize, 'byteSize'),
    createdAt: text(row.createdAt, 'createdAt'),
  }));
}

/**
 * The rule by which a referenced file (`r`) is shown (docs/library.md "Version lines"): a live
 * file shows itself, a hidden version of a line shows the line's cover; anything else (in the
 * recycle bin, deleted) shows nothing. `VISIBLE_FROM` joins the line, `VISIBLE_WHERE` keeps the
 * references that show something, `VISIBLE_ID` is the id shown. One rule for every reader.
 */
export const VISIBLE_FROM = 'library_files r left join library_version_lines l on l.id = r.version_line_id and l.team_id = r.team_id';
export const VISIBLE_WHERE = 'r.recycle_entry_id is null and (r.deleted_at is null or l.id is not null)';
export const VISIBLE_ID = 'case when r.deleted_at is null then r.id else l.cover_file_id end';

/** The file-path IDs among `ids` as products see them, each to the id shown for it. */
export async function visibleFileIds(ctx: TeamScope, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<Record<string, unknown>>(
    ctx,
    `select r.id as requested, ${VISIBLE_ID} as visible from ${VISIBLE_FROM} where r.team_id = ? and r.id = any(?::int[]) and ${VISIBLE_WHERE}`,
    [ctx.teamId, intArray(ids)],
  );
  return new Map(rows.map((row) => [int(row.requested, 'requested'), int(row.visible, 'visible')]));
}
