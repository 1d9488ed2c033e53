import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers for one delivery (docs/events.md): `webhook-id` is the event id (stable
 * across retries), `webhook-timestamp` the attempt's time in seconds, `webhook-signature` one
 * `v1,<base64 HMAC-SHA256>` per secret, space-separated: during a rotation both the new and the
 * previous secret sign, so a receiver holding either verifies.
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, body: string, at = new Date()): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, at, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
