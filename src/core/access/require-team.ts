import { notFound } from '../platform/errors.ts';
import type { UnitOfWork } from '../platform/ctx.ts';
import { queryOne } from '../platform/sql.ts';

/** Operator operations name a team by id: 404 not_found (subject Team) when there is no such team. */
export async function requireTeam(op: UnitOfWork, teamId: number): Promise<void> {
  if (!(await queryOne(op, 'select id from teams where id = ?', [teamId]))) throw notFound('Team');
}
