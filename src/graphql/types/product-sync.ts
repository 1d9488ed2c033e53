import { PRODUCT_TOMBSTONE_REASONS, type ProductTombstone, type SyncPagination } from '../../core/catalogue/products/product.schemas.ts';
import { isTombstone, type SyncItem } from '../../core/catalogue/products/product-sync.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import { cursorPageCost, PAGE_ITEMS_COST } from '../costs.ts';
import { enumFromCore } from '../enums.ts';
import { ProductRef, ProductStatusEnum } from './product.ts';

/*
 * Incremental sync and the sync feed over GraphQL (docs/products.md "Incremental sync" and "Sync
 * feed"): productSync calls the core operation REST's GET /v1/products?sync=true calls, with the
 * same arguments; bounds, order, cursor binding, visibility and every refusal are the core's.
 */

const SIX_DIGITS = 'RFC 3339 in UTC with six fractional digits, e.g. `2026-11-22T15:03:19.632639Z`';

const TombstoneReasonEnum = enumFromCore('ProductTombstoneReason', {
  description: 'Why a sync feed item tells you to remove your copy of a product.',
  values: PRODUCT_TOMBSTONE_REASONS,
  describe: {
    deleted: 'The product was deleted.',
    hidden:
      "The product left your role's view: unpublished (for view_only and usable keys), or a draft after your key's role lost sight of drafts since the cycle's updatedAfter.",
  },
});

const ProductTombstoneRef = builder.objectRef<ProductTombstone>('ProductTombstone').implement({
  description:
    'A sync feed item (productSync with changes: true only; REST: the ProductTombstone item of GET /v1/products?sync=true&changes=true): the product with this id is no longer yours to keep; remove your copy.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The product id.' }),
    removed: t.boolean({ description: 'Always true: remove your copy of this product.', resolve: () => true }),
    reason: t.field({ type: TombstoneReasonEnum, description: 'Why it went away.', resolve: (tombstone) => tombstone.reason }),
    at: t.exposeString('at', {
      description: `When it went away, ${SIX_DIGITS}: this item's position in the sync order (for a role change, the cycle's updatedAfter).`,
    }),
  }),
});

const ProductSyncItemRef = builder.unionType('ProductSyncItem', {
  description:
    'An item of a sync page, in (updatedAt or at, id) ascending order: a Product (its current state; replace your copy) or, only with changes: true, a ProductTombstone (remove your copy). Select each with an inline fragment (`... on Product { id updatedAt }`, `... on ProductTombstone { id reason at }`) and apply the items in page order.',
  types: [ProductRef, ProductTombstoneRef],
  resolveType: (item: SyncItem) => (isTombstone(item) ? ProductTombstoneRef : ProductRef),
});

const SyncPaginationRef = builder.objectRef<SyncPagination>('SyncPagination').implement({
  description: 'Synchronization paging (spec 2.1): follow nextCursor until it is null, then save syncedUntil.',
  fields: (t) => ({
    pageSize: t.exposeInt('pageSize', { description: 'Items per page of this scan (1-100), bound in the cursor.' }),
    syncedUntil: t.exposeString('syncedUntil', {
      description: `The scan's fixed exclusive upper bound (the first page's database time minus 30 seconds), ${SIX_DIGITS}. Once nextCursor is null, save it unchanged and send it as the next cycle's updatedAfter.`,
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Send it as cursor for the next page; null on the last page. A page may be short or empty and still have one: follow it until null.',
    }),
    hasMore: t.exposeBoolean('hasMore', { description: 'true exactly when nextCursor is not null.' }),
  }),
});

const ProductSyncPageRef = builder.objectRef<{ items: SyncItem[]; pagination: SyncPagination }>('ProductSyncPage').implement({
  description: 'A page of an incremental sync scan (REST: GET /v1/products?sync=true).',
  fields: (t) => ({
    items: t.field({
      type: [ProductSyncItemRef],
      description: 'The items of this page: products, and with changes: true also tombstones, in one ascending order.',
      complexity: PAGE_ITEMS_COST,
      resolve: (page) => page.items,
    }),
    pagination: t.field({ type: SyncPaginationRef, description: 'Where the scan stands.', resolve: (page) => page.pagination }),
  }),
});

builder.queryFields((t) => ({
  productSync: t.field({
    type: ProductSyncPageRef,
    description:
      'Incremental sync of the products you may see (REST: GET /v1/products?sync=true, same rules): (updatedAt, id) ascending within [updatedAfter, syncedUntil), where syncedUntil is fixed by the first page at the database time minus 30 seconds; continue with pagination.nextCursor until it is null. With changes: true (the sync feed) pages also carry tombstones and products changed through their media files or category (docs/products.md "Sync feed"). view_only and usable keys see published products only. Errors: validation_failed with details naming the argument (a cursor not issued by this service, issued to another key or role, or bound to other arguments; pageSize below 1; a bad updatedAfter; changes with search; with changes: true, an updatedAfter older than the change log retention, then run a full scan). Query cost: the items count pageSize times (default 20; a continuation without pageSize counts 100).',
    args: {
      cursor: t.arg.string({
        description:
          "The previous page's nextCursor (1-8192 characters, opaque); omit it on a cycle's first page. It binds your key, its role, the bounds, the filters, pageSize and changes: on a continuation omit them or repeat equivalent values; a different one is validation_failed naming it.",
      }),
      pageSize: t.arg.int({ description: 'Items per page, from 1 (default 20; values above 100 are capped at 100). Bound in the cursor.' }),
      updatedAfter: t.arg.string({
        description:
          "Inclusive lower bound: RFC 3339 with Z or an offset and 0-6 fractional digits; send the previous cycle's syncedUntil unchanged. Omit it for a full scan. Bound in the cursor. With changes: true it must lie within the change log retention (PRODUCT_CHANGES_RETENTION_DAYS, 400 days by default): an older one, sent or carried by the cursor, is validation_failed on updatedAfter; then run a full scan (no updatedAfter) and replace your copies with its result.",
      }),
      changes: t.arg.boolean({
        description:
          'The sync feed opt-in (default false): true adds ProductTombstone items (products deleted, or gone from your view) and products changed through a linked entity (a media file renamed, replaced or recycled; a category moved or renamed), in the same order under the same syncedUntil. Not with search (validation_failed on changes). Bound in the cursor.',
      }),
      search: t.arg.string({
        description:
          'Name, spu or the library name of a referenced file contains this text (case-insensitive, trimmed, at most 1024 characters). Bound in the cursor.',
      }),
      brandId: t.arg.int({ description: 'Only products of this brand (tombstones ignore it). Bound in the cursor.' }),
      categoryId: t.arg.int({ description: 'Only products of exactly this category, not its descendants (tombstones ignore it). Bound in the cursor.' }),
      status: t.arg({ type: ProductStatusEnum, description: 'Only products in this status; never widens what your role may see. Bound in the cursor.' }),
    },
    complexity: cursorPageCost,
    resolve: async (_root, args, gql) => {
      const { changes, ...given } = withoutNulls(args);
      // the core reads the REST query's spelling: sync and changes as 'true' / 'false'
      const query = { ...given, sync: 'true', ...(changes === undefined ? {} : { changes: String(changes) }) };
      const result = await gql.core.catalogue.products.list(gql.ctx, query);
      // with sync=true the core always answers with a sync page
      if (result.mode !== 'sync') throw new Error('productSync: expected a sync page');
      return collectPage(gql.ctx, result.page);
    },
  }),
}));
