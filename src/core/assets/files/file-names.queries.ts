import type { TeamScope } from '../../platform/ctx.ts';
import { int } from '../../platform/row-checks.ts';
import { queryOne } from '../../platform/sql.ts';

/*
 * Statements on the narrow name table (library_file_names: the team's live files by lower-cased
 * name, kept by a trigger), which asset lookup counts and pages names on.
 */

/** The live files of a team (first parameter) whose lower-cased name is like a pattern (second). */
export const NARROW_NAME_MATCHES = "from library_file_names n where n.team_id = ? and n.lname like ? escape '\\'";

/** The ids, ascending, of the team's live files whose lower-cased name is like the pattern. */
export async function nameMatchIds(scope: TeamScope, namePattern: string): Promise<Int32Array> {
  // gathered unsorted and sorted here: cheaper than an ordered aggregate
  const row = await queryOne<{ ids: unknown }>(scope, `select array_agg(n.file_id) as ids ${NARROW_NAME_MATCHES}`, [scope.teamId, namePattern]);
  const ids = row?.ids ?? [];
  if (!Array.isArray(ids)) throw new Error('library_file_names: file ids are not an array');
  return Int32Array.from(ids, Number).sort();
}

/** How many of the team's live files have a lower-cased name like the pattern. */
export async function countNameMatches(scope: TeamScope, namePattern: string): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, `select count(*)::int as n ${NARROW_NAME_MATCHES}`, [scope.teamId, namePattern]);
  return int(row!.n, 'n');
}
