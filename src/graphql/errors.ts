import { GraphQLError } from 'graphql';
import { maskError } from 'graphql-yoga';
import { DomainError } from '../core/platform/errors.ts';

const HTTP_STATUS: Partial<Record<string, number>> = { invalid_credentials: 401, key_inactive: 401 };

/** Maps domain errors to `extensions.code` once; everything else stays masked by yoga. */
export function maskDomainErrors(error: unknown, message: string, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof DomainError) {
    const status = HTTP_STATUS[original.code];
    return new GraphQLError(original.message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: {
        code: original.code,
        ...(original.details ? { details: original.details } : {}),
        ...(original.reason ? { reason: original.reason } : {}),
        ...(status ? { http: { status } } : {}),
      },
    });
  }
  return maskError(error, message, isDev);
}
