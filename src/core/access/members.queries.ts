import type { TeamScope } from '../platform/ctx.ts';
import { int, text } from '../platform/row-checks.ts';
import { intArray, queryRows } from '../platform/sql.ts';

/* Statements on team members (members). Every statement names the team. */

/** The ids among `ids` that are members of the team. */
export async function memberIdsAmong(scope: TeamScope, ids: readonly number[]): Promise<Set<number>> {
  const rows = await queryRows<Record<string, unknown>>(scope, 'select id from members where team_id = ? and id = any(?::int[])', [
    scope.teamId,
    intArray(ids),
  ]);
  return new Set(rows.map((row) => int(row.id, 'id')));
}

/** Names of the team's members among `ids`, by id. */
export async function memberNamesAmong(scope: TeamScope, ids: readonly number[]): Promise<Map<number, string>> {
  const rows = await queryRows<Record<string, unknown>>(scope, 'select id, name from members where team_id = ? and id = any(?::int[])', [
    scope.teamId,
    intArray(ids),
  ]);
  return new Map(rows.map((row) => [int(row.id, 'id'), text(row.name, 'name')]));
}
