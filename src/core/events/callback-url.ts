import { DomainError, invalid } from '../platform/errors.ts';

/** What the events need of the outbound guard to vet a URL before it is stored. */
export interface UrlChecker {
  checkUrl(url: string): Promise<URL>;
}

/** The guard's refusals (src/core/platform/outbound) as the open areas' codes (docs/events.md "The endpoints, their answers and failures"). */
const REFUSAL_REASONS: Record<string, { reason: string; message: string }> = {
  invalid_url: { reason: 'callback_url_invalid', message: 'must be an absolute URL' },
  scheme_not_allowed: { reason: 'callback_url_invalid', message: 'must use http or https' },
  credentials_in_url: { reason: 'callback_url_invalid', message: 'must not carry a user name or password' },
  host_unresolvable: { reason: 'callback_url_unresolvable', message: 'names a host that does not resolve' },
  private_address: {
    reason: 'callback_url_not_allowed',
    message:
      'resolves to a loopback, private, link-local, unique-local, carrier-grade NAT, reserved or metadata address; Shelf calls only public addresses unless its operator lists this exact host[:port] in OUTBOUND_ALLOW_HOSTS (meant for development and tests)',
  },
};

/**
 * Vets a callback URL through the outbound guard before anything is stored: a refusal
 * becomes a validation failure on `field` whose reason the open envelope answers as its code.
 * Returns the URL as it will be stored and called.
 */
export async function checkCallbackUrl(checker: UrlChecker, url: string, field = 'callbackUrl'): Promise<string> {
  try {
    return (await checker.checkUrl(url)).toString();
  } catch (e) {
    const refusal = REFUSAL_REASONS[(e as { reason?: string } | null)?.reason ?? ''];
    if (!refusal) throw e instanceof DomainError ? e : invalid(field, 'could not be checked', 'callback_url_invalid');
    throw invalid(field, refusal.message, refusal.reason);
  }
}
