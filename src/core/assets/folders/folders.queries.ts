import type { TeamScope } from '../../platform/ctx.ts';
import { int } from '../../platform/row-checks.ts';
import { intArray, queryRows } from '../../platform/sql.ts';

/* Statements on library folders (library_folders). */

/** The ids among `folderIds` of the team's folders that are not deleted (in no particular order). */
export async function liveFolderIds(scope: TeamScope, folderIds: readonly number[]): Promise<number[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    'select id from library_folders where team_id = ? and id = any(?::int[]) and deleted_at is null',
    [scope.teamId, intArray(folderIds)],
  );
  return rows.map((row) => int(row.id, 'id'));
}
