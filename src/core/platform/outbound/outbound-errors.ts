/** Why the guard refused a URL before any connection (docs/events.md "Which addresses are public"). */
export type OutboundRefusal = 'invalid_url' | 'scheme_not_allowed' | 'credentials_in_url' | 'host_unresolvable' | 'private_address';

/** The guard refused a URL; nothing was sent. */
export class OutboundRefusedError extends Error {
  readonly reason: OutboundRefusal;
  readonly host: string;

  constructor(reason: OutboundRefusal, host: string, message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
    this.reason = reason;
    this.host = host;
  }
}

/** How an allowed request failed. */
export type OutboundFailureKind = 'timeout' | 'connect_failed' | 'too_large' | 'protocol_error';

/** A request the guard let through did not complete. */
export class OutboundFailedError extends Error {
  readonly kind: OutboundFailureKind;

  constructor(kind: OutboundFailureKind, message: string) {
    super(message);
    this.name = 'OutboundFailedError';
    this.kind = kind;
  }
}
