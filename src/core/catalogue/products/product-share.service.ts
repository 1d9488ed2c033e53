import { requirePermission } from '../../access/roles.ts';
import { hashSharePassword, hashShareToken } from '../../assets/shares/share-secrets.ts';
import { actorLabel, type Ctx, keyOf, linkExpiryOf, type UnitOfWork } from '../../platform/ctx.ts';
import { invalid, invalidFields, notFound } from '../../platform/errors.ts';
import { type IdempotentOutcome, withIdempotency } from '../../platform/idempotency.ts';
import { PageQuery } from '../../platform/pagination.schemas.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { recordActivity } from '../activity/activity-records.ts';
import { mediaIdsOf, type ProductRecord } from './product-projection.ts';
import { countShares, findShare, insertShare, nextShareId, revokeShare, type ShareRow, shareByTokenHash, sharesPage } from './product-shares.queries.ts';
import { ProductShareCreate, type ProductShareView, SHARE_LIFETIME, type ShareAccessRow } from './product-shares.schemas.ts';
import { newShareNonce, shareToken } from './share-links.ts';

const checkCreate = compileInput(ProductShareCreate);
const checkPage = compileInput(PageQuery);

/**
 * Product shares, the API side (docs/products.md "Shares"): create, list and revoke, for usable
 * and higher with products:share; usable shares published products only (it sees no drafts).
 * The page a share's link opens is product-share-page.service.ts.
 */
export class ProductShareService {
  private readonly secret: string | null;
  private readonly sharePageUrl: (token: string) => string;
  private readonly readVisible: (ctx: Ctx, id: number) => Promise<ProductRecord>;

  /** `sharePageUrl`: the public URL of the page a token opens, composed by the adapter that serves it (src/public-urls.ts). */
  constructor(deps: { secret: string | null; sharePageUrl: (token: string) => string; readVisible: (ctx: Ctx, id: number) => Promise<ProductRecord> }) {
    this.secret = deps.secret;
    this.sharePageUrl = deps.sharePageUrl;
    this.readVisible = deps.readVisible;
  }

  /** A new share of a product the caller sees; idempotent with a key (a replay answers the same share, link included). */
  async create(ctx: Ctx, productId: number, input: unknown, idempotencyKey?: string, nowMs = Date.now()): Promise<IdempotentOutcome<ProductShareView>> {
    requirePermission(ctx, 'products:share');
    const body = checkCreate(input ?? {});
    if (body.password !== undefined && body.password.trim() === '') throw invalid('password', 'must not be blank');
    const expiresAt = this.expiryOf(ctx, body.expiresAt, nowMs);
    const product = await this.readVisible(ctx, productId);
    const assetIds = body.assetIds ? [...new Set(body.assetIds)] : null;
    if (assetIds) {
      const media = new Set(mediaIdsOf([product]));
      const foreign = assetIds.filter((id) => !media.has(id));
      if (foreign.length > 0) {
        throw invalidFields(foreign.map((id) => ({ field: 'assetIds', message: `${id} is not a media file of this product` })));
      }
    }
    this.requireSecret();
    // scrypt takes tens of milliseconds: outside the transaction, so no row lock waits on it
    const passwordHash = body.password === undefined ? null : await hashSharePassword(body.password);
    const outcome = await withIdempotency(ctx, { operation: `products.share.${productId}`, key: idempotencyKey, input: body }, async (tx) => {
      const key = keyOf(tx.actor);
      const nonce = newShareNonce();
      // the token is derived from the id, so the id is drawn first and the row written once, complete
      const id = await nextShareId(tx);
      const token = shareToken(this.secret!, { teamId: tx.teamId, id, nonce });
      await insertShare(tx, {
        id,
        productId,
        nonce,
        tokenHash: hashShareToken(token),
        passwordHash,
        fileIds: assetIds,
        allowDownload: body.allowDownload ?? true,
        showsDrafts: product.status !== 'published',
        expiresAt,
        actor: actorLabel(tx.actor),
        keyId: key?.keyId ?? null,
        role: key?.role ?? null,
      });
      await recordActivity(tx, 'share', id, 'created');
      // the idempotency record keeps the id only: the link is derived again, never stored
      return { body: { id }, etag: null };
    });
    return { ...outcome, body: await this.read(ctx, productId, outcome.body.id) };
  }

  /** A product's shares, newest first, in ordinary pages (no ETag). */
  async list(ctx: Ctx, productId: number, query: unknown): Promise<Page<ProductShareView>> {
    requirePermission(ctx, 'products:share');
    const page = normalizePage(checkPage(query ?? {}));
    await this.readVisible(ctx, productId);
    const [count, rows] = await Promise.all([countShares(ctx, productId), sharesPage(ctx, productId, page.pageSize, (page.page - 1) * page.pageSize)]);
    return { items: rows.map((row) => this.view(row)), pagination: paginationOf(page, count) };
  }

  /** Revokes a share: its page answers 410 from now on. Revoking a revoked share changes nothing and answers it again. */
  async revoke(ctx: Ctx, productId: number, shareId: number): Promise<ProductShareView> {
    requirePermission(ctx, 'products:share');
    await this.readVisible(ctx, productId);
    await inTransaction(ctx, async (tx) => {
      const revoked = await revokeShare(tx, productId, shareId);
      if (revoked) await recordActivity(tx, 'share', shareId, 'revoked');
    });
    return this.read(ctx, productId, shareId);
  }

  /** The share behind a token, of any team (the token is the credential); null when there is none. */
  async findByToken(op: UnitOfWork, token: string): Promise<ShareAccessRow | null> {
    return shareByTokenHash(op, hashShareToken(token));
  }

  private async read(ctx: Ctx, productId: number, shareId: number): Promise<ProductShareView> {
    const row = await findShare(ctx, productId, shareId);
    if (!row) throw notFound('Share');
    return this.view(row);
  }

  private view(row: ShareRow): ProductShareView {
    const { teamId, nonce, ...rest } = row;
    const token = shareToken(this.requireSecret(), { teamId, id: row.id, nonce });
    return { ...rest, url: this.sharePageUrl(token) };
  }

  /** The requested expiry as an instant, or the default; 422 when past, too far, or after the key's own expiry. */
  private expiryOf(ctx: Ctx, requested: string | undefined, nowMs: number): string {
    const keyExpiry = linkExpiryOf(ctx.actor);
    const maxMs = nowMs + SHARE_LIFETIME.maxDays * 86_400_000;
    if (requested === undefined) {
      const defaultMs = nowMs + SHARE_LIFETIME.defaultDays * 86_400_000;
      return new Date(keyExpiry === null ? defaultMs : Math.min(defaultMs, keyExpiry)).toISOString();
    }
    const at = Date.parse(requested);
    if (Number.isNaN(at)) throw invalid('expiresAt', 'must be an RFC 3339 date-time');
    if (at <= nowMs) throw invalid('expiresAt', 'must be in the future');
    if (at > maxMs) throw invalid('expiresAt', `must be at most ${SHARE_LIFETIME.maxDays} days ahead`);
    if (keyExpiry !== null && at > keyExpiry) throw invalid('expiresAt', `must not be after the API key's expiry (${new Date(keyExpiry).toISOString()})`);
    return requested;
  }

  private requireSecret(): string {
    // the CLI builds a core without the database-kept secret; it never issues share links
    if (!this.secret) throw new Error('LINK_SIGNING_SECRET is not loaded; share links cannot be issued');
    return this.secret;
  }
}
