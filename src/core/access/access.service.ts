import { createHash } from 'node:crypto';
import type { KeyActor, MemberActor, UnitOfWork } from '../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../platform/errors.ts';
import { isResourceId, randomSecret } from '../platform/ids.ts';
import { type LiveRowInput, recordLive } from '../platform/live-log.ts';
import { checkTimestamp } from '../platform/timestamps.ts';
import { inTransaction } from '../platform/tx.ts';
import { deactivateKey, insertKey, keyByHash, setKeyRole } from './keys.queries.ts';
import { insertMember, isMemberOfTeam } from './members.queries.ts';
import { operatorAsMember, requireId } from './operator-scopes.ts';
import { requireTeam } from './require-team.ts';
import { isRole, ROLE_TO_ACT_FOR_MEMBERS, type Role, roleAtLeast } from './roles.ts';
import { enableTeamSubscriptions, insertTeam } from './teams.queries.ts';

const KEY_PREFIX = 'shelf_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function requireName(name: string | undefined, field: string): string {
  const trimmed = (name ?? '').trim();
  if (trimmed.length < 1 || trimmed.length > 128) throw invalid(field, 'must be 1-128 characters');
  return trimmed;
}

/**
 * A key's role changed or it was revoked: a row of the key's team that no subscription shows, on
 * which every process with streams of the key checks the key again at once (live-hub.ts).
 */
function liveRowOfKeyChange(teamId: number, keyId: number, change: 'revoked' | 'role_changed'): LiveRowInput {
  return {
    teamId,
    stream: 'key',
    eventType: change,
    subjectId: String(keyId),
    folderIds: [],
    brandId: null,
    categoryId: null,
    draftsOnly: false,
    body: JSON.stringify({ keyId, change }),
  };
}

/** Teams, members and API keys (spec 5). Keys are managed by operators only, never over the API. */
export class AccessService {
  /** Creates a team and so its library. */
  async createTeam(ctx: UnitOfWork, input: { name?: string }): Promise<{ teamId: number }> {
    const name = requireName(input.name, 'name');
    return { teamId: await insertTeam(ctx, name) };
  }

  /** Gives a team the capability to subscribe to events (spec 4.7). */
  async enableSubscriptions(ctx: UnitOfWork, input: { teamId: number }): Promise<{ teamId: number; subscriptions: true }> {
    const teamId = requireId(input.teamId, 'team');
    if (!(await enableTeamSubscriptions(ctx, teamId))) throw notFound('Team');
    return { teamId, subscriptions: true };
  }

  /** Adds a member (owner, creator, approver) to a team. */
  async addMember(ctx: UnitOfWork, input: { teamId: number; name?: string }): Promise<{ userId: number }> {
    const teamId = requireId(input.teamId, 'team');
    const name = requireName(input.name, 'name');
    await requireTeam(ctx, teamId);
    return { userId: await insertMember(ctx, teamId, name) };
  }

  /** Issues a key; the plain key is returned once and only its SHA-256 is stored. An expiry must be in the future. */
  async createKey(
    ctx: UnitOfWork,
    input: { teamId: number; role?: string; expiresAt?: string },
  ): Promise<{ keyId: number; key: string; role: Role; expiresAt: string | null }> {
    const teamId = requireId(input.teamId, 'team');
    const role = input.role ?? 'view_only';
    if (!isRole(role)) throw invalid('role', 'must be one of view_only, usable, editable, manage');
    let expiresAt: string | null = null;
    if (input.expiresAt !== undefined) {
      checkTimestamp('expiresAt', input.expiresAt);
      expiresAt = new Date(input.expiresAt).toISOString();
    }
    await requireTeam(ctx, teamId);
    const key = KEY_PREFIX + randomSecret(32);
    // a key that expires at or before now would be dead on arrival (authenticate compares with the
    // database clock, as this guard does, in the same statement as the insert)
    const keyId = await insertKey(ctx, { teamId, keyHash: hashApiKey(key), role, expiresAt });
    if (keyId === null) throw invalid('expiresAt', 'must be in the future');
    return { keyId, key, role, expiresAt };
  }

  /** Changes a key's collaborator role; takes effect on the key's next request. */
  async setKeyRole(ctx: UnitOfWork, input: { keyId: number; role?: string }): Promise<{ keyId: number; role: Role }> {
    const keyId = requireId(input.keyId, 'keyId');
    if (!isRole(input.role)) throw invalid('role', 'must be one of view_only, usable, editable, manage');
    const role = input.role;
    await inTransaction(ctx, async (tx) => {
      const teamId = await setKeyRole(tx, keyId, role);
      if (teamId === null) throw notFound('API key');
      // open live update streams of the key apply the new role at once (docs/graphql.md "Live updates")
      await recordLive(tx, [liveRowOfKeyChange(teamId, keyId, 'role_changed')]);
    });
    return { keyId, role };
  }

  /** Deactivates a key; its next request gets 401 key_inactive. */
  async revokeKey(ctx: UnitOfWork, input: { keyId: number }): Promise<{ keyId: number; active: false }> {
    const keyId = requireId(input.keyId, 'keyId');
    await inTransaction(ctx, async (tx) => {
      const teamId = await deactivateKey(tx, keyId);
      if (teamId === null) throw notFound('API key');
      // the key's open live update streams end at once (docs/graphql.md "Live updates")
      await recordLive(tx, [liveRowOfKeyChange(teamId, keyId, 'revoked')]);
    });
    return { keyId, active: false };
  }

  /**
   * Authenticates a bearer key afresh on every request (spec 5): one indexed lookup by hash, so a
   * revoked key or a changed role takes effect on the very next request.
   */
  async authenticate(ctx: UnitOfWork, authorization: string | undefined): Promise<KeyActor> {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match) throw new DomainError('invalid_credentials', 'Send Authorization: Bearer <API key>');
    const row = await keyByHash(ctx, hashApiKey(match[1]!));
    if (!row) throw new DomainError('invalid_credentials', 'The API key is not valid');
    if (!row.active || row.expired) throw new DomainError('key_inactive', 'The API key is inactive or expired');
    if (!isRole(row.role)) throw new DomainError('forbidden', 'The API key has no valid role');
    return { kind: 'key', keyId: row.id, teamId: row.teamId, role: row.role, expiresAt: row.expiresMs === null ? null : Number(row.expiresMs) };
  }

  /**
   * A frontend acts for a member of its key's team (GraphQL header `X-Shelf-Member`,
   * docs/access.md): the key must be editable or higher, and the member must belong to the key's team
   * (403 forbidden / 404 not_found, so another team's member ids reveal nothing).
   */
  async actForMember(ctx: UnitOfWork, key: KeyActor, userId: unknown): Promise<MemberActor> {
    if (!roleAtLeast(key.role, ROLE_TO_ACT_FOR_MEMBERS)) {
      throw new DomainError('forbidden', `Only keys with role ${ROLE_TO_ACT_FOR_MEMBERS} or higher may act for members`);
    }
    const id = typeof userId === 'string' && /^\d{1,10}$/.test(userId) ? Number(userId) : userId;
    if (!isResourceId(id)) throw invalid('X-Shelf-Member', 'must be a member id (a positive integer)');
    if (!(await isMemberOfTeam(ctx, key.teamId, id))) throw new DomainError('not_found', 'Member not found', undefined, { subject: 'member' });
    return { kind: 'member', userId: id, teamId: key.teamId, viaKey: key };
  }

  /** An operator acts as a member (CLI `--user`): the member's own team scopes what follows (operator-scopes.ts). */
  async memberAsOperator(ctx: UnitOfWork, userId: unknown): Promise<MemberActor> {
    return operatorAsMember(ctx, userId);
  }
}
