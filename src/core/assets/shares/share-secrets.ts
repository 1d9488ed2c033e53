import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/**
 * scrypt cost of share passwords (DESIGN.md: "share passwords with a slow hash"): N = 2^14,
 * r = 8, p = 1 is Node's default and RFC 7914's interactive setting (16 MiB, tens of ms).
 */
const COST = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

/** A fresh share token: 32 random bytes, base64url (43 characters), unguessable. */
export function newShareToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored only as their SHA-256 (like API keys): a database leak reveals no usable link. */
export function hashShareToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** `scrypt$N$r$p$salt$hash` (base64url parts), so the cost can be raised later without breaking old shares. */
export async function hashSharePassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password.normalize('NFC'), salt, KEY_LENGTH, COST);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Checks a password against a stored hash; the comparison runs in constant time. */
export async function verifySharePassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  return timingSafeEqual(actual, expected);
}
