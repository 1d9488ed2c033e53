import { createHmac, timingSafeEqual } from 'node:crypto';
import { keyStates } from '../access/keys.queries.ts';
import { isRole } from '../access/roles.ts';
import type { KeyActor, UnitOfWork } from '../platform/ctx.ts';
import { DomainError } from '../platform/errors.ts';

/** How long a stream token opens streams: a browser's EventSource, which cannot send headers, takes one in its URL. */
export const STREAM_TOKEN_TTL_MS = 10 * 60_000;

function mac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(`live-stream-token:${body}`).digest('base64url');
}

/** A token that opens live update streams as `key` until `expiresAt` (never past the key's own expiry). */
export function issueStreamToken(secret: string, key: KeyActor, now = Date.now()): { token: string; expiresAt: string } {
  const expires = Math.min(now + STREAM_TOKEN_TTL_MS, key.expiresAt ?? Number.POSITIVE_INFINITY);
  const body = `${key.keyId}.${expires}`;
  return { token: `st1.${body}.${mac(secret, body)}`, expiresAt: new Date(expires).toISOString() };
}

/**
 * The key a stream token stands for, read again from the database (a revoked key's tokens open
 * nothing): `invalid_credentials` for a token that is malformed, forged or past its expiry, and
 * `key_inactive` for a key revoked or expired since.
 */
export async function keyOfStreamToken(op: UnitOfWork, secret: string, token: string, now = Date.now()): Promise<KeyActor> {
  const match = /^st1\.(\d{1,10})\.(\d{1,16})\.([\w-]{43})$/.exec(token);
  if (!match) throw new DomainError('invalid_credentials', 'The stream token is not valid');
  const body = `${match[1]}.${match[2]}`;
  const expected = Buffer.from(mac(secret, body));
  const given = Buffer.from(match[3]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new DomainError('invalid_credentials', 'The stream token is not valid');
  if (Number(match[2]) <= now) throw new DomainError('invalid_credentials', 'The stream token has expired; ask for a new one (createStreamToken)');
  const keyId = Number(match[1]);
  const state = (await keyStates(op, [keyId])).get(keyId);
  if (!state) throw new DomainError('invalid_credentials', 'The stream token is not valid');
  if (!state.usable) throw new DomainError('key_inactive', 'The API key is inactive or expired');
  if (!isRole(state.role)) throw new DomainError('forbidden', 'The API key has no valid role');
  return { kind: 'key', keyId, teamId: state.teamId, role: state.role, expiresAt: state.expiresMs === null ? null : Number(state.expiresMs) };
}
