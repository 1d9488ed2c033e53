import type { Ctx, MemberActor, SystemActor, TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { DomainError, invalid } from '../platform/errors.ts';
import { isResourceId } from '../platform/ids.ts';
import { isMemberOfTeam, teamOfMember } from './members.queries.ts';
import { requireTeam } from './require-team.ts';

// Every context an operator (the CLI) acts in is built here, from a unit of work and the team or
// member the operator names. Operators are trusted; what scopes them is the team they name, which
// must exist, and a member they name, who must exist (and belong to that team, where one is named).

/** What events and logs record as the job of an operator acting for a team as the system. */
export const OPERATOR_JOB = 'operator-cli';

/** The request id of an operator's context (events and logs name the CLI). */
const OPERATOR_REQUEST_ID = 'cli';

/** An id an operator gives (`--team`, `--user`, `--key-id`): 422 naming the field unless a positive integer. */
export function requireId(id: unknown, field: string): number {
  if (!isResourceId(id)) throw invalid(field, 'must be a positive integer id');
  return id;
}

/** The team an operator names (`--team`), for operations that need no caller: 422 for a malformed id, 404 when there is no such team. */
export async function operatorTeamScope(op: UnitOfWork, teamId: unknown): Promise<TeamScope> {
  const id = requireId(teamId, 'team');
  await requireTeam(op, id);
  return { em: op.em, teamId: id };
}

/** An operator acts for a team as the system (team administration); 404 when the team does not exist. */
export async function operatorAsTeam(op: UnitOfWork, teamId: unknown, job: string = OPERATOR_JOB): Promise<SystemActor> {
  const id = requireId(teamId, 'team');
  await requireTeam(op, id);
  return { kind: 'system', teamId: id, job };
}

/** An operator acts as a member (`--user`): the member's own team scopes what follows; 404 when there is no such member. */
export async function operatorAsMember(op: UnitOfWork, userId: unknown): Promise<MemberActor> {
  const id = requireId(userId, 'user');
  const teamId = await teamOfMember(op, id);
  if (teamId === null) throw new DomainError('not_found', 'Member not found', undefined, { subject: 'member' });
  return { kind: 'member', userId: id, teamId, viaKey: null };
}

/** The `--user` an operator names with a team must be a member of that team (422 naming `user` otherwise); null when none is named. */
export async function requireTeamMember(op: UnitOfWork, teamId: number, userId: number | undefined): Promise<number | null> {
  if (userId === undefined) return null;
  if (!(await isMemberOfTeam(op, teamId, userId))) throw invalid('user', 'must be a member of the team');
  return userId;
}

/**
 * An operator acts in a team it names (ids already checked): as the member `userId` of that team
 * when one is named (422 when not of the team), else as the system under `job`; 404 when there is
 * no such team.
 */
export async function operatorInTeam(op: UnitOfWork, teamId: number, userId: number | undefined, job: string): Promise<Ctx> {
  await requireTeam(op, teamId);
  const member = await requireTeamMember(op, teamId, userId);
  return { em: op.em, teamId, actor: operatorActor(teamId, member, job), requestId: OPERATOR_REQUEST_ID };
}

/** Who acts when an operator names a team and perhaps a member of it (checked already): that member, else the system under `job`. */
export function operatorActor(teamId: number, memberId: number | null, job: string): MemberActor | SystemActor {
  return memberId === null ? { kind: 'system', teamId, job } : { kind: 'member', userId: memberId, teamId, viaKey: null };
}
