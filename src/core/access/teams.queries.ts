import type { UnitOfWork } from '../platform/ctx.ts';
import { bool, int } from '../platform/row-checks.ts';
import { queryOne } from '../platform/sql.ts';

/* Statements on teams. */

/** Creates a team; its id. */
export async function insertTeam(op: UnitOfWork, name: string): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(op, 'insert into teams (name) values (?) returning id', [name]);
  return int(row!.id, 'id');
}

/** Whether there is a team with this id. */
export async function teamExists(op: UnitOfWork, teamId: number): Promise<boolean> {
  return (await queryOne(op, 'select id from teams where id = ?', [teamId])) !== null;
}

/** Enables material event subscriptions for a team; false when there is no such team. */
export async function enableTeamSubscriptions(op: UnitOfWork, teamId: number): Promise<boolean> {
  const row = await queryOne(op, 'update teams set subscriptions_enabled = true where id = ? returning id', [teamId]);
  return row !== null;
}

/** Whether an operator enabled material event subscriptions for the team (`team enable-subscriptions`); false for no such team. */
export async function subscriptionsEnabled(scope: UnitOfWork, teamId: number): Promise<boolean> {
  const team = await queryOne<Record<string, unknown>>(scope, 'select subscriptions_enabled as enabled from teams where id = ?', [teamId]);
  return team !== null && bool(team.enabled, 'enabled');
}

/**
 * Locks the team's row (`for no key update`) until the transaction ends, so a count of the team's
 * definitions and the insert it allows are one step among concurrent definitions.
 */
export async function lockTeam(tx: UnitOfWork, teamId: number): Promise<void> {
  await queryOne(tx, 'select id from teams where id = ? for no key update', [teamId]);
}
