import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../core/platform/db-errors.ts';
import { DomainError, type ErrorCode, invalidFields, type MutationOutcome } from '../core/platform/errors.ts';
import { type SchemaError, schemaErrorsToIssues } from '../core/platform/validate.ts';
import { failure } from './envelope.ts';

/** The one table from domain code to HTTP status (spec 7.1). */
export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_credentials: 401,
  key_inactive: 401,
  forbidden: 403,
  not_found: 404,
  code_in_use: 409,
  name_in_use: 409,
  sku_in_use: 409,
  idempotency_key_reused: 409,
  brand_has_dependents: 409,
  category_has_products: 409,
  mutation_response_unavailable: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  validation_failed: 422,
  write_conflict: 503,
  service_unavailable: 503,
  too_many_attempts: 429,
  link_expired: 410,
  share_not_found: 404,
  share_password_required: 403,
  share_password_invalid: 403,
  share_expired: 410,
  share_revoked: 410,
  bad_request: 400,
  stream_limit_reached: 429,
  position_expired: 410,
  // REST streams its large pages (streamed-page.ts), so no REST answer is refused for its size
  response_too_large: 413,
  internal_server_error: 500,
};

/** Fastify's own errors that are really the client's input, mapped onto domain codes. */
export function fromFastifyError(error: FastifyError): DomainError | null {
  if (error.validation) {
    return invalidFields(schemaErrorsToIssues(error.validation as SchemaError[]));
  }
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return invalidFields([{ field: 'id', message: 'is too long' }]);
    case 'FST_ERR_BAD_URL':
      return invalidFields([{ field: '(url)', message: 'is not a valid URL' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('payload_too_large', 'The request body is larger than 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidFields([{ field: 'Content-Type', message: 'must be application/json' }]);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidFields([{ field: '(body)', message: 'must be a JSON document' }]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidFields([{ field: 'Content-Length', message: 'does not match the body' }]);
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return invalidFields([{ field: '(body)', message: 'is not valid JSON' }]);
  }
  return null;
}

/** Any error as a domain error: a domain error itself (the core maps database failures, db-errors.ts) or a Fastify client error; null when unknown. */
export function asDomainError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  return fromFastifyError(error as FastifyError);
}

/** Headers a failure carries: Retry-After on write conflicts (1 s) and unavailable dependencies. */
export function retryAfterOf(domain: DomainError): string | null {
  if (domain.code === 'write_conflict') return '1';
  if (domain.retryAfterSeconds !== undefined) return String(domain.retryAfterSeconds);
  if (domain.code === 'service_unavailable') return String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  return null;
}

/** Maps any error to the Area A failure envelope; unknown errors are logged and never leak. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = asDomainError(error);
  if (!domain) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(failure(request.id, 'internal_server_error', 'Internal server error'));
  }
  const retryAfter = retryAfterOf(domain);
  if (retryAfter) reply.header('Retry-After', retryAfter);
  if (domain.code === 'internal_server_error' || domain.code === 'service_unavailable') request.log.error({ err: error }, domain.code);
  const body = failure(request.id, domain.code, domain.message, domain.details);
  return reply.status(STATUS_OF[domain.code]).send(domain.mutationOutcome ? { ...body, mutationOutcome: wireOutcome(domain.mutationOutcome, request) } : body);
}

/** The wire form of a mutation outcome: the request to repeat is the one received, and the records are listed under the product. */
function wireOutcome(outcome: MutationOutcome, request: FastifyRequest) {
  return {
    resource: outcome.resource,
    id: outcome.id,
    replayed: outcome.replayed,
    retry: { method: request.method, path: request.url.split('?')[0]!, idempotencyKey: outcome.idempotencyKey },
    lookup: `/v1/products/${outcome.productId}/download-records`,
  };
}
