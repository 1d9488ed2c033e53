import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnswerAllowance } from './answer-budget.ts';
import { DomainError } from './errors.ts';

/**
 * Collaborator roles in a team's library, weakest first (spec 4.1: each includes the previous).
 * Declared with the caller, whose key carries one; what each role may do is access/roles.ts.
 */
export const ROLES = ['view_only', 'usable', 'editable', 'manage'] as const;
export type Role = (typeof ROLES)[number];

/** An API key of a team, with its collaborator role as of this request (spec 5). */
export interface KeyActor {
  kind: 'key';
  keyId: number;
  teamId: number;
  role: Role;
  /** Key expiry (epoch ms) bounds every link issued to this caller; null means no expiry. */
  expiresAt: number | null;
}

/**
 * A member of a team (owner, creator, approver, submitter). Members act through the operator CLI
 * (`viaKey` null) or through a frontend that names them on a GraphQL request sent with a key of
 * the same team (`viaKey`: that key, which also bounds what the member may do there).
 */
export interface MemberActor {
  kind: 'member';
  userId: number;
  teamId: number;
  viaKey: KeyActor | null;
}

/** The service itself, acting for a team in a background job (timers, delivery, imports of approved assets). */
export interface SystemActor {
  kind: 'system';
  teamId: number;
  /** Names the job that acts, e.g. `approval-timeout`; recorded on events and in logs. */
  job: string;
}

/** Who is calling: a key, a member or the system (DESIGN.md; docs/access.md). */
export type Actor = KeyActor | MemberActor | SystemActor;

/** What every core operation takes first: the unit of work, the team scope and the caller. */
export interface Ctx {
  em: EntityManager;
  teamId: number;
  actor: Actor;
  requestId: string;
  /** The memory allowance of a materialized answer (GraphQL, the CLI): heavy reads admit their size against it (answer-budget.ts). */
  answer?: AnswerAllowance;
}

// The parts of a context an operation may ask for when it needs less than the whole Ctx (so
// workers, operators and lookups can call it): every core function takes one of these or Ctx.

/** A unit of work and nothing more: operator commands, workers, and lookups that name no team yet. */
export type UnitOfWork = Pick<Ctx, 'em'>;

/** A unit of work inside one team: reads and writes of the team's rows where who acts does not matter. */
export type TeamScope = Pick<Ctx, 'em' | 'teamId'>;

/** A team scope with the caller: what records events and callbacks (they name who acted). */
export type ActingScope = Pick<Ctx, 'em' | 'teamId' | 'actor'>;

/** A team scope with the answer's memory allowance: team reads whose answer may be large (answer-budget.ts). */
export type AnsweringScope = Pick<Ctx, 'em' | 'teamId' | 'answer'>;

/** Only who calls: what permission checks and caller-dependent parsing read. */
export type CallerScope = Pick<Ctx, 'actor'>;

/** The API key behind a caller: the key itself, or the key a frontend names a member through. */
export function keyOf(actor: Actor): KeyActor | null {
  if (actor.kind === 'key') return actor;
  if (actor.kind === 'member') return actor.viaKey;
  return null;
}

/** The member a write is recorded against (`update_user_id`, event `userId`); null for keys and the system. */
export function memberIdOf(actor: Actor): number | null {
  return actor.kind === 'member' ? actor.userId : null;
}

/** Expiry (epoch ms) that bounds links issued to this caller: its key's, if any. */
export function linkExpiryOf(actor: Actor): number | null {
  return keyOf(actor)?.expiresAt ?? null;
}

/** How events and records name a caller (docs/access.md): `key:12`, `member:7`, `system:approval-timeout`. */
export function actorLabel(actor: Actor): string {
  if (actor.kind === 'key') return `key:${actor.keyId}`;
  if (actor.kind === 'member') return `member:${actor.userId}`;
  return `system:${actor.job}`;
}

/** For operations only an API key can call (sync cursors, Idempotency-Key scopes): the key, or 403. */
export function requireKey(actor: Actor): KeyActor {
  const key = keyOf(actor);
  if (key === null) throw new DomainError('forbidden', 'This operation needs an API key');
  return key;
}
