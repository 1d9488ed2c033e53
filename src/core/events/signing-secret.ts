import { randomBytes } from 'node:crypto';

/** A new endpoint signing secret in Standard Webhooks' form: `whsec_` and 24 random bytes in base64 (docs/events.md, "Signatures"). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
