import { createHash } from 'node:crypto';
import { DomainError } from './errors.ts';

/** A resource as a read or a write answers it, with the ETag its next If-Match must name. */
export interface Versioned<T> {
  data: T;
  etag: string;
}

/**
 * A strong ETag over a resource's full representation, so any change a client could see changes it.
 * Computed in the core because If-Match is checked there, against the row locked for the write.
 */
export function etagOf(representation: unknown): string {
  const hash = createHash('sha256').update(JSON.stringify(representation)).digest('base64url');
  return `"${hash.slice(0, 27)}"`;
}

/** Throws 412 precondition_failed when If-Match was sent and does not name the current version. */
export function checkIfMatch(ifMatch: string | undefined, current: unknown): void {
  if (ifMatch === undefined) return;
  const currentTag = etagOf(current);
  const candidates = ifMatch.split(',').map((s) => s.trim());
  if (candidates.includes('*') || candidates.includes(currentTag)) return;
  throw new DomainError('precondition_failed', 'If-Match does not match the current version; read it again and reconcile');
}
