import { ConnectionException } from '@mikro-orm/core';
import { DomainError } from './errors.ts';

/** Socket errors and SQLSTATEs that mean "the database cannot be reached now", not "the request is wrong". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, connection exceptions
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006',
]);

const UNREACHABLE_MESSAGES = /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** Seconds a client should wait before retrying when a dependency is down (Retry-After). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The table of database failures that are not the caller's fault (issue 12 item 7): a database
 * that cannot be reached becomes `service_unavailable` (503 with Retry-After in every area's
 * envelope, `extensions.code` in GraphQL) instead of an internal error. Null for anything else.
 */
export function unavailableError(e: unknown): DomainError | null {
  if (e instanceof DomainError) return null;
  const seen = new Set<unknown>();
  for (let cause: unknown = e; cause && !seen.has(cause); cause = (cause as { cause?: unknown }).cause) {
    seen.add(cause);
    const code = (cause as { code?: string }).code;
    if (cause instanceof ConnectionException || (code && UNREACHABLE_CODES.has(code)) || UNREACHABLE_MESSAGES.test((cause as Error).message ?? '')) {
      return new DomainError('service_unavailable', 'A service Shelf depends on is unavailable; retry later');
    }
  }
  return null;
}
