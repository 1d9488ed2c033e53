import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '../core/platform/errors.ts';
import { asDomainError, fromFastifyError, retryAfterOf, STATUS_OF } from './errors.ts';
import type { OpenEnvelope } from './open-envelope.ts';

/**
 * HTTP status of each domain code on `/approval`: Area A's, but invalid input is 400 (spec 7.3), and
 * so is an Idempotency-Key reused with other input: the spec's Area D table has no 409, and the
 * request is refused for what it carries.
 */
const APPROVAL_STATUS: Readonly<Record<ErrorCode, number>> = { ...STATUS_OF, validation_failed: 400, idempotency_key_reused: 400 };

/**
 * The code string `/approval` answers for a domain error (spec 7.3): invalid input is
 * `invalid_payload:<reason>` (the refusal's reason, else `invalid_parameter`), a missing resource
 * `<subject>_not_found` (`template_not_found`, `task_not_found`, ...), a reused Idempotency-Key
 * `invalid_payload:idempotency_key_reused`, anything else its domain code.
 */
export function approvalCodeOf(error: DomainError): string {
  if (error.code === 'validation_failed') return `invalid_payload:${error.reason ?? 'invalid_parameter'}`;
  if (error.code === 'bad_request') return 'invalid_payload:bad_request';
  if (error.code === 'idempotency_key_reused') return 'invalid_payload:idempotency_key_reused';
  if (error.code === 'not_found') return `${error.subject ?? 'resource'}_not_found`;
  if (error.code === 'internal_server_error') return 'internal_error';
  return error.reason ?? error.code;
}

/** A body that is not JSON (or not sent as JSON) is `invalid_payload:invalid_json`. */
function withReason(domain: DomainError | null, error: FastifyError): DomainError | null {
  if (domain?.code !== 'validation_failed') return domain;
  const json =
    error instanceof SyntaxError || ['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_MEDIA_TYPE'].includes(error.code);
  return json ? new DomainError(domain.code, domain.message, domain.details, { reason: 'invalid_json' }) : domain;
}

/** Maps any error to the `/approval` envelope (`code`, `message`, `result` null, `traceId`); unknown errors are logged and never leak. */
export function sendApprovalError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = error instanceof DomainError ? error : (withReason(fromFastifyError(error as FastifyError), error as FastifyError) ?? asDomainError(error));
  if (!domain) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ code: 'internal_error', message: 'Internal server error', result: null, traceId: request.id });
  }
  const retryAfter = retryAfterOf(domain);
  if (retryAfter) reply.header('Retry-After', retryAfter);
  if (domain.code === 'internal_server_error') request.log.error({ err: error }, 'internal error');
  const body: OpenEnvelope<never> = { code: approvalCodeOf(domain), message: domain.message, result: null, traceId: request.id };
  if (domain.details && domain.details.length > 0) body.details = domain.details;
  return reply.status(APPROVAL_STATUS[domain.code]).send(body);
}
