/** A field-level problem reported with `validation_failed`. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Every error code the core can raise (spec 7.1, 7.3, plus the open-API codes of docs/search.md, docs/events.md).
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
  /** The mutation committed (or replayed) but its response cannot be given; the failure carries `mutationOutcome`. */
  | 'mutation_response_unavailable'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'validation_failed'
  | 'write_conflict'
  /** PostgreSQL (or Redis, where a request needs it) cannot be reached: 503 with Retry-After (platform/db-errors.ts). */
  | 'service_unavailable'
  /** Too many failed attempts of one caller at one thing (share passwords): 429 with Retry-After. */
  | 'too_many_attempts'
  /** A service-issued link (`/files/...`) past its expiry (docs/library.md). */
  | 'link_expired'
  /** Open API share search (docs/search.md): unknown or revoked share token, missing or wrong share password. */
  | 'share_not_found'
  | 'share_password_required'
  | 'share_password_invalid'
  /** A product share (docs/products.md "Shares") past its expiry, or revoked (or its product no longer shown): 410. */
  | 'share_expired'
  | 'share_revoked'
  /** A request HTTP/1.1 itself refuses (no Host, an undecodable URL): 400 before any route, in every area (docs/api-conventions.md "Failures a client can act on"). */
  | 'bad_request'
  /** A materialized answer (GraphQL, the CLI) would carry more stored data than its cap (docs/graphql.md "Limits"). */
  | 'response_too_large'
  | 'internal_server_error';

/**
 * What an error is about, beyond its code, so each area can name it in its own words: `subject`
 * names the resource (`template`, `task`, `folder`: /approval answers `template_not_found`), and
 * `reason` a machine-readable cause of a refusal (`callback_url_not_allowed`: /open and
 * /approval answer it as their code). Area A keeps its spec codes and ignores both.
 */
export interface ErrorAbout {
  subject?: string;
  reason?: string;
  /** Seconds the caller should wait before trying again (Retry-After). */
  retryAfterSeconds?: number;
  /** With `mutation_response_unavailable`: what was committed and how to get its result again. */
  mutationOutcome?: MutationOutcome;
}

/**
 * Spec 7.1 `mutationOutcome` (its shape is ours, docs/products.md): what was committed. The
 * adapter says how to obtain the response again (repeat the request it received, with the same
 * Idempotency-Key) and where the resource is listed: paths are the adapter's business.
 */
export interface MutationOutcome {
  /** The kind of resource committed: `download_record`. */
  resource: 'download_record';
  /** Its id. */
  id: number;
  /** true when this request replayed an earlier commit rather than committing now. */
  replayed: boolean;
  /** The product the download was of. */
  productId: number;
  /** The Idempotency-Key to send again; null: the request had none, so repeating it records again. */
  idempotencyKey: string | null;
}

/** The one error type of the domain core: a spec code, a human message, optional field details. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: FieldIssue[] | undefined;
  readonly subject: string | undefined;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly mutationOutcome: MutationOutcome | undefined;

  constructor(code: ErrorCode, message: string, details?: FieldIssue[], about: ErrorAbout = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.subject = about.subject;
    this.reason = about.reason;
    this.retryAfterSeconds = about.retryAfterSeconds;
    this.mutationOutcome = about.mutationOutcome;
  }
}

/** 404 for a resource that is missing, deleted or another team's; the subject is the resource's name in snake case. */
export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} not found`, undefined, { subject: what.toLowerCase().replaceAll(/[^a-z0-9]+/g, '_') });
}

/** `validation_failed` for the fields that make a request invalid (each adapter names them in its format). */
export function invalidFields(issues: FieldIssue[], about: ErrorAbout = {}): DomainError {
  return new DomainError('validation_failed', 'The request is invalid', issues, about);
}

/** 422 (Area A) / 400 (open areas) for one field; `reason`, when given, is the open areas' code. */
export function invalid(field: string, message: string, reason?: string): DomainError {
  return invalidFields([{ field, message }], reason ? { reason } : {});
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
