import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { ErrorCode, FieldIssue } from '../core/platform/errors.ts';
import type { IdempotentOutcome } from '../core/platform/idempotency.ts';
import { asDomainError, retryAfterOf, STATUS_OF } from './errors.ts';

/**
 * The open-API envelope of Areas B, C and D (spec 4.6, 4.8): `code` "0" on success, `message`,
 * `result`, and `traceId` (the request id, also in X-Request-Id). Failures add `details` on
 * invalid parameters, as the Area A envelope does.
 */
export interface OpenEnvelope<T> {
  code: string;
  message: string;
  result: T | null;
  traceId: string;
  details?: FieldIssue[];
}

export function openOk<T>(traceId: string, result: T): OpenEnvelope<T> {
  return { code: '0', message: 'success', result, traceId };
}

/** A change made with an Idempotency-Key, in the envelope: the first result, and `Idempotent-Replayed: true` when this request replayed it. */
export function openReplayable<T>(reply: FastifyReply, traceId: string, outcome: IdempotentOutcome<T>): OpenEnvelope<T> {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return openOk(traceId, outcome.body);
}

/**
 * How the open API (spec 7.2 leaves it open; docs/search.md and docs/events.md document it) differs from
 * Area A's table (rest/errors.ts STATUS_OF), which it otherwise follows code for code: invalid
 * input is 400 `invalid_parameter` (Area A: 422 validation_failed), and an unexpected error is
 * `internal_error`. A refusal that carries a `reason` answers that reason as its code.
 */
const OPEN_DIFFERENCES: Partial<Record<ErrorCode, { status: number; code: string }>> = {
  validation_failed: { status: 400, code: 'invalid_parameter' },
  internal_server_error: { status: 500, code: 'internal_error' },
};

/** The open API's status and code for a domain code. */
export function openFailureOf(code: ErrorCode): { status: number; code: string } {
  return OPEN_DIFFERENCES[code] ?? { status: STATUS_OF[code], code };
}

/** Maps any error to the open-API failure envelope; unknown errors are logged and never leak. */
export function sendOpenError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = asDomainError(error);
  if (!domain) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ code: 'internal_error', message: 'Internal server error', result: null, traceId: request.id });
  }
  const failure = openFailureOf(domain.code);
  const retryAfter = retryAfterOf(domain);
  if (retryAfter) reply.header('Retry-After', retryAfter);
  if (domain.code === 'internal_server_error') request.log.error({ err: error }, 'internal error');
  const body: OpenEnvelope<never> = { code: domain.reason ?? failure.code, message: domain.message, result: null, traceId: request.id };
  if (domain.details && domain.details.length > 0) body.details = domain.details;
  return reply.status(failure.status).send(body);
}

/** Response schema of a successful open-API call. */
export function openOkSchema(result: TSchema) {
  return Type.Object({
    code: Type.Literal('0'),
    message: Type.String(),
    result,
    traceId: Type.String({ description: 'The request id, also sent as X-Request-Id.' }),
  });
}

/** The open-API failure envelope (docs/search.md lists the codes). */
export const OpenErrorEnvelope = Type.Object(
  {
    code: Type.String({
      description: 'Stable error code, e.g. invalid_parameter, invalid_credentials, share_not_found; handle it and the HTTP status, not the message.',
    }),
    message: Type.String(),
    result: Type.Null(),
    traceId: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'OpenErrorEnvelope' },
);

/** The open-API failure envelope, for the statuses an operation adds to openCommonErrors. */
export const openErrorRef = Type.Ref('OpenErrorEnvelope');

/**
 * The failures every authenticated open-API operation can give, for the OpenAPI document: 414 and
 * 431 from the HTTP layer, before any route; 503 when PostgreSQL is unreachable or a write
 * conflicts, with Retry-After.
 */
export const openCommonErrors = {
  400: openErrorRef,
  401: openErrorRef,
  404: openErrorRef,
  413: openErrorRef,
  414: openErrorRef,
  431: openErrorRef,
  500: openErrorRef,
  503: openErrorRef,
};
