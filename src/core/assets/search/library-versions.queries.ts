import type { TeamScope } from '../../platform/ctx.ts';
import { text } from '../../platform/row-checks.ts';
import { queryOne } from '../../platform/sql.ts';

/**
 * The team's library version as text, 0 before its first change (triggers raise it at the commit of
 * every change): a scalar SQL expression taking the team id as its one parameter. Memos of library
 * facts (platform/versioned-memo.ts) are keyed by it.
 */
export const LIBRARY_VERSION_SQL = 'coalesce((select v.version from library_versions v where v.team_id = ?), 0)::text';

/** The team's library version as of now (LIBRARY_VERSION_SQL): read it before computing a memoized fact. */
export async function libraryVersionOf(scope: TeamScope): Promise<string> {
  const row = await queryOne<Record<string, unknown>>(scope, `select ${LIBRARY_VERSION_SQL} as version`, [scope.teamId]);
  return text(row!.version, 'version');
}
