import type { TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { int, text } from '../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../platform/sql.ts';

/* Statements on team members (members). */

/** Adds a member to a team; the member's id. */
export async function insertMember(op: UnitOfWork, teamId: number, name: string): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(op, 'insert into members (team_id, name) values (?, ?) returning id', [teamId, name]);
  return int(row!.id, 'id');
}

/** The team of the member `userId`; null when there is no such member. */
export async function teamOfMember(op: UnitOfWork, userId: number): Promise<number | null> {
  const member = await queryOne<Record<string, unknown>>(op, 'select team_id from members where id = ?', [userId]);
  return member ? int(member.team_id, 'team_id') : null;
}

/** Whether `userId` is a member of the team `teamId` (named by the caller: operators and keys look members up before a team scope exists). */
export async function isMemberOfTeam(op: UnitOfWork, teamId: number, userId: number): Promise<boolean> {
  return (await queryOne(op, 'select id from members where id = ? and team_id = ?', [userId, teamId])) !== null;
}

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
