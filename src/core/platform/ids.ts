import { randomBytes } from 'node:crypto';

/** Largest numeric resource id (spec 2.1): a PostgreSQL int4. */
export const MAX_RESOURCE_ID = 2147483647;

export function isResourceId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_RESOURCE_ID;
}

/**
 * Whether a value has the shape of a UUID id (tasks, templates, events): 36 hex digits and hyphens.
 * Checked before `?::uuid`, so a malformed id is an unknown one (404) rather than a failed cast.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value);
}

const BASE32 = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random token from an unambiguous alphabet (no 0/O, 1/I), for human-visible codes. */
export function randomCode(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += BASE32[byte % BASE32.length];
  return out;
}

/** A URL-safe random secret with `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
