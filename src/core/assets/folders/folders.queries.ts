import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { int, intList, nullableInt, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { FolderView } from '../files/library.schemas.ts';

/*
 * Statements on library folders and the members granted them (library_folders,
 * library_folder_members). Every statement names the team.
 */

const FOLDER_COLUMNS = `id, parent_id as "parentId", name, path, path_ids as "pathIds", ${isoSql('created_at')} as "createdAt"`;

function folderOf(row: Record<string, unknown>): FolderView {
  return {
    id: int(row.id, 'id'),
    parentId: nullableInt(row.parentId, 'parentId'),
    name: text(row.name, 'name'),
    path: text(row.path, 'path'),
    pathIds: intList(row.pathIds, 'pathIds'),
    createdAt: text(row.createdAt, 'createdAt'),
  };
}

/** The ids among `folderIds` of the team's folders that are not deleted (in no particular order). */
export async function liveFolderIds(scope: TeamScope, folderIds: readonly number[]): Promise<number[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    'select id from library_folders where team_id = ? and id = any(?::int[]) and deleted_at is null',
    [scope.teamId, intArray(folderIds)],
  );
  return rows.map((row) => int(row.id, 'id'));
}

/** Whether the team has a live folder with this id. */
export async function isLiveFolder(scope: TeamScope, folderId: number): Promise<boolean> {
  const row = await queryOne(scope, 'select id from library_folders where id = ? and team_id = ? and deleted_at is null', [folderId, scope.teamId]);
  return row !== null;
}

/** A live folder of the team, or null; `lock` locks it (`for update`) until the transaction ends. */
export async function findLiveFolder(tx: UnitOfWork, teamId: number, id: number, lock = false): Promise<FolderView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select ${FOLDER_COLUMNS} from library_folders where id = ? and team_id = ? and deleted_at is null${lock ? ' for update' : ''}`,
    [id, teamId],
  );
  return row && folderOf(row);
}

/** Live folders of the team among `ids`, ordered by id. */
export async function liveFoldersAmong(scope: TeamScope, ids: readonly number[]): Promise<FolderView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${FOLDER_COLUMNS} from library_folders where team_id = ? and deleted_at is null and id = any(?::int[]) order by id`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(folderOf);
}

/** The team's live folder at a path like /a/b, or null. */
export async function liveFolderAtPath(scope: TeamScope, path: string): Promise<FolderView | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select ${FOLDER_COLUMNS} from library_folders where team_id = ? and path = ? and deleted_at is null`,
    [scope.teamId, path],
  );
  return row && folderOf(row);
}

/**
 * A condition on library files (`f`) in the live subtree of a folder: the team id and the folder id
 * are its parameters.
 */
export const IN_LIVE_SUBTREE =
  'f.folder_id = any(array(select id from library_folders where team_id = ? and path_ids @> array[?]::int[] and deleted_at is null))';

/** The parent a new folder goes under: null for the top level. */
export interface ParentFolder {
  id: number;
  path: string;
  pathIds: number[];
}

/**
 * Creates a folder of the team under `parent` (or at the top level); null when a live sibling has
 * the name. Its id is drawn first so path_ids (ids from the root, its own included) is written in
 * the same statement.
 */
export async function insertFolder(tx: TeamScope, parent: ParentFolder | null, name: string): Promise<FolderView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `with next as (select nextval(pg_get_serial_sequence('library_folders', 'id'))::int as id)
     insert into library_folders (id, team_id, parent_id, name, path, path_ids)
     select next.id, ?, ?, ?, ?, ?::int[] || next.id from next
     on conflict (team_id, (coalesce(parent_id, 0)), name) where deleted_at is null do nothing
     returning ${FOLDER_COLUMNS}`,
    [tx.teamId, parent?.id ?? null, name, `${parent?.path ?? ''}/${name}`, intArray(parent?.pathIds ?? [])],
  );
  return row && folderOf(row);
}

/** A folder found or made on an import's path: its id and the ids from the root. */
export interface PathFolder {
  id: number;
  pathIds: number[];
}

function pathFolderOf(row: Record<string, unknown>): PathFolder {
  return { id: int(row.id, 'id'), pathIds: intList(row.path_ids, 'path_ids') };
}

/**
 * Creates a folder of an import's path, made by `userId`; null when a live sibling has the name.
 * Its id is drawn first so path_ids is written in the same statement.
 */
export async function insertPathFolder(
  tx: UnitOfWork,
  teamId: number,
  parent: PathFolder | null,
  name: string,
  path: string,
  userId: number | null,
): Promise<PathFolder | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `with next as (select nextval(pg_get_serial_sequence('library_folders', 'id'))::int as id)
     insert into library_folders (id, team_id, parent_id, name, path, path_ids, create_user_id)
     select next.id, ?, ?, ?, ?, ?::int[] || next.id, ? from next
     on conflict (team_id, (coalesce(parent_id, 0)), name) where deleted_at is null do nothing
     returning id, path_ids`,
    [teamId, parent?.id ?? null, name, path, intArray(parent?.pathIds ?? []), userId],
  );
  return row && pathFolderOf(row);
}

/**
 * The live folder of a name under `parentId` (0: the top level), or null. `for key share` keeps it
 * live until this transaction ends: a concurrent folder deletion waits for it.
 */
export async function findLiveChildForKeyShare(tx: UnitOfWork, teamId: number, parentId: number, name: string): Promise<PathFolder | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select id, path_ids from library_folders
      where team_id = ? and coalesce(parent_id, 0) = ? and name = ? and deleted_at is null for key share`,
    [teamId, parentId, name],
  );
  return row && pathFolderOf(row);
}

/** Renames a folder (its path is left to `repathSubtree`); a live sibling of that name is a unique violation. */
export async function renameFolder(tx: TeamScope, id: number, name: string): Promise<void> {
  await queryRows(tx, 'update library_folders set name = ?, updated_at = now() where id = ? and team_id = ?', [name, id, tx.teamId]);
}

/** Gives a folder and its live subtree the path `newPath` in place of their first `oldPathLength` characters. */
export async function repathSubtree(tx: TeamScope, id: number, newPath: string, oldPathLength: number): Promise<void> {
  await queryRows(tx, 'update library_folders set path = ? || substr(path, ?) where team_id = ? and path_ids @> array[?]::int[] and deleted_at is null', [
    newPath,
    oldPathLength + 1,
    tx.teamId,
    id,
  ]);
}

/** Grants a member access to a folder; granting twice is a no-op. */
export async function addFolderMember(tx: TeamScope, folderId: number, memberId: number): Promise<void> {
  await queryRows(tx, 'insert into library_folder_members (folder_id, member_id, team_id) values (?, ?, ?) on conflict do nothing', [
    folderId,
    memberId,
    tx.teamId,
  ]);
}

/** Withdraws a member's access to a folder; withdrawing what was never granted is a no-op. */
export async function removeFolderMember(tx: TeamScope, folderId: number, memberId: number): Promise<void> {
  await queryRows(tx, 'delete from library_folder_members where folder_id = ? and member_id = ? and team_id = ?', [folderId, memberId, tx.teamId]);
}
