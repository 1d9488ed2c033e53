/** A field-level problem reported with `validation_failed`. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Every error code the core can raise (spec 7.1, 7.3, plus the open-API codes of README).
 * Adapters map these once: REST to a status and envelope, GraphQL to `extensions.code`.
 */
export type ErrorCode =
  | 'invalid_credentials'
  | 'key_inactive'
  | 'forbidden'
  | 'not_found'
  | 'code_in_use'
  | 'name_in_use'
  | 'sku_in_use'
  | 'idempotency_key_reused'
  | 'brand_has_dependents'
  | 'category_has_products'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'validation_failed'
  | 'write_conflict'
  /** A service-issued link (`/files/...`) past its expiry (docs/library.md). */
  | 'link_expired'
  /** Open API share search (docs/search.md): unknown or revoked share token, missing or wrong share password. */
  | 'share_not_found'
  | 'share_password_required'
  | 'share_password_invalid'
  | 'internal_server_error';

/** The one error type of the domain core: a spec code, a human message, optional field details. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: FieldIssue[] | undefined;

  constructor(code: ErrorCode, message: string, details?: FieldIssue[]) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} not found`);
}

export function invalid(field: string, message: string): DomainError {
  return new DomainError('validation_failed', 'The request is invalid', [{ field, message }]);
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
