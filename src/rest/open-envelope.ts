import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { ErrorCode, FieldIssue } from '../core/platform/errors.ts';
import type { IdempotentOutcome } from '../core/platform/idempotency.ts';
import { asDomainError, retryAfterOf } from './errors.ts';

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
 * The failure table of the open API (spec 7.2 leaves it open; docs/search.md and README document
 * it): each domain code becomes an HTTP status and a stable code string. A refusal that carries a
 * `reason` (DomainError) answers that reason as its code, with the table's status.
 */
export const OPEN_FAILURES: Readonly<Record<ErrorCode, { status: number; code: string }>> = {
  invalid_credentials: { status: 401, code: 'invalid_credentials' },
  key_inactive: { status: 401, code: 'key_inactive' },
  forbidden: { status: 403, code: 'forbidden' },
  share_password_required: { status: 403, code: 'share_password_required' },
  share_password_invalid: { status: 403, code: 'share_password_invalid' },
  not_found: { status: 404, code: 'not_found' },
  share_not_found: { status: 404, code: 'share_not_found' },
  link_expired: { status: 410, code: 'link_expired' },
  share_expired: { status: 410, code: 'share_expired' },
  share_revoked: { status: 410, code: 'share_revoked' },
  code_in_use: { status: 409, code: 'code_in_use' },
  name_in_use: { status: 409, code: 'name_in_use' },
  sku_in_use: { status: 409, code: 'sku_in_use' },
  idempotency_key_reused: { status: 409, code: 'idempotency_key_reused' },
  brand_has_dependents: { status: 409, code: 'brand_has_dependents' },
  category_has_products: { status: 409, code: 'category_has_products' },
  mutation_response_unavailable: { status: 409, code: 'mutation_response_unavailable' },
  precondition_failed: { status: 412, code: 'precondition_failed' },
  payload_too_large: { status: 413, code: 'payload_too_large' },
  validation_failed: { status: 400, code: 'invalid_parameter' },
  write_conflict: { status: 503, code: 'write_conflict' },
  service_unavailable: { status: 503, code: 'service_unavailable' },
  too_many_attempts: { status: 429, code: 'too_many_attempts' },
  bad_request: { status: 400, code: 'bad_request' },
  internal_server_error: { status: 500, code: 'internal_error' },
};

/** Maps any error to the open-API failure envelope; unknown errors are logged and never leak. */
export function sendOpenError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = asDomainError(error);
  if (!domain) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ code: 'internal_error', message: 'Internal server error', result: null, traceId: request.id });
  }
  const failure = OPEN_FAILURES[domain.code];
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
    code: Type.String({ description: 'Stable error code, e.g. invalid_parameter, invalid_credentials, share_not_found; handle it and the HTTP status, not the message.' }),
    message: Type.String(),
    result: Type.Null(),
    traceId: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'OpenErrorEnvelope' },
);

const openErrorRef = Type.Ref('OpenErrorEnvelope');

/** The failures every authenticated open-API operation can give, for the OpenAPI document (503: PostgreSQL unreachable, or a write conflict, with Retry-After). */
export const openCommonErrors = { 400: openErrorRef, 401: openErrorRef, 404: openErrorRef, 413: openErrorRef, 500: openErrorRef, 503: openErrorRef };
