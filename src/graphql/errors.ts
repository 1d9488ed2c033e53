import { GraphQLError } from 'graphql';
import { maskError } from 'graphql-yoga';
import { DomainError } from '../core/platform/errors.ts';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, unavailableError } from '../core/platform/db-errors.ts';

const HTTP_STATUS: Partial<Record<string, number>> = { invalid_credentials: 401, key_inactive: 401, service_unavailable: 503 };

/** Maps domain errors to `extensions.code` once; everything else stays masked by yoga. */
export function maskDomainErrors(error: unknown, message: string, isDev?: boolean): Error {
  const raw = error instanceof GraphQLError ? error.originalError : error;
  const original = raw instanceof DomainError ? raw : (unavailableError(raw) ?? raw);
  if (original instanceof DomainError) {
    const status = HTTP_STATUS[original.code];
    return new GraphQLError(original.message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: {
        code: original.code,
        ...(original.details ? { details: original.details } : {}),
        ...(original.reason ? { reason: original.reason } : {}),
        ...(status ? { http: { status, ...(original.code === 'service_unavailable' ? { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } } : {}) } } : {}),
      },
    });
  }
  return maskError(error, message, isDev);
}
