import { GraphQLError } from 'graphql';
import { maskError, type Plugin } from 'graphql-yoga';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../core/platform/db-errors.ts';
import { DomainError } from '../core/platform/errors.ts';

const HTTP_STATUS: Partial<Record<string, number>> = { invalid_credentials: 401, key_inactive: 401, service_unavailable: 503 };

/** Maps domain errors to `extensions.code` once; everything else stays masked by yoga. */
export function maskDomainErrors(error: unknown, message: string, isDev?: boolean): Error {
  const raw = error instanceof GraphQLError ? error.originalError : error;
  // the core maps database failures to domain errors (db-errors.ts), as it does for every adapter
  if (raw instanceof DomainError) {
    const status = HTTP_STATUS[raw.code];
    return new GraphQLError(raw.message, {
      nodes: error instanceof GraphQLError ? error.nodes : undefined,
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: {
        code: raw.code,
        ...(raw.details ? { details: raw.details } : {}),
        ...(raw.reason ? { reason: raw.reason } : {}),
        ...(status
          ? {
              http: {
                status,
                ...(raw.code === 'service_unavailable' ? { headers: { 'Retry-After': String(raw.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS) } } : {}),
              },
            }
          : {}),
      },
    });
  }
  // yoga reads a GET request's `variables` and `extensions` with a bare JSON.parse
  if (raw instanceof SyntaxError && !(error instanceof GraphQLError && error.path)) {
    return new GraphQLError("The request's variables or extensions are not valid JSON.", { extensions: { code: 'validation_failed', http: { status: 400 } } });
  }
  return maskError(error, message, isDev);
}

/**
 * What GraphQL's and yoga's own refusals become, so every error on /graphql carries one of
 * Shelf's codes (docs/graphql.md): a syntax error, a document GraphQL's rules refuse, variables
 * that do not coerce and a malformed request are the client's input, `validation_failed`; an
 * unexpected error is `internal_server_error`.
 */
const YOGA_CODES: Record<string, string> = {
  GRAPHQL_PARSE_FAILED: 'validation_failed',
  GRAPHQL_VALIDATION_FAILED: 'validation_failed',
  BAD_REQUEST: 'validation_failed',
  OPERATION_RESOLUTION_FAILURE: 'validation_failed',
  INTERNAL_SERVER_ERROR: 'internal_server_error',
};

/** The code an error leaves with: its own when it is one of Shelf's, else the mapped one; errors without one are GraphQL's input errors (variables). */
export function shelfCodeOf(code: unknown): string {
  if (typeof code !== 'string') return 'validation_failed';
  return YOGA_CODES[code] ?? code;
}

/** Gives every error of a result a Shelf code, in place (yoga serializes the errors it holds). */
export function withShelfCodes(result: unknown): void {
  const results = Array.isArray(result) ? result : [result];
  for (const one of results) {
    const errors = (one as { errors?: unknown } | null)?.errors;
    if (!Array.isArray(errors)) continue;
    for (const error of errors) {
      if (!(error instanceof GraphQLError)) continue;
      const extensions = error.extensions as Record<string, unknown>;
      extensions.code = shelfCodeOf(extensions.code);
    }
  }
}

/** The yoga plugin that applies withShelfCodes to every answer, whatever failed. */
export function useShelfErrorCodes(): Plugin {
  return {
    onResultProcess({ result }) {
      withShelfCodes(result);
    },
  };
}
