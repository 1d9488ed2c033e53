import { configure } from 'safe-stable-stringify';

/**
 * JSON with object keys sorted, so two documents that differ only in key order (a client's, or
 * jsonb's reordering) compare equal: request fingerprints of Idempotency-Key, template field
 * configs. Undefined properties are left out, as JSON.stringify does.
 */
export const canonicalJson = configure({ deterministic: true, circularValue: Error, bigint: false });
