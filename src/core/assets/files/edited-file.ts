import { type Ctx, memberIdOf, type UnitOfWork } from '../../platform/ctx.ts';
import { notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { lockLiveFileRow, markFileEdited } from './files.queries.ts';

/** Locks a live file of the team for this transaction; 404 not_found when it is missing, deleted, hidden or another team's. */
export async function lockLiveFile(tx: UnitOfWork, teamId: number, fileId: number): Promise<void> {
  if (!isResourceId(fileId)) throw notFound('File');
  if (!(await lockLiveFileRow(tx, teamId, fileId))) throw notFound('File');
}

/** Records a change of a file's values as an edit: its update time and update user (AssetItem updateTime, updateUser). */
export async function markEdited(tx: Ctx, fileId: number): Promise<void> {
  await markFileEdited(tx, fileId, memberIdOf(tx.actor));
}
