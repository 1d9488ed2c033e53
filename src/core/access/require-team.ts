import type { UnitOfWork } from '../platform/ctx.ts';
import { notFound } from '../platform/errors.ts';
import { teamExists } from './teams.queries.ts';

/** Operator operations name a team by id: 404 not_found (subject Team) when there is no such team. */
export async function requireTeam(op: UnitOfWork, teamId: number): Promise<void> {
  if (!(await teamExists(op, teamId))) throw notFound('Team');
}
