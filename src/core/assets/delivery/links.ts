import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Actor, linkExpiryOf } from '../../platform/ctx.ts';
import { DomainError } from '../../platform/errors.ts';

/**
 * What a service-issued link lets its holder fetch: a derived preview, the original image as a
 * preview (for images no preview can be derived from), the original as a download, or a
 * processed image (search `publicUrl`, docs/search.md) whose recipe is the signed `variant`.
 */
export const LINK_PURPOSES = ['preview', 'preview-original', 'download', 'derived'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** Spec 8: derived preview 3600 s, original-image preview fallback 300 s, downloadUrl 300 s; a processed image is a derived one. */
export const LINK_LIFETIME_SECONDS: Record<LinkPurpose, number> = {
  preview: 3600,
  'preview-original': 300,
  download: 300,
  derived: 3600,
};

/** The file a verified link names; the team comes from the link, never from the caller. */
export interface LinkTarget {
  teamId: number;
  fileId: number;
  purpose: LinkPurpose;
  /** Epoch seconds. */
  expiresAt: number;
  /** For `derived` only: the processing recipe (derivatives.ts `derivativeVariant`), signed with the rest. */
  variant?: string;
}

/**
 * A signed link: its target, expiry and signature. The core decides these; the adapter that serves
 * the link composes them into a URL and parses them back (src/public-urls.ts).
 */
export interface SignedFileLink extends LinkTarget {
  sig: string;
}

/** Composes a signed link's public URL; given to the core by the adapter layer (src/public-urls.ts). */
export type FileLinkUrl = (link: SignedFileLink) => string;

/** A link's parts as they arrived, parsed by the adapter that serves it, before any check. */
export interface LinkParts {
  teamId: string;
  fileId: string;
  purpose: string;
  exp: string | undefined;
  sig: string | undefined;
  /** The `v` query parameter of a `derived` link. */
  variant?: string | undefined;
}

const CANONICAL_ID = /^[1-9]\d{0,9}$/;
const EPOCH_SECONDS = /^\d{1,12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
const VARIANT = /^[a-z0-9-]{1,64}$/;

function refused(): DomainError {
  return new DomainError('forbidden', 'The link is not valid');
}

/**
 * Signs and verifies service-issued file links: HMAC-SHA256 over a versioned, domain-separated message
 * naming team, file, purpose and expiry, so no part can be changed without the secret. The
 * signature is compared in constant time and checked before the expiry, so an altered link says
 * nothing about its expiry.
 */
export class LinkSigner {
  private readonly secret: string | null;
  private readonly urlOf: FileLinkUrl;

  constructor(secret: string | null, urlOf: FileLinkUrl) {
    this.secret = secret;
    this.urlOf = urlOf;
  }

  private mac(teamId: number, fileId: number, purpose: LinkPurpose, expiresAt: number, variant?: string): string {
    // a core built without the secret (tests of unrelated parts) must not sign with an empty key
    if (!this.secret) throw new Error('LINK_SIGNING_SECRET is not loaded; links cannot be signed or verified');
    // a derived link signs its recipe too; the other purposes keep their original message
    const message = `shelf-file-link:v1|${teamId}|${fileId}|${purpose}|${expiresAt}${purpose === 'derived' ? `|${variant}` : ''}`;
    return createHmac('sha256', this.secret).update(message).digest('base64url');
  }

  /** What a link for a target with an explicit expiry (epoch seconds) carries: the target, the expiry and the signature over both. */
  signParts(target: Omit<LinkTarget, 'expiresAt'>, expiresAt: number): SignedFileLink {
    if (target.purpose === 'derived' && !VARIANT.test(target.variant ?? '')) throw new Error('a derived link needs a variant');
    const sig = this.mac(target.teamId, target.fileId, target.purpose, expiresAt, target.variant);
    const { teamId, fileId, purpose } = target;
    return purpose === 'derived' ? { teamId, fileId, purpose, variant: target.variant!, expiresAt, sig } : { teamId, fileId, purpose, expiresAt, sig };
  }

  /** The public URL for a target with an explicit expiry (epoch seconds), composed by the adapter layer's composer. */
  sign(target: Omit<LinkTarget, 'expiresAt'>, expiresAt: number): string {
    return this.urlOf(this.signParts(target, expiresAt));
  }

  /**
   * A link for a caller: it expires after the purpose's lifetime (spec 8) and never after the
   * caller's API key (spec 5: "keys with an expiry bound every service-issued link"), nor after
   * `untilMs` when given.
   */
  issue(actor: Actor, target: Omit<LinkTarget, 'expiresAt'>, nowMs = Date.now(), untilMs: number | null = null): { url: string; expiresAt: number } {
    let expiresAt = Math.floor(nowMs / 1000) + LINK_LIFETIME_SECONDS[target.purpose];
    // a product share's links never outlive the share (docs/products.md "Shares")
    for (const bound of [linkExpiryOf(actor), untilMs]) if (bound !== null) expiresAt = Math.min(expiresAt, Math.floor(bound / 1000));
    return { url: this.sign(target, expiresAt), expiresAt };
  }

  /** Checks a link: 403 forbidden when malformed or altered, 410 link_expired once past its expiry. */
  verify(parts: LinkParts, nowMs = Date.now()): LinkTarget {
    const { teamId, fileId, purpose, exp, sig } = parts;
    if (!CANONICAL_ID.test(teamId) || !CANONICAL_ID.test(fileId)) throw refused();
    if (!(LINK_PURPOSES as readonly string[]).includes(purpose)) throw refused();
    if (exp === undefined || !EPOCH_SECONDS.test(exp) || sig === undefined || !SIGNATURE.test(sig)) throw refused();
    const variant = purpose === 'derived' ? parts.variant : undefined;
    if (purpose === 'derived' && (variant === undefined || !VARIANT.test(variant))) throw refused();
    const target: LinkTarget = {
      teamId: Number(teamId),
      fileId: Number(fileId),
      purpose: purpose as LinkPurpose,
      expiresAt: Number(exp),
      ...(variant ? { variant } : {}),
    };
    const expected = this.mac(target.teamId, target.fileId, target.purpose, target.expiresAt, variant);
    // compared as text: decoding base64url would ignore the spare bits of the last character
    if (!timingSafeEqual(Buffer.from(expected), Buffer.from(sig))) throw refused();
    if (Math.floor(nowMs / 1000) >= target.expiresAt) throw new DomainError('link_expired', 'The link has expired; ask the API for a new one');
    return target;
  }
}
