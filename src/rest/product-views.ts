import type { ProductDetail, ProductSummary } from '../core/catalogue/products/product.schemas.ts';
import { detailOf, mediaIdsOf, type ProductRecord, summaryOf } from '../core/catalogue/products/product-projection.ts';
import { isTombstone, type SyncItem } from '../core/catalogue/products/product-sync.ts';
import type { Core } from '../core/core.ts';
import type { Ctx } from '../core/platform/ctx.ts';
import type { Versioned } from '../core/platform/etag.ts';

/*
 * The spec 2.5 views REST answers, projected from the records the core's product operations return:
 * media objects of the files live now (one lookup per batch: signed links are made per answer, and a
 * replayed create shows only media still valid) and, for a detail, the pinned definition. GraphQL
 * resolves the same fields through its loaders instead.
 */

/** A batch of a products page as ProductSummary items; tombstones (sync feed only) pass through as they are. */
export async function productSummaries<T extends SyncItem>(core: Core, ctx: Ctx, items: T[]): Promise<Array<ProductSummary | Exclude<T, ProductRecord>>> {
  const records = items.filter((item): item is T & ProductRecord => !isTombstone(item));
  const media = await core.assets.library.mediaFor(ctx, mediaIdsOf(records));
  return items.map((item) => (isTombstone(item) ? (item as Exclude<T, ProductRecord>) : summaryOf(item as T & ProductRecord, media)));
}

/** A product's ProductDetail with the ETag the core computed for its record. */
export async function productDetail(core: Core, ctx: Ctx, product: Versioned<ProductRecord>): Promise<Versioned<ProductDetail>> {
  const record = product.data;
  const [media, version] = await Promise.all([
    core.assets.library.mediaFor(ctx, mediaIdsOf([record])),
    record.templateVersionId === null ? null : core.catalogue.templates.getVersion(ctx, record.templateVersionId),
  ]);
  return { data: detailOf(record, media, version?.groups ?? null), etag: product.etag };
}
