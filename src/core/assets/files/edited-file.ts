import { memberIdOf, type Ctx, type UnitOfWork } from '../../platform/ctx.ts';
import { notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';

/** Locks a live file of the team for this transaction; 404 not_found when it is missing, deleted, hidden or another team's. */
export async function lockLiveFile(tx: UnitOfWork, teamId: number, fileId: number): Promise<void> {
  if (!isResourceId(fileId)) throw notFound('File');
  const row = await queryOne(tx, 'select id from library_files where id = ? and team_id = ? and deleted_at is null for update', [fileId, teamId]);
  if (!row) throw notFound('File');
}

/** Records a change of a file's values as an edit: its update time and update user (AssetItem updateTime, updateUser). */
export async function markEdited(tx: Ctx, fileId: number): Promise<void> {
  await queryRows(tx, 'update library_files set update_user_id = ?, updated_at = now() where id = ? and team_id = ?', [
    memberIdOf(tx.actor),
    fileId,
    tx.teamId,
  ]);
}
