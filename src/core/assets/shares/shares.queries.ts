import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { float, int, nullableText, text } from '../../platform/row-checks.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import type { FolderDTO } from '../search/search.schemas.ts';

/*
 * Statements of folder shares: on the shares themselves (library_shares), and the folders and
 * files a share reaches. Every read through a share is bounded by the share's team and, below
 * its root, by `path_ids @> {root}` (or a folder already checked to be so).
 */

/** Stores a share of a folder by its token's hash and its password's hash (null: none). */
export async function insertShare(op: UnitOfWork, share: { teamId: number; folderId: number; tokenHash: string; passwordHash: string | null }): Promise<void> {
  await queryRows(op, 'insert into library_shares (team_id, folder_id, token_hash, password_hash) values (?, ?, ?, ?)', [
    share.teamId,
    share.folderId,
    share.tokenHash,
    share.passwordHash,
  ]);
}

/** A share as a search opens it: its id, its root folder and its password's hash (null: not protected). */
export interface OpenedShare {
  id: number;
  rootId: number;
  passwordHash: string | null;
}

/** The team's share whose token hashes to `tokenHash`, if its folder is live; null otherwise. */
export async function shareByTokenHash(scope: TeamScope, tokenHash: string): Promise<OpenedShare | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select s.id, s.folder_id as "rootId", s.password_hash as "passwordHash"
         from library_shares s join library_folders d on d.id = s.folder_id and d.team_id = s.team_id and d.deleted_at is null
        where s.token_hash = ? and s.team_id = ?`,
    [tokenHash, scope.teamId],
  );
  if (!row) return null;
  return { id: int(row.id, 'id'), rootId: int(row.rootId, 'rootId'), passwordHash: nullableText(row.passwordHash, 'passwordHash') };
}

/** Whether `folderId` is a live folder of the team under the folder `rootId`. */
export async function isLiveFolderUnder(scope: TeamScope, folderId: number, rootId: number): Promise<boolean> {
  const row = await queryOne(scope, 'select id from library_folders where id = ? and team_id = ? and deleted_at is null and path_ids @> array[?]::int[]', [
    folderId,
    scope.teamId,
    rootId,
  ]);
  return row !== null;
}

/** Which files a share search lists: the live ones directly in a folder, and with a pattern those whose lowercased name is `like` it. */
function filesIn(scope: TeamScope, folderId: number, nameLike: string | null): { where: string; params: unknown[] } {
  return {
    where: `f.team_id = ? and f.deleted_at is null and f.folder_id = ?${nameLike ? ' and lower(f.name) like ?' : ''}`,
    params: [scope.teamId, folderId, ...(nameLike ? [nameLike] : [])],
  };
}

/** The ids of a page of the live files directly in the folder (whose lowercased names are `like` nameLike, unless null), by lowercased name then id. */
export async function folderFileIdsPage(scope: TeamScope, folderId: number, nameLike: string | null, limit: number, offset: number): Promise<number[]> {
  const files = filesIn(scope, folderId, nameLike);
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select f.id from library_files f where ${files.where} order by lower(f.name), f.id limit ? offset ?`,
    [...files.params, limit, offset],
  );
  return rows.map((row) => int(row.id, 'id'));
}

/** How many live files are directly in the folder (whose lowercased names are `like` nameLike, unless null). */
export async function countFolderFiles(scope: TeamScope, folderId: number, nameLike: string | null): Promise<number> {
  const files = filesIn(scope, folderId, nameLike);
  const row = await queryOne<Record<string, unknown>>(scope, `select count(*)::float8 as n from library_files f where ${files.where}`, files.params);
  return float(row!.n, 'n');
}

/** The live child folders of the folder (whose lowercased names are `like` nameLike, unless null), by lowercased name then id. */
export async function liveChildFolders(scope: TeamScope, folderId: number, nameLike: string | null): Promise<FolderDTO[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select c.id, c.name from library_folders c
        where c.team_id = ? and c.parent_id = ? and c.deleted_at is null${nameLike ? ' and lower(c.name) like ?' : ''}
        order by lower(c.name), c.id`,
    [scope.teamId, folderId, ...(nameLike ? [nameLike] : [])],
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), name: text(row.name, 'name') }));
}
