import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Product share links (docs/products.md "Shares"). A link's token is an HMAC of the share's id and
 * a random nonce under the service's secret: the database keeps only the nonce and the token's
 * SHA-256, so a leaked table yields no working link, while the API can show a share's link again
 * (in listings, and on an idempotent replay of its creation).
 */

/** A fresh nonce for a new share: 16 random bytes, hex. */
export function newShareNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The share's token: 43 base64url characters. */
export function shareToken(secret: string, share: { teamId: number; id: number; nonce: string }): string {
  return createHmac('sha256', secret).update(`shelf-product-share:v1|${share.teamId}|${share.id}|${share.nonce}`).digest('base64url');
}

/** The shape of a token in a URL; anything else is unknown without a database lookup. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Proof that a visitor gave a protected share's password (kept in a cookie by the page): the
 * expiry in epoch seconds and an HMAC over share and expiry. It says nothing once the share is
 * revoked, expired or its password changed, because the page checks the share on every request.
 */
export function accessProof(secret: string, share: { id: number; passwordHash: string }, expiresAt: number): string {
  return `${expiresAt}.${accessMac(secret, share, expiresAt)}`;
}

/** Whether `proof` was issued for this share (and its current password) and is not past its expiry. */
export function verifyAccessProof(secret: string, share: { id: number; passwordHash: string }, proof: string | undefined, nowMs: number): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(proof ?? '');
  if (!match) return false;
  const expiresAt = Number(match[1]);
  const expected = Buffer.from(accessMac(secret, share, expiresAt));
  const given = Buffer.from(match[2]!);
  return timingSafeEqual(expected, given) && Math.floor(nowMs / 1000) < expiresAt;
}

function accessMac(secret: string, share: { id: number; passwordHash: string }, expiresAt: number): string {
  // the password hash (with its salt) is part of the message: a new password voids earlier proofs
  return createHmac('sha256', secret).update(`shelf-share-access:v1|${share.id}|${expiresAt}|${share.passwordHash}`).digest('base64url');
}
