import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** The Standard Webhooks form of a secret: this prefix, then the key in base64. */
const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Keys by secret: an endpoint's secret signs every delivery until it is rotated. Kept as KeyObjects:
 * given a Buffer, createHmac makes one each time, which cost five times the HMAC itself.
 */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

/**
 * The HMAC key of a secret, decoded as the `standardwebhooks` package decodes it (without the
 * prefix, strict base64), so that a receiver using it computes the same signature. A secret that
 * is not base64 is refused, as that package refuses it, rather than signing with some other key.
 */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key) return key;
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(encoded)) throw new Error('a webhook secret must be base64, with or without the whsec_ prefix');
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length === 0) throw new Error("Secret can't be empty.");
  key = createSecretKey(bytes);
  if (keys.size >= MAX_KEYS) keys.clear();
  keys.set(secret, key);
  return key;
}

/**
 * Standard Webhooks headers for one delivery (docs/events.md): `webhook-id` is the event id (stable
 * across retries), `webhook-timestamp` the attempt's time in seconds, `webhook-signature` one
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated: during a rotation
 * both the new and the previous secret sign, so a receiver holding either verifies. The HMAC is
 * node:crypto's (native), byte for byte what the `standardwebhooks` package computes in JavaScript.
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, body: string, at = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = `${eventId}.${timestamp}.${body}`;
  let signature = '';
  for (const secret of secrets) {
    const mac = createHmac('sha256', keyOf(secret)).update(signed, 'utf8').digest('base64');
    signature = signature === '' ? `v1,${mac}` : `${signature} v1,${mac}`;
  }
  return { 'webhook-id': eventId, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
}
