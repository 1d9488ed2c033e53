import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { AccessService } from './access/access.service.ts';
import { ApprovalActionService } from './approvals/approval-action.service.ts';
import { ApprovalTaskService } from './approvals/approval-task.service.ts';
import { ApprovalTemplateService } from './approvals/approval-template.service.ts';
import { ApprovalEngine } from './approvals/task-engine.ts';
import { CustomFieldTemplateService } from './assets/custom-metadata/custom-field-template.service.ts';
import { FileCustomFieldService } from './assets/custom-metadata/file-custom-field.service.ts';
import { FileMetadataService } from './assets/custom-metadata/file-metadata.service.ts';
import { MetadataFieldService } from './assets/custom-metadata/metadata-field.service.ts';
import { DerivativeCache } from './assets/delivery/derivatives.ts';
import { FileDeliveryService } from './assets/delivery/file-delivery.service.ts';
import { type FileLinkUrl, LinkSigner } from './assets/delivery/links.ts';
import { PreviewCache } from './assets/delivery/previews.ts';
import { FileValidityService } from './assets/files/file-validity.service.ts';
import { LibraryService } from './assets/files/library.service.ts';
import { LibraryEditService } from './assets/files/library-edit.service.ts';
import { FolderEditService } from './assets/folders/folder-edit.service.ts';
import { LibraryImportService } from './assets/imports/library-import.service.ts';
import { PendingInboundService } from './assets/pending-inbound/pending-inbound.service.ts';
import { RecycleBinService } from './assets/recycle-bin/recycle-bin.service.ts';
import { AssetSearchService } from './assets/search/asset-search.service.ts';
import type { FacetCounts } from './assets/search/facets.ts';
import type { ColourMatch } from './assets/search/search.queries.ts';
import { TagFileCounts } from './assets/search/tag-file-counts.ts';
import { FolderShareService } from './assets/shares/folder-share.service.ts';
import { createStorage } from './assets/storage/create-storage.ts';
import type { Storage } from './assets/storage/storage.ts';
import { UploadService } from './assets/uploads/upload.service.ts';
import { VersionLineService } from './assets/versions/version-line.service.ts';
import { activityPage, purgeActivity, purgeExpiredActivity } from './catalogue/activity/activity-records.ts';
import { BrandService } from './catalogue/brands/brand.service.ts';
import { CategoryService } from './catalogue/categories/category.service.ts';
import { CategoryIconService } from './catalogue/categories/category-icon.service.ts';
import { ProductService } from './catalogue/products/product.service.ts';
import { purgeExpiredSyncFeedLogs } from './catalogue/products/product-changes-retention.ts';
import { ProductDownloadService } from './catalogue/products/product-download.service.ts';
import { ProductShareService } from './catalogue/products/product-share.service.ts';
import { ProductSharePageService } from './catalogue/products/product-share-page.service.ts';
import { InformationTemplateService } from './catalogue/templates/information-template.service.ts';
import { DeliveryService } from './events/delivery.service.ts';
import { SubscriptionService } from './events/subscription.service.ts';
import { purgeExpiredEvents, WebhookAdminService } from './events/webhook-admin.service.ts';
import { AnswerBudget } from './platform/answer-budget.ts';
import { AttemptLimiter } from './platform/attempt-limiter.ts';
import type { Actor, Ctx, UnitOfWork } from './platform/ctx.ts';
import { purgeExpiredIdempotencyRecords } from './platform/idempotency.ts';
import { OutboundGuard } from './platform/outbound/outbound-guard.ts';
import { withLazyUnitOfWork } from './platform/sql.ts';
import { VersionedMemo } from './platform/versioned-memo.ts';

/** The domain core as the adapters see it: one instance of each service, sharing one ORM, grouped by area. */
export interface Core {
  orm: MikroORM;
  config: Config;
  /** Who may do what: roles, members, operator actors (docs/access.md). */
  access: AccessService;
  /** Area A: brands, category trees, templates, products and what hangs off them (docs/products.md). */
  catalogue: CatalogueServices;
  /** Area B: the team's library, its files and folders, search and shares (docs/library.md, docs/search.md). */
  assets: AssetServices;
  /** Area C: subscriptions and webhook delivery (docs/events.md). */
  events: EventServices;
  /**
   * Approvals (Area D, docs/approvals.md): templates, tasks, the node engine and its timers.
   * Adapters decide, resubmit and cancel through `actions`, the one entry point for a member's
   * actions on a task; `engine` and `tasks` are for the workers and createApproval/taskStatusQuery.
   */
  approvals: { templates: ApprovalTemplateService; tasks: ApprovalTaskService; engine: ApprovalEngine; actions: ApprovalActionService };
  /** What every area leans on: stored bytes, the way out of the machine, shared counters. */
  platform: PlatformServices;
  /** The retention purges the maintenance worker runs on its schedule (docs/architecture.md "Maintenance jobs"). */
  housekeeping: Housekeeping;
  /** A unit of work for one request of one caller. */
  ctxFor(actor: Actor, requestId: string): Ctx;
  /** A unit of work for operator commands and unauthenticated lookups. */
  operatorCtx(): UnitOfWork;
}

export interface CatalogueServices {
  brands: BrandService;
  categories: CategoryService;
  templates: InformationTemplateService;
  /** Products: drafts, media, listing, sync, lifecycle (docs/products.md). */
  products: ProductService;
  categoryIcons: CategoryIconService;
  /** The team-wide log of catalogue writes (manage only; docs/products.md). */
  activity: { page: typeof activityPage; purge: typeof purgeActivity };
  /** Product downloads: records and the files a ZIP streams (docs/products.md). */
  downloads: ProductDownloadService;
  /** Product shares: create, list, revoke (docs/products.md "Shares"). */
  productShares: ProductShareService;
  /** The page a product share's link opens, for people without an API key. */
  sharePages: ProductSharePageService;
}

export interface AssetServices {
  /** Team-scoped library reads and spec 2.5 media objects (docs/library.md). */
  library: LibraryService;
  /** Operator imports into a team's library (`asset import`). */
  libraryImport: LibraryImportService;
  /** Imports held until confirmed or discarded (`asset import --pending`; docs/library.md "Pending inbound"). */
  pendingInbound: PendingInboundService;
  /** Uploads over HTTP: tus, one-request and GraphQL uploads (docs/library.md "Uploads"). */
  uploads: UploadService;
  /** Library file edits (GraphQL, `asset analysis set`; docs/search.md). */
  libraryEdit: LibraryEditService;
  /** Folder creation, renames and folder access (GraphQL; docs/search.md). */
  folderEdit: FolderEditService;
  /** Deleting files and folders into the team's recycle bin, restoring and purging (docs/library.md "Recycle bin"). */
  recycleBin: RecycleBinService;
  /** Version lines: versions of a file, its cover, removing versions (docs/library.md "Version lines"). */
  versionLines: VersionLineService;
  /** File validity periods and their daily check (docs/library.md "Validity"). */
  fileValidity: FileValidityService;
  /** Custom metadata fields, custom field templates and the values files carry (docs/library.md "Custom metadata and custom fields"). */
  customMetadata: {
    fields: MetadataFieldService;
    templates: CustomFieldTemplateService;
    fileMetadata: FileMetadataService;
    fileCustomFields: FileCustomFieldService;
  };
  /** Asset search (spec 4.6 search-assets, docs/search.md). */
  assetSearch: AssetSearchService;
  /** The memo of exact search totals, keyed by library version (docs/search.md). */
  searchTotals: VersionedMemo<number>;
  /** The memo of the objects matching a colour, keyed by library version (docs/search.md). */
  colourMatches: VersionedMemo<ColourMatch>;
  /** How many files carry each tag, for the walk of a tags-only search (docs/search.md). */
  tagFileCounts: TagFileCounts;
  /** The memo of search facet counts, keyed by library version like the totals (docs/search.md "Facets"). */
  facetCounts: VersionedMemo<FacetCounts>;
  /** The memo of the ids matching a name in asset lookup, keyed by library version (docs/products.md "Asset lookup"). */
  lookupNameMatchIds: VersionedMemo<Int32Array>;
  /** Folder shares and share search (spec 4.6 search-share, `share create`). */
  shares: FolderShareService;
  /** Signs and verifies file links (the adapter layer composes their URLs, src/public-urls.ts). */
  links: LinkSigner;
  /** Derived preview images, cached in storage. */
  previews: PreviewCache;
  /** Processed images behind search `publicUrl`, cached in storage (docs/search.md). */
  derivatives: DerivativeCache;
  /** Serves what a signed file link names. */
  fileDelivery: FileDeliveryService;
}

export interface EventServices {
  /** Subscriptions of Areas C and D (spec 4.7, 4.8; docs/events.md). */
  subscriptions: SubscriptionService;
  /** Webhook delivery: attempts, retries, order per key (docs/events.md). */
  deliveries: DeliveryService;
  /** Endpoints, deliveries, replays and secrets for integrators (GraphQL, CLI; docs/events.md). */
  webhooks: WebhookAdminService;
}

/** Retention purges, each over every team, past the retention its setting or the spec gives. */
export interface Housekeeping {
  /** Idempotency records past their 24 hours; answers how many were removed. */
  purgeIdempotencyRecords(): Promise<number>;
  /** Finished webhook deliveries and their events past the replay window; answers how many deliveries were removed. */
  purgeEvents(): Promise<number>;
  /** Activity records older than ACTIVITY_RETENTION_DAYS; answers how many were removed. */
  purgeActivity(): Promise<number>;
  /** Sync feed tombstones and key role changes older than PRODUCT_CHANGES_RETENTION_DAYS. */
  purgeProductChanges(): Promise<{ purged: number; roleChangesPurged: number }>;
}

export interface PlatformServices {
  /** The heap that answers being read and written may hold at once (ANSWER_MEMORY_BUDGET_MB; docs/operations.md "Memory"). */
  answerBudget: AnswerBudget;
  /** File bytes (library files, icons, derived images): under STORAGE_DIR or in an S3 bucket (STORAGE_BACKEND). */
  storage: Storage;
  /** The one way out of the machine: callbacks and approval downloads (DESIGN.md Outbound HTTP). */
  outbound: OutboundGuard;
  /** Failed attempts counted in Redis across processes (share passwords). */
  attemptLimiter: AttemptLimiter;
}

/**
 * The public URLs of what the core signs, composed by the adapter layer that serves and parses
 * them (src/public-urls.ts): the core decides what is signed and until when, never the routes.
 */
export interface PublicUrls {
  /** A signed file link (`LinkSigner`). */
  fileLink: FileLinkUrl;
  /** The page a product share's token opens. */
  sharePage: (token: string) => string;
}

export function createCore(orm: MikroORM, config: Config, urls: PublicUrls): Core {
  const logoHosts = [new URL(config.publicBaseUrl).hostname.toLowerCase(), ...config.logoHostAllowlist];
  const brands = new BrandService({ logoHosts });
  const storage = createStorage(config);
  const categoryIcons = new CategoryIconService({ storage });
  const categories = new CategoryService({ icons: categoryIcons });
  // spec 3.2: a brand with live categories is not deleted (brand_has_dependents)
  brands.addDependentCheck((tx, brandId) => categories.hasLiveInBrand(tx, brandId));
  const templates = new InformationTemplateService();
  const links = new LinkSigner(config.linkSigningSecret, urls.fileLink);
  const previews = new PreviewCache(storage);
  const derivatives = new DerivativeCache(storage);
  const searchTotals = new VersionedMemo<number>(20_000);
  // colour matches keep ids only when few (AssetSearchService.colourIdsMax): at most 2,000,000 in all
  const colourMatches = new VersionedMemo<ColourMatch>(200, { of: (match) => match.ids?.length ?? 0, max: 2_000_000 });
  const tagFileCounts = new TagFileCounts();
  // a facet's counts are at most 50 listed values (facetLimit): weighed by them, 1,000,000 in all
  const facetCounts = new VersionedMemo<FacetCounts>(20_000, { of: (counts) => counts.values.length, max: 1_000_000 });
  const assetSearch = new AssetSearchService({ signer: links, totals: searchTotals, colourMatches, tagFileCounts, facetCounts });
  // spec 4.3: a new category gets the library default when its brand bindings allow
  categories.addCreatedHook((tx, category) => templates.onCategoryCreated(tx, category));
  // a name's match ids are kept up to 100,000 (NAME_MATCH_IDS_MAX), 4 bytes each: at most 4,000,000 in all
  const lookupNameMatchIds = new VersionedMemo<Int32Array>(1_000, { of: (ids) => ids.length, max: 4_000_000 });
  const library = new LibraryService({ signer: links, lookupMemos: { totals: searchTotals, nameMatchIds: lookupNameMatchIds } });
  const outbound = new OutboundGuard({ allowHosts: config.outboundAllowHosts });
  const attemptLimiter = new AttemptLimiter({ redisUrl: config.redisUrl, prefix: config.queuePrefix });
  const libraryImport = new LibraryImportService(storage);
  const approvalTemplates = new ApprovalTemplateService();
  const approvalEngine = new ApprovalEngine({ storage, libraryImport });
  const approvalTasks = new ApprovalTaskService({
    guard: outbound,
    storage,
    templates: approvalTemplates,
    engine: approvalEngine,
    limits: { timeoutMs: config.approvalDownloadTimeoutMs, maxBytes: config.approvalMaxAssetBytes },
  });
  const products = new ProductService({
    library,
    templates,
    cursorSecret: config.linkSigningSecret,
    changesRetentionDays: config.productChangesRetentionDays,
  });
  // spec 3.2: a category subtree with a live product is not deleted (category_has_products)
  categories.addDeleteGuard((tx, categoryIds) => products.hasLiveInCategories(tx, categoryIds));
  // spec 3.2: a brand with live products is not deleted (brand_has_dependents)
  brands.addDependentCheck((tx, brandId) => products.hasLiveInBrand(tx, brandId));
  const readVisibleProduct = (ctx: Ctx, id: number) => products.readVisible(ctx, id);
  const recycleBin = new RecycleBinService(storage);
  const downloads = new ProductDownloadService({ storage, readVisible: readVisibleProduct });
  const productShares = new ProductShareService({ secret: config.linkSigningSecret, sharePageUrl: urls.sharePage, readVisible: readVisibleProduct });
  const pendingInbound = new PendingInboundService({ imports: libraryImport, storage });
  const versionLines = new VersionLineService({ recycleBin, imports: libraryImport });
  const operatorCtx = (): UnitOfWork => withLazyUnitOfWork(orm.em, {});
  return {
    orm,
    config,
    access: new AccessService(),
    catalogue: {
      brands,
      categories,
      templates,
      products,
      categoryIcons,
      activity: { page: activityPage, purge: purgeActivity },
      downloads,
      productShares,
      sharePages: new ProductSharePageService({ shares: productShares, secret: config.linkSigningSecret, library, limiter: attemptLimiter, downloads }),
    },
    assets: {
      library,
      libraryImport,
      pendingInbound,
      uploads: new UploadService({
        storage,
        imports: libraryImport,
        pending: pendingInbound,
        versionLines,
        limits: { maxFileBytes: config.uploadMaxFileBytes, teamQuotaBytes: config.uploadTeamQuotaBytes, expirySeconds: config.uploadExpirySeconds },
      }),
      libraryEdit: new LibraryEditService({ readItem: async (tx, fileId) => (await assetSearch.findItems(tx, [fileId]))[0]! }),
      folderEdit: new FolderEditService(),
      recycleBin,
      versionLines,
      fileValidity: new FileValidityService(),
      customMetadata: {
        fields: new MetadataFieldService(),
        templates: new CustomFieldTemplateService(),
        fileMetadata: new FileMetadataService(),
        fileCustomFields: new FileCustomFieldService(),
      },
      assetSearch,
      searchTotals,
      colourMatches,
      tagFileCounts,
      facetCounts,
      lookupNameMatchIds,
      shares: new FolderShareService({ signer: links, limiter: attemptLimiter }),
      links,
      previews,
      derivatives,
      fileDelivery: new FileDeliveryService({ signer: links, storage, previews, derivatives }),
    },
    events: {
      subscriptions: new SubscriptionService({ urls: outbound }),
      deliveries: new DeliveryService({
        poster: outbound,
        settings: { retryScheduleMs: config.webhookRetryScheduleMs, attemptTimeoutMs: config.webhookTimeoutMs },
      }),
      webhooks: new WebhookAdminService(),
    },
    approvals: {
      templates: approvalTemplates,
      tasks: approvalTasks,
      engine: approvalEngine,
      actions: new ApprovalActionService({ engine: approvalEngine, tasks: approvalTasks }),
    },
    platform: { storage, outbound, attemptLimiter, answerBudget: new AnswerBudget(config.answerMemoryBudgetBytes) },
    housekeeping: {
      purgeIdempotencyRecords: () => purgeExpiredIdempotencyRecords(operatorCtx()),
      purgeEvents: () => purgeExpiredEvents(operatorCtx()),
      purgeActivity: () => purgeExpiredActivity(operatorCtx(), config.activityRetentionDays),
      purgeProductChanges: () => purgeExpiredSyncFeedLogs(operatorCtx(), config.productChangesRetentionDays),
    },
    // the unit of work is forked on first use: lean reads outside a transaction need none (sql.ts)
    ctxFor: (actor, requestId) => withLazyUnitOfWork(orm.em, { teamId: actor.teamId, actor, requestId }),
    operatorCtx,
  };
}
