import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role } from '../access/roles.ts';

/** Who is calling: an API key of a team, with its collaborator role as of this request. */
export interface Actor {
  keyId: number;
  teamId: number;
  role: Role;
  /** Key expiry (epoch ms) bounds every link issued to this caller; null means no expiry. */
  expiresAt: number | null;
}

/** What every core operation takes first: the unit of work, the team scope and the caller. */
export interface Ctx {
  em: EntityManager;
  teamId: number;
  actor: Actor;
  requestId: string;
}
