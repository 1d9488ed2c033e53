import { actorMay, requirePermission } from '../../access/roles.ts';
import type { LibraryService } from '../../assets/files/library.service.ts';
import { readAdmitted, type SizedPage, sizedItems } from '../../platform/answer-budget.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { notFound } from '../../platform/errors.ts';
import { etagOf, type Versioned } from '../../platform/etag.ts';
import { type IdempotentOutcome, withIdempotency } from '../../platform/idempotency.ts';
import { type Pagination, paginationOf } from '../../platform/pagination.ts';
import { compileInput } from '../../platform/validate.ts';
import { VersionedMemo } from '../../platform/versioned-memo.ts';
import type { InformationTemplateService } from '../templates/information-template.service.ts';
import type { TemplateGroupView, TemplateVersionView } from '../templates/template.schemas.ts';
import { readPinnedVersions, readPinnedVersionsWithin } from '../templates/templates.queries.ts';
import { ProductCreate, type ProductVisibilityItem, ProductVisibilityRequest, type SyncPagination } from './product.schemas.ts';
import { DEFAULT_PRODUCT_CHANGES_RETENTION_DAYS } from './product-changes-retention.ts';
import { draftReasonOf } from './product-fields.ts';
import type { ProductHistoryItem } from './product-history.schemas.ts';
import { historyPage, recordProductChange } from './product-history.ts';
import { ProductLifecycle } from './product-lifecycle.ts';
import { allFileIds, checkedLive } from './product-media.ts';
import { type ProductRecord, productEtag, versionedProduct } from './product-projection.ts';
import { parseProductQuery } from './product-query.ts';
import { completeListed, listedRecordBytes, readListPage } from './product-read.ts';
import { isTombstone, type SyncItem, syncPage } from './product-sync.ts';
import { applyCustomValues, checkMedia, checkReferences, completenessIssues, draftFromCreate } from './product-write.ts';
import {
  hasLiveProductInBrand,
  hasLiveProductInCategories,
  insertDraft,
  readProduct,
  readProductsByIds,
  readProductWithLive,
  visibleProductIds,
} from './products.queries.ts';
import type { ProductUpgradeItem, TemplateUpgradeReport, TemplateUpgradesPreview } from './template-upgrade.schemas.ts';
import { ProductTemplateUpgrades } from './template-upgrade.ts';

const checkCreate = compileInput(ProductCreate);
const checkVisibility = compileInput(ProductVisibilityRequest);

/**
 * A page of products as stored records (tombstones too, in sync pages with changes=true), read batch
 * by batch under the answer budget: REST projects each batch into spec 2.5 summaries, GraphQL
 * resolves the fields asked for through its loaders.
 */
export type ProductListResult = { mode: 'page'; page: SizedPage<ProductRecord, Pagination> } | { mode: 'sync'; page: SizedPage<SyncItem, SyncPagination> };

export interface ProductServiceOptions {
  library: LibraryService;
  templates: InformationTemplateService;
  /** HMAC key of sync cursors (LINK_SIGNING_SECRET or the database-kept one). */
  cursorSecret: string | null;
  /** Rows a sync page with a search filter examines at most (docs/products.md); tests lower it. */
  syncScanLimit?: number;
  /** PRODUCT_CHANGES_RETENTION_DAYS: the sync feed refuses an updatedAfter older than this (docs/products.md "Retention"). */
  changesRetentionDays?: number;
}

/** Products of a team's catalogue (spec 2.5, 3.1, 3.2, 4.5, 5, 7.1, 8). */
export class ProductService {
  private readonly library: LibraryService;
  private readonly templates: InformationTemplateService;
  private readonly cursorSecret: string | null;
  private readonly syncScanLimit: number;
  private readonly changesRetentionDays: number;
  private readonly lifecycle: ProductLifecycle;
  private readonly upgrades: ProductTemplateUpgrades;
  /** Exact list totals memoized by product version (product-totals.ts). */
  readonly totals = new VersionedMemo<number>(10_000);

  constructor(options: ProductServiceOptions) {
    this.library = options.library;
    this.templates = options.templates;
    this.cursorSecret = options.cursorSecret;
    this.syncScanLimit = options.syncScanLimit ?? 5000;
    this.changesRetentionDays = options.changesRetentionDays ?? DEFAULT_PRODUCT_CHANGES_RETENTION_DAYS;
    this.lifecycle = new ProductLifecycle({ library: options.library, definitionOf: (tx, record) => this.definitionOf(tx, record) });
    this.upgrades = new ProductTemplateUpgrades({ library: options.library, templates: options.templates });
  }

  /** listProducts (spec 4.5): ordinary pages (updatedAt, id descending) or, with sync=true, a cursor scan. */
  async list(ctx: Ctx, query: Record<string, unknown>): Promise<ProductListResult> {
    requirePermission(ctx, 'products:read');
    const parsed = parseProductQuery(ctx, query);
    const publishedOnly = parsed.filters.publishedOnly;
    if (parsed.mode === 'page') {
      const page = { page: parsed.page, pageSize: parsed.pageSize };
      const { records, total } = await readListPage(ctx, parsed.filters, page.pageSize, (page.page - 1) * page.pageSize, this.totals);
      return { mode: 'page', page: sizedItems(paginationOf(page, total), records, listedRecordBytes, (batch) => completeListed(ctx, batch, publishedOnly)) };
    }
    if (!this.cursorSecret) throw new Error('The cursor signing secret is not loaded; sync is unavailable');
    const { items, pagination } = await syncPage(ctx, parsed, {
      secret: this.cursorSecret,
      scanLimit: this.syncScanLimit,
      changesRetentionDays: this.changesRetentionDays,
    });
    const bytesOf = (item: SyncItem) => (isTombstone(item) ? 0 : listedRecordBytes(item));
    return { mode: 'sync', page: sizedItems(pagination, items, bytesOf, (batch) => completeListed(ctx, batch, publishedOnly)) };
  }

  /** getProduct: one product the caller may see (drafts are 404 for view_only and usable), with its ETag. */
  async get(ctx: Ctx, id: number): Promise<Versioned<ProductRecord>> {
    requirePermission(ctx, 'products:read');
    const read = await readProductWithLive(ctx, id, { publishedOnly: publishedOnly(ctx) });
    if (!read) throw notFound('Product');
    return versionedProduct(read.record, read.live);
  }

  /**
   * Spec 3.1: a draft is not found for view_only and usable, like a deleted or other-team product.
   * The record only, without the ETag's live-file read (downloads and shares need no ETag).
   */
  async readVisible(ctx: Ctx, id: number): Promise<ProductRecord> {
    requirePermission(ctx, 'products:read');
    const record = await readProduct(ctx, id, { publishedOnly: publishedOnly(ctx) });
    if (!record) throw notFound('Product');
    return record;
  }

  /** Batch read for GraphQL dataloaders: products of the caller's team among `ids`, within visibility. */
  async findByIds(ctx: Ctx, ids: readonly number[]): Promise<ProductRecord[]> {
    requirePermission(ctx, 'products:read');
    return readProductsByIds(ctx, ids, publishedOnly(ctx));
  }

  /** Batch read of pinned definitions (spec 2.5 templateDefinition): needs no templates:read. */
  async pinnedVersions(ctx: Ctx, versionIds: readonly string[]): Promise<TemplateVersionView[]> {
    requirePermission(ctx, 'products:read');
    return readAdmitted(
      ctx,
      (limit) => readPinnedVersionsWithin(ctx, versionIds, limit),
      () => readPinnedVersions(ctx, versionIds),
    );
  }

  /** createProduct (spec 4.5): always a draft; pins the resolved template version; idempotent with a key. */
  async create(ctx: Ctx, input: unknown, idempotencyKey?: string): Promise<IdempotentOutcome<ProductRecord>> {
    requirePermission(ctx, 'products:create');
    const body = checkCreate(input);
    const draft = draftFromCreate(body);
    // spec 4.5: a replay answers the stored record and ETag; the adapters show only media still valid now
    return withIdempotency(ctx, { operation: 'products.create', key: idempotencyKey, input: body }, async (tx) => {
      await checkReferences(tx, draft, { brandOrCategory: true, owner: true });
      const pin = await this.templates.resolveForProduct(tx, { templateId: body.templateId, brandId: draft.brandId, categoryId: draft.categoryId });
      const groups = pin ? (await this.templates.getVersion(tx, pin.versionId)).groups : null;
      const mediaInputs = applyCustomValues(draft, groups, body.templateFields);
      await checkMedia(tx, this.library, draft, {
        coverFileId: draft.coverFileId,
        imageFileIds: draft.imageFileIds,
        relatedFileIds: draft.relatedFileIds,
        fields: mediaInputs,
      });
      // every reference was just checked live, so completeness may count them all
      const live = checkedLive(allFileIds({ ...draft, mediaFields: draft.values.mediaFields }));
      const record = await insertDraft(tx, draft, pin, draftReasonOf(completenessIssues(draft, groups, live), groups));
      await recordProductChange(tx, record.id, 'created', null, record);
      return { body: record, etag: productEtag(record, live) };
    });
  }

  /** A product's history (docs/products.md "History"), newest first; visible exactly when the product is (a draft is 404 for view_only and usable). */
  async history(ctx: Ctx, id: number, query: unknown): Promise<SizedPage<ProductHistoryItem, Pagination>> {
    await this.readVisible(ctx, id);
    return historyPage(ctx, id, query);
  }

  /** updateProduct (docs/products.md): the create field rules; template fixed; a published product must stay complete. */
  async update(ctx: Ctx, id: number, input: unknown, ifMatch?: string): Promise<Versioned<ProductRecord>> {
    requirePermission(ctx, 'products:update');
    return this.lifecycle.patch(ctx, id, input, ifMatch);
  }

  /** publishProduct (docs/products.md): validates the complete product, sets publishedAt; already published: unchanged 200. */
  async publish(ctx: Ctx, id: number, ifMatch?: string): Promise<Versioned<ProductRecord>> {
    requirePermission(ctx, 'products:publish');
    return this.lifecycle.publish(ctx, id, ifMatch);
  }

  /** unpublishProduct (docs/products.md): back to draft, publishedAt null; already a draft: unchanged 200. */
  async unpublish(ctx: Ctx, id: number, ifMatch?: string): Promise<Versioned<ProductRecord>> {
    requirePermission(ctx, 'products:publish');
    return this.lifecycle.unpublish(ctx, id, ifMatch);
  }

  /** deleteProduct (spec 3.2 style): soft delete; the spu stays reserved. */
  async softDelete(ctx: Ctx, id: number, ifMatch?: string): Promise<Versioned<{ id: number }>> {
    requirePermission(ctx, 'products:delete');
    await this.lifecycle.softDelete(ctx, id, ifMatch);
    const data = { id };
    return { data, etag: etagOf(data) };
  }

  /**
   * Template upgrade preview (docs/products.md "Template upgrades"): the roles that edit products
   * (spec 5), as it plans an edit; changes nothing. The ETag is the product's: sent as If-Match,
   * the upgrade happens only to the product as previewed.
   */
  async previewTemplateUpgrade(ctx: Ctx, id: number, query: unknown): Promise<Versioned<TemplateUpgradeReport>> {
    requirePermission(ctx, 'products:update');
    const product = await this.get(ctx, id);
    return { data: await this.upgrades.preview(ctx, product.data, query), etag: product.etag };
  }

  /** Template upgrade: the roles that edit products; If-Match required; one transaction with history and activity. */
  async upgradeTemplate(ctx: Ctx, id: number, query: unknown, input: unknown, ifMatch?: string): Promise<Versioned<ProductRecord>> {
    requirePermission(ctx, 'products:update');
    return this.upgrades.apply(ctx, id, query, input, ifMatch);
  }

  /** Bulk template upgrade preview: a page of the products pinned to one version; the roles that edit products. */
  async previewTemplateUpgrades(
    ctx: Ctx,
    query: unknown,
  ): Promise<{ head: Omit<TemplateUpgradesPreview, 'products'>; page: SizedPage<ProductUpgradeItem, Pagination> }> {
    requirePermission(ctx, 'products:update');
    return this.upgrades.previewPinned(ctx, query, publishedOnly(ctx));
  }

  /** Spec 4.5 rule 5: visible / not_visible per id for this caller; filters do not apply. */
  async visibility(ctx: Ctx, input: unknown): Promise<ProductVisibilityItem[]> {
    requirePermission(ctx, 'products:read');
    const ids = [...new Set(checkVisibility(input).ids)];
    const visible = await visibleProductIds(ctx, ids, publishedOnly(ctx));
    return ids.map((id) => ({ id, result: visible.has(id) ? 'visible' : 'not_visible' }));
  }

  /** For the category deletion guard (spec 3.2 category_has_products). */
  async hasLiveInCategories(tx: Ctx, categoryIds: readonly number[]): Promise<boolean> {
    return hasLiveProductInCategories(tx, categoryIds);
  }

  /** For the brand deletion guard (spec 3.2 brand_has_dependents). */
  async hasLiveInBrand(tx: Ctx, brandId: number): Promise<boolean> {
    return hasLiveProductInBrand(tx, brandId);
  }

  private async definitionOf(ctx: Ctx, record: Pick<ProductRecord, 'templateVersionId'>): Promise<TemplateGroupView[] | null> {
    return record.templateVersionId === null ? null : (await this.templates.getVersion(ctx, record.templateVersionId)).groups;
  }
}

/** Spec 3.1: view_only and usable see published products only. */
function publishedOnly(ctx: Ctx): boolean {
  return !actorMay(ctx.actor, 'products:read_drafts');
}
