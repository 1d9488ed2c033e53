import type { MediaObject } from '../../assets/files/library.schemas.ts';
import { etagOf, type Versioned } from '../../platform/etag.ts';
import type { TemplateGroupView } from '../templates/template.schemas.ts';
import type { ProductDetail, ProductSummary } from './product.schemas.ts';

/**
 * A product's references that resolve to a live file, each to the file shown for it: itself, or
 * for a hidden version of a version line, the line's cover (docs/library.md "Version lines").
 */
export type LiveFiles = ReadonlyMap<number, number>;

/**
 * A product as stored: scalars plus media references as file-path ids. It is what every product
 * read and write of the core answers (and what the idempotency record keeps); REST projects it into
 * the spec 2.5 views with summaryOf / detailOf, GraphQL resolves its fields through loaders.
 */
export interface ProductRecord extends Omit<ProductSummary, 'cover' | 'images' | 'relatedAssets'> {
  // templateFields (inherited) holds the custom values other than image/file
  /** Custom image/file values: file-path ids per field id. */
  mediaFields: Record<string, number[]>;
  /** The explicit cover; null means "the first image". */
  coverFileId: number | null;
  imageFileIds: number[];
  relatedFileIds: number[];
}

/** Spec 4.5: without an explicit cover, the first image is the cover. */
export function effectiveCoverId(record: Pick<ProductRecord, 'coverFileId' | 'imageFileIds'>): number | null {
  return record.coverFileId ?? record.imageFileIds[0] ?? null;
}

/** Every file-path id a product references (deduplicated), for one batched media lookup per page. */
export function mediaIdsOf(records: Iterable<ProductRecord>): number[] {
  const ids = new Set<number>();
  for (const r of records) {
    const cover = effectiveCoverId(r);
    if (cover !== null) ids.add(cover);
    for (const id of r.imageFileIds) ids.add(id);
    for (const id of r.relatedFileIds) ids.add(id);
    for (const list of Object.values(r.mediaFields)) for (const id of list) ids.add(id);
  }
  return [...ids];
}

/** Spec 4.5 media count: cover (when explicit), images, related assets and every custom media value. */
export function mediaReferenceCount(r: Pick<ProductRecord, 'coverFileId' | 'imageFileIds' | 'relatedFileIds' | 'mediaFields'>): number {
  let count = (r.coverFileId === null ? 0 : 1) + r.imageFileIds.length + r.relatedFileIds.length;
  for (const list of Object.values(r.mediaFields)) count += list.length;
  return count;
}

/** Keys sorted, so a representation (and its ETag) does not depend on jsonb's key order. */
function sortedKeys<T>(object: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Spec 2.5 "unresolved media": what a reference shows when its file is not live (in the recycle
 * bin, or deleted for good). The slot stays, so a client sees that something was there.
 */
export const UNRESOLVED_MEDIA: MediaObject = { id: null, name: null, mimeType: null, size: null, width: null, height: null, duration: null, previewUrl: null };

/**
 * The representation with each media reference resolved by `resolve`, or `unresolved` when its
 * file is not live (docs/products.md "Media"): every slot is kept in its place.
 */
function project<M>(
  record: ProductRecord,
  resolve: (id: number) => M | null,
  unresolved: M,
): Omit<ProductSummary, 'cover' | 'images' | 'relatedAssets'> & { cover: M | null; images: M[]; relatedAssets: M[] } {
  const present = (ids: number[]) => ids.map((id) => resolve(id) ?? unresolved);
  const cover = effectiveCoverId(record);
  const media = Object.fromEntries(Object.entries(record.mediaFields).map(([field, ids]) => [field, present(ids)]));
  return {
    id: record.id,
    name: record.name,
    spu: record.spu,
    description: record.description,
    status: record.status,
    brandId: record.brandId,
    categoryId: record.categoryId,
    ownerUserId: record.ownerUserId,
    publishedAt: record.publishedAt,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    draftReason: record.draftReason,
    templateId: record.templateId,
    templateVersionId: record.templateVersionId,
    templateFields: sortedKeys({ ...record.templateFields, ...media }) as Record<string, unknown>,
    cover: cover === null ? null : (resolve(cover) ?? unresolved),
    images: present(record.imageFileIds),
    relatedAssets: present(record.relatedFileIds),
  };
}

/**
 * The strong ETag of a product: over its representation with media as ids (signed links change
 * with every read, the product does not). A file that stops being live turns its id into null in
 * the representation, and so changes the ETag, exactly as a client sees it become unresolved.
 */
export function productEtag(record: ProductRecord, liveFileIds: LiveFiles): string {
  return etagOf(productEtagRepresentation(record, liveFileIds));
}

/** What a product read or write answers: the record with its ETag (each adapter projects the record for its wire). */
export function versionedProduct(record: ProductRecord, liveFileIds: LiveFiles): Versioned<ProductRecord> {
  return { data: record, etag: productEtag(record, liveFileIds) };
}

/** What the ETag hashes (and If-Match is checked against): the representation with media as ids. */
export function productEtagRepresentation(record: ProductRecord, liveFileIds: LiveFiles): unknown {
  return project<number | null>(record, (id) => liveFileIds.get(id) ?? null, null);
}

/** Spec 2.5 ProductSummary: media objects for live files of the team (`media` from one batched lookup). */
export function summaryOf(record: ProductRecord, media: ReadonlyMap<number, MediaObject>): ProductSummary {
  return project(record, (id) => media.get(id) ?? null, UNRESOLVED_MEDIA);
}

/** Spec 2.5 ProductDetail: the summary plus the pinned definition (null without a template). */
export function detailOf(record: ProductRecord, media: ReadonlyMap<number, MediaObject>, groups: TemplateGroupView[] | null): ProductDetail {
  return { ...summaryOf(record, media), templateDefinition: groups === null ? null : { groups } };
}
