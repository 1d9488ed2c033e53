import type { UnitOfWork } from '../platform/ctx.ts';
import { bool, int, nullableBigintText, text } from '../platform/row-checks.ts';
import { preparedSql, queryOne, queryRows } from '../platform/sql.ts';

/* Statements on API keys (api_keys). */

/** Runs on every authenticated request: prepared, so PostgreSQL plans it once per connection. */
const KEY_BY_HASH = preparedSql(
  'access.keyByHash',
  `select id, team_id, role, active, (extract(epoch from expires_at) * 1000)::bigint as expires_ms,
          coalesce(expires_at <= now(), false) as expired
     from api_keys where key_hash = ?`,
);

/** A key as authentication reads it: `role` as stored (the caller checks it), `expiresMs` its expiry in epoch ms (bigint digits) or null, `expired` by the database clock. */
export interface KeyByHash {
  id: number;
  teamId: number;
  role: string;
  active: boolean;
  expiresMs: string | null;
  expired: boolean;
}

/** The key whose SHA-256 is `keyHash` (KEY_BY_HASH); null when there is none. */
export async function keyByHash(op: UnitOfWork, keyHash: string): Promise<KeyByHash | null> {
  const row = await queryOne<Record<string, unknown>>(op, KEY_BY_HASH, [keyHash]);
  if (!row) return null;
  return {
    id: int(row.id, 'id'),
    teamId: int(row.team_id, 'team_id'),
    role: text(row.role, 'role'),
    active: bool(row.active, 'active'),
    expiresMs: nullableBigintText(row.expires_ms, 'expires_ms'),
    expired: bool(row.expired, 'expired'),
  };
}

/**
 * Stores a key by its hash, unless its expiry (an ISO timestamp, null: none) is at or before now
 * by the database clock (the same one authentication compares with), in the same statement. The
 * new key's id, or null when the expiry is not in the future.
 */
export async function insertKey(op: UnitOfWork, key: { teamId: number; keyHash: string; role: string; expiresAt: string | null }): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(
    op,
    'insert into api_keys (team_id, key_hash, role, expires_at) select ?, ?, ?, ?::timestamptz where ?::timestamptz is null or ?::timestamptz > now() returning id',
    [key.teamId, key.keyHash, key.role, key.expiresAt, key.expiresAt, key.expiresAt],
  );
  return row ? int(row.id, 'id') : null;
}

/** Sets a key's role; returns the key's team, or null when there is no such key. */
export async function setKeyRole(op: UnitOfWork, keyId: number, role: string): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(op, 'update api_keys set role = ?, updated_at = now() where id = ? returning team_id', [role, keyId]);
  return row === null ? null : int(row.team_id, 'team_id');
}

/** Deactivates a key; returns the key's team, or null when there is no such key. */
export async function deactivateKey(op: UnitOfWork, keyId: number): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(op, 'update api_keys set active = false, updated_at = now() where id = ? returning team_id', [keyId]);
  return row === null ? null : int(row.team_id, 'team_id');
}

/**
 * Locks a key's row against changes of its key columns to the end of the transaction, so changes
 * made on the key's behalf (its approval callback URL) take turns, each seeing what the one before committed.
 */
export async function lockKey(tx: UnitOfWork, keyId: number): Promise<void> {
  await queryRows(tx, 'select 1 from api_keys where id = ? for no key update', [keyId]);
}

/** Keys as a long-lived stream re-checks them (docs/graphql.md "Live updates"): role and whether each may still be used, by the database clock. */
export async function keyStates(
  op: UnitOfWork,
  keyIds: readonly number[],
): Promise<Map<number, { teamId: number; role: string; usable: boolean; expiresMs: string | null }>> {
  const states = new Map<number, { teamId: number; role: string; usable: boolean; expiresMs: string | null }>();
  if (keyIds.length === 0) return states;
  const rows = await queryRows<Record<string, unknown>>(
    op,
    `select id, team_id, role, (active and coalesce(expires_at > now(), true)) as usable, (extract(epoch from expires_at) * 1000)::bigint as expires_ms
       from api_keys where id = any(?::int[])`,
    [`{${keyIds.map((id) => Math.trunc(id)).join(',')}}`],
  );
  for (const row of rows) {
    states.set(int(row.id, 'id'), {
      teamId: int(row.team_id, 'team_id'),
      role: text(row.role, 'role'),
      usable: bool(row.usable, 'usable'),
      expiresMs: nullableBigintText(row.expires_ms, 'expires_ms'),
    });
  }
  return states;
}
