import { Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../core/platform/ids.ts';
import { ErrorEnvelope, MutationOutcomeSchema } from './envelope.ts';

/** Spec 4.1: a positive integer id no larger than 2147483647. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID }) });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'Up to 255 characters, not blank, no control characters; replays within 24 hours.' })),
});

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'The strong ETag (with quotes) from a read; 412 when it no longer matches.' })),
});

/** The security requirement of every operation that takes an API key (openapi.ts declares the bearerAuth scheme). */
export const bearerSecurity = [{ bearerAuth: [] }];

/** What a deletion of a resource with an integer id answers: the deleted id. */
export const DeletedId = Type.Object({ id: Type.Integer() });

/** The failure envelope, for the statuses an operation adds to commonErrors (409, 412). */
export const ErrorRef = Type.Ref('ErrorEnvelope');

/**
 * The failure responses every authenticated operation can give, for the OpenAPI document. 400,
 * 414 and 431 come from the HTTP layer, before any route (bad_request for a request Node's parser
 * refuses: a control byte in a header, a Content-Length that does not match; uri_too_long;
 * request_header_too_large), in the same envelope.
 */
export const commonErrors = {
  400: ErrorRef,
  401: ErrorRef,
  403: ErrorRef,
  404: ErrorRef,
  413: ErrorRef,
  414: ErrorRef,
  422: ErrorRef,
  431: ErrorRef,
  500: ErrorRef,
  503: ErrorRef,
};

export const sharedSchemas = [MutationOutcomeSchema, ErrorEnvelope];
