import type { LibraryService } from '../../assets/files/library.service.ts';
import { verifySharePassword } from '../../assets/shares/share-secrets.ts';
import type { AttemptLimiter } from '../../platform/attempt-limiter.ts';
import type { Ctx, UnitOfWork } from '../../platform/ctx.ts';
import { DomainError } from '../../platform/errors.ts';
import type { FieldType } from '../templates/template.schemas.ts';
import { readPinnedVersions } from '../templates/templates.queries.ts';
import type { PreparedDownload, ProductDownloadService } from './product-download.service.ts';
import { isBlank, isMediaField } from './product-fields.ts';
import { mediaIdsOf, type ProductRecord } from './product-projection.ts';
import type { ProductShareService } from './product-share.service.ts';
import type { ShareAccessRow } from './product-shares.schemas.ts';
import { readProduct } from './products.queries.ts';
import { accessProof, SHARE_TOKEN_PATTERN, verifyAccessProof } from './share-links.ts';

/** How long a visitor who gave the password stays admitted (never past the share's expiry). */
export const SHARE_ACCESS_SECONDS = 12 * 3600;

/** What a visitor of a share link presents. */
export interface ShareVisit {
  token: string;
  /** The password typed into the page's form. */
  password?: string;
  /** The proof of an earlier correct password (the page's cookie). */
  proof?: string;
  /** Who is guessing, for the failed-password throttle: the client's address. */
  client: string;
  requestId: string;
}

/** One media file as the page shows it. */
export interface SharePageMedia {
  id: number;
  name: string;
  mimeType: string;
  /** Decimal byte count. */
  size: string;
  width: number | null;
  height: number | null;
  /** Signed preview link that expires with the share at the latest; null for files without a preview. */
  previewUrl: string | null;
}

/**
 * One template value with the definition the page needs to show it to a person: the field's name,
 * type and configuration as the pinned template version holds them (option labels, currency,
 * unit, decimals, richtext mode). How it reads is the page's business (rest/share-page/).
 */
export interface SharePageField {
  /** The stable template field id. */
  id: string;
  /** The field's name. */
  label: string;
  type: FieldType;
  config: Record<string, unknown>;
  /**
   * The stored value as the API answers it (docs/products.md "templateFields formats"); for image
   * and file fields, the file-path ids of its files that the page shows (in `media`), in order.
   */
  value: unknown;
}

/** Everything the share page renders (rest/share-page/). */
export interface SharePageView {
  shareId: number;
  /** RFC 3339. */
  expiresAt: string;
  product: { name: string; spu: string | null; description: string | null; fields: SharePageField[] };
  media: SharePageMedia[];
  /** Present when the share allows downloading its files as one ZIP. */
  download: { fileCount: number; totalBytes: number } | null;
}

/** A visitor who gave the right password: the proof to keep (cookie) and until when (epoch ms). */
export interface ShareAccessGrant {
  proof: string;
  expiresAtMs: number;
}

/** The system acting for a share's team when a visitor without an API key opens it. */
const SHARE_JOB = 'product-share';

/**
 * The page a share link opens, for people without an API key (docs/products.md "Shares"). The
 * token is the credential: it names the share, and through it the team; everything read after
 * that is scoped to that team and to the share's files. Unknown token: 404 share_not_found;
 * revoked, expired, or the product no longer shown: 410 share_revoked / share_expired; a
 * protected share: share_password_required, then share_password_invalid (throttled per share
 * and client, 429 too_many_attempts).
 */
export class ProductSharePageService {
  private readonly shares: ProductShareService;
  private readonly secret: string | null;
  private readonly library: LibraryService;
  private readonly limiter: AttemptLimiter;
  private readonly downloads: ProductDownloadService;

  constructor(deps: {
    shares: ProductShareService;
    secret: string | null;
    library: LibraryService;
    limiter: AttemptLimiter;
    downloads: ProductDownloadService;
  }) {
    this.shares = deps.shares;
    this.secret = deps.secret;
    this.library = deps.library;
    this.limiter = deps.limiter;
    this.downloads = deps.downloads;
  }

  /** The page's content; with `grant` when the visitor just gave the right password. */
  async open(op: UnitOfWork, visit: ShareVisit, nowMs = Date.now()): Promise<{ view: SharePageView; grant: ShareAccessGrant | null }> {
    const { share, ctx, grant } = await this.admit(op, visit, nowMs);
    const record = await this.product(ctx, share);
    const ids = share.fileIds ?? mediaIdsOf([record]);
    const found = await this.library.mediaFor(ctx, ids, nowMs, { untilMs: share.expiresAtMs, downloadUrl: false });
    const media = ids.flatMap((id) => {
      const m = found.get(id);
      return m ? [{ id, name: m.name!, mimeType: m.mimeType!, size: m.size!, width: m.width, height: m.height, previewUrl: m.previewUrl }] : [];
    });
    const view: SharePageView = {
      shareId: share.id,
      expiresAt: new Date(share.expiresAtMs).toISOString(),
      product: { name: record.name, spu: record.spu, description: record.description, fields: await this.fields(ctx, record, new Set(media.map((m) => m.id))) },
      media,
      download: share.allowDownload && media.length > 0 ? { fileCount: media.length, totalBytes: media.reduce((sum, m) => sum + Number(m.size), 0) } : null,
    };
    return { view, grant };
  }

  /** The share's files as one ZIP, recorded as a download made through the share (admitted by the page's proof). */
  async download(op: UnitOfWork, visit: ShareVisit, nowMs = Date.now()): Promise<PreparedDownload> {
    const { share, ctx } = await this.admit(op, { ...visit, password: undefined }, nowMs);
    if (!share.allowDownload) throw new DomainError('forbidden', 'This share does not offer a download');
    const record = await this.product(ctx, share);
    const fileIds = share.fileIds ?? mediaIdsOf([record]);
    return this.downloads.prepareForShare(ctx, { id: share.id, productId: share.productId, fileIds });
  }

  /** The share, a context acting for its team, and a new access grant when a password was just given. */
  private async admit(op: UnitOfWork, visit: ShareVisit, nowMs: number): Promise<{ share: ShareAccessRow; ctx: Ctx; grant: ShareAccessGrant | null }> {
    const share = SHARE_TOKEN_PATTERN.test(visit.token) ? await this.shares.findByToken(op, visit.token) : null;
    if (!share) throw new DomainError('share_not_found', 'No share has this link');
    if (share.revoked) throw new DomainError('share_revoked', 'This share was revoked');
    if (share.expiresAtMs <= nowMs) throw new DomainError('share_expired', 'This share has expired');
    const ctx: Ctx = { em: op.em, teamId: share.teamId, actor: { kind: 'system', teamId: share.teamId, job: SHARE_JOB }, requestId: visit.requestId };
    let grant: ShareAccessGrant | null = null;
    if (share.passwordHash !== null) {
      const protectedShare = { id: share.id, passwordHash: share.passwordHash };
      const secret = this.requireSecret();
      if (!verifyAccessProof(secret, protectedShare, visit.proof, nowMs)) {
        if (visit.password === undefined || visit.password === '') throw new DomainError('share_password_required', 'This share is protected by a password');
        const attempts = `product-share:${share.id}:${visit.client}`;
        await this.limiter.check(attempts);
        if (!(await verifySharePassword(visit.password, share.passwordHash))) {
          await this.limiter.recordFailure(attempts);
          throw new DomainError('share_password_invalid', 'The password is wrong');
        }
        const expiresAtMs = Math.min(share.expiresAtMs, nowMs + SHARE_ACCESS_SECONDS * 1000);
        grant = { proof: accessProof(secret, protectedShare, Math.floor(expiresAtMs / 1000)), expiresAtMs };
      }
    }
    return { share, ctx, grant };
  }

  /** The shared product as it is now: live, and published unless the share was made by a role that sees drafts. */
  private async product(ctx: Ctx, share: ShareAccessRow): Promise<ProductRecord> {
    const record = await readProduct(ctx, share.productId, { publishedOnly: !share.showsDrafts });
    if (!record) throw new DomainError('share_revoked', 'The product is no longer available through this link', undefined, { reason: 'product_unavailable' });
    return record;
  }

  /**
   * The product's template values with their definitions, in the template's order; system fields
   * and empty values left out. Image and file fields keep only the files the page shows (a share
   * may name fewer; deleted files drop out), and are left out when none remain.
   */
  private async fields(ctx: Ctx, record: ProductRecord, shown: ReadonlySet<number>): Promise<SharePageField[]> {
    if (record.templateVersionId === null) return [];
    const [version] = await readPinnedVersions(ctx, [record.templateVersionId]);
    if (!version) return [];
    return version.groups.flatMap((group) =>
      group.fields.flatMap((field) => {
        if (field.isSystemField) return [];
        const value = isMediaField(field) ? (record.mediaFields[field.id] ?? []).filter((id) => shown.has(id)) : record.templateFields[field.id];
        return isBlank(value) ? [] : [{ id: field.id, label: field.name, type: field.type, config: field.config, value }];
      }),
    );
  }

  private requireSecret(): string {
    if (!this.secret) throw new Error('LINK_SIGNING_SECRET is not loaded; share pages cannot be served');
    return this.secret;
  }
}
