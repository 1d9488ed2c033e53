import { requireTeam } from './require-team.ts';
import { operatorAsMember, requireId } from './operator-scopes.ts';
import { createHash } from 'node:crypto';
import type { KeyActor, MemberActor, UnitOfWork } from '../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../platform/errors.ts';
import { randomSecret, isResourceId } from '../platform/ids.ts';
import { preparedSql, queryOne } from '../platform/sql.ts';
import { checkTimestamp } from '../platform/timestamps.ts';
import { isRole, roleAtLeast, ROLE_TO_ACT_FOR_MEMBERS, type Role } from './roles.ts';

const KEY_PREFIX = 'shelf_';

/** Runs on every authenticated request: prepared, so PostgreSQL plans it once per connection. */
const KEY_BY_HASH = preparedSql(
  'access.keyByHash',
  `select id, team_id, role, active, (extract(epoch from expires_at) * 1000)::bigint as expires_ms,
          coalesce(expires_at <= now(), false) as expired
     from api_keys where key_hash = ?`,
);

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function requireName(name: string | undefined, field: string): string {
  const trimmed = (name ?? '').trim();
  if (trimmed.length < 1 || trimmed.length > 128) throw invalid(field, 'must be 1-128 characters');
  return trimmed;
}

/** Teams, members and API keys (spec 5). Keys are managed by operators only, never over the API. */
export class AccessService {
  /** Creates a team and so its library. */
  async createTeam(ctx: UnitOfWork, input: { name?: string }): Promise<{ teamId: number }> {
    const name = requireName(input.name, 'name');
    const row = await queryOne<{ id: number }>(ctx, 'insert into teams (name) values (?) returning id', [name]);
    return { teamId: row!.id };
  }

  /** Gives a team the capability to subscribe to events (spec 4.7). */
  async enableSubscriptions(ctx: UnitOfWork, input: { teamId: number }): Promise<{ teamId: number; subscriptions: true }> {
    const teamId = requireId(input.teamId, 'team');
    const row = await queryOne<{ id: number }>(ctx, 'update teams set subscriptions_enabled = true where id = ? returning id', [teamId]);
    if (!row) throw notFound('Team');
    return { teamId, subscriptions: true };
  }

  /** Adds a member (owner, creator, approver) to a team. */
  async addMember(ctx: UnitOfWork, input: { teamId: number; name?: string }): Promise<{ userId: number }> {
    const teamId = requireId(input.teamId, 'team');
    const name = requireName(input.name, 'name');
    await requireTeam(ctx, teamId);
    const row = await queryOne<{ id: number }>(ctx, 'insert into members (team_id, name) values (?, ?) returning id', [teamId, name]);
    return { userId: row!.id };
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
    const row = await queryOne<{ id: number }>(
      ctx,
      'insert into api_keys (team_id, key_hash, role, expires_at) select ?, ?, ?, ?::timestamptz where ?::timestamptz is null or ?::timestamptz > now() returning id',
      [teamId, hashApiKey(key), role, expiresAt, expiresAt, expiresAt],
    );
    if (!row) throw invalid('expiresAt', 'must be in the future');
    return { keyId: row.id, key, role, expiresAt };
  }

  /** Changes a key's collaborator role; takes effect on the key's next request. */
  async setKeyRole(ctx: UnitOfWork, input: { keyId: number; role?: string }): Promise<{ keyId: number; role: Role }> {
    const keyId = requireId(input.keyId, 'keyId');
    if (!isRole(input.role)) throw invalid('role', 'must be one of view_only, usable, editable, manage');
    const row = await queryOne(ctx, 'update api_keys set role = ?, updated_at = now() where id = ? returning id', [input.role, keyId]);
    if (!row) throw notFound('API key');
    return { keyId, role: input.role };
  }

  /** Deactivates a key; its next request gets 401 key_inactive. */
  async revokeKey(ctx: UnitOfWork, input: { keyId: number }): Promise<{ keyId: number; active: false }> {
    const keyId = requireId(input.keyId, 'keyId');
    const row = await queryOne(ctx, 'update api_keys set active = false, updated_at = now() where id = ? returning id', [keyId]);
    if (!row) throw notFound('API key');
    return { keyId, active: false };
  }

  /**
   * Authenticates a bearer key afresh on every request (spec 5): one indexed lookup by hash, so a
   * revoked key or a changed role takes effect on the very next request.
   */
  async authenticate(ctx: UnitOfWork, authorization: string | undefined): Promise<KeyActor> {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match) throw new DomainError('invalid_credentials', 'Send Authorization: Bearer <API key>');
    const row = await queryOne<{ id: number; team_id: number; role: string; active: boolean; expires_ms: string | null; expired: boolean }>(ctx, KEY_BY_HASH, [
      hashApiKey(match[1]!),
    ]);
    if (!row) throw new DomainError('invalid_credentials', 'The API key is not valid');
    if (!row.active || row.expired) throw new DomainError('key_inactive', 'The API key is inactive or expired');
    if (!isRole(row.role)) throw new DomainError('forbidden', 'The API key has no valid role');
    return { kind: 'key', keyId: row.id, teamId: row.team_id, role: row.role, expiresAt: row.expires_ms === null ? null : Number(row.expires_ms) };
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
    const member = await queryOne(ctx, 'select id from members where id = ? and team_id = ?', [id, key.teamId]);
    if (!member) throw new DomainError('not_found', 'Member not found', undefined, { subject: 'member' });
    return { kind: 'member', userId: id, teamId: key.teamId, viaKey: key };
  }

  /** An operator acts as a member (CLI `--user`): the member's own team scopes what follows (operator-scopes.ts). */
  async memberAsOperator(ctx: UnitOfWork, userId: unknown): Promise<MemberActor> {
    return operatorAsMember(ctx, userId);
  }
}
