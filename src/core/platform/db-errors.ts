import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { DomainError } from './errors.ts';

/** Socket errors and SQLSTATEs that mean "the database cannot be reached now", not "the request is wrong". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, connection exceptions
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

const UNREACHABLE_MESSAGES = /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** Seconds a client should wait before retrying when a dependency is down (Retry-After). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The table of database failures that are not the caller's fault: a database
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

/** Name of the unique constraint a write violated, for mapping to a domain code. */
export function violatedConstraint(e: unknown): string | null {
  if (!(e instanceof UniqueConstraintViolationException)) return null;
  const constraint = (e as unknown as { constraint?: string }).constraint;
  if (constraint) return constraint;
  const match = /unique constraint "([^"]+)"/.exec(e.message);
  return match?.[1] ?? null;
}

/**
 * Unique constraints that decide a race between two writers, and what the loser is told (Medusa's
 * db-error-mapper idea): the services check these rules first, under locks where they can, so
 * these fire only when two writes collide. One table, applied by `inTransaction`.
 */
const CONSTRAINT_ERRORS: Readonly<Record<string, () => DomainError>> = {
  library_folders_live_sibling_name_unique: () => new DomainError('name_in_use', 'A live folder with this name already exists in the parent folder'),
  product_info_templates_live_name_unique: () => new DomainError('name_in_use', 'A live template of this library already has this name'),
  categories_live_sibling_name_unique: () => new DomainError('name_in_use', 'A live sibling category already has this name'),
  products_team_spu_unique: () => new DomainError('sku_in_use', 'Another product of this library (possibly deleted) already has this spu'),
};

/** A database error as the domain error it means (a known constraint, an unreachable database), or the error itself. */
export function mapDatabaseError(e: unknown): unknown {
  const constraint = violatedConstraint(e);
  const mapped = constraint === null ? undefined : CONSTRAINT_ERRORS[constraint];
  if (mapped) return mapped();
  return unavailableError(e) ?? e;
}
