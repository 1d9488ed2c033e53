import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { int } from '../../platform/row-checks.ts';
import { queryOne } from '../../platform/sql.ts';

/* Statements on category icon assets (category_icons). */

/** Records a stored icon for the team; its id. */
export async function insertCategoryIcon(
  op: UnitOfWork,
  icon: { teamId: number; storageKey: string; mimeType: string; byteSize: number; width: number; height: number },
): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    op,
    `insert into category_icons (team_id, storage_key, mime_type, byte_size, width, height)
         values (?, ?, ?, ?, ?, ?) returning id`,
    [icon.teamId, icon.storageKey, icon.mimeType, icon.byteSize, icon.width, icon.height],
  );
  return int(row!.id, 'id');
}

/** Whether `id` is a category icon of the team. */
export async function isCategoryIconOfTeam(scope: TeamScope, id: number): Promise<boolean> {
  const row = await queryOne(scope, 'select 1 from category_icons where id = ? and team_id = ?', [id, scope.teamId]);
  return row !== null;
}
