import { isMemberOfTeam } from '../../access/members.queries.ts';
import type { LibraryService } from '../../assets/files/library.service.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { type FieldIssue, invalid, invalidFields } from '../../platform/errors.ts';
import { lockLiveBrandForShare } from '../brands/brands.queries.ts';
import { liveCategoryBrand } from '../categories/categories.queries.ts';
import type { TemplateGroupView } from '../templates/template.schemas.ts';
import { PRODUCT_LIMITS, type ProductCreate } from './product.schemas.ts';
import { type CustomValues, mergeCustomValues, missingRequired } from './product-fields.ts';
import { checkMediaTotal, checkMediaWrite } from './product-media.ts';
import { effectiveCoverId, type LiveFiles, type ProductRecord } from './product-projection.ts';

/*
 * The field rules shared by create and PATCH (spec 4.5 ProductCreate; docs/products.md): scalar
 * normalization, brand/category/owner references, custom values, media and completeness; the
 * statements that write a product are in products.queries.ts. Every function runs in the caller's transaction.
 */

/** Lengths count code points, as PostgreSQL varchar does. */
function codePoints(value: string): number {
  return [...value].length;
}

/** Spec 4.5: name trimmed, at most 255; may be empty on a draft. */
export function normalizeName(name: string): string {
  const trimmed = name.trim();
  if (codePoints(trimmed) > PRODUCT_LIMITS.name) throw invalid('name', 'must be at most 255 characters after trimming');
  return trimmed;
}

/** Spec 4.5: spu trimmed, at most 64; null or blank clears. */
export function normalizeSpu(spu: string | null): string | null {
  if (spu === null) return null;
  const trimmed = spu.trim();
  if (trimmed === '') return null;
  if (codePoints(trimmed) > PRODUCT_LIMITS.spu) throw invalid('spu', 'must be at most 64 characters after trimming');
  return trimmed;
}

/** The product as a write would leave it; the service fills it from the input and the current row. */
export interface ProductDraft {
  name: string;
  spu: string | null;
  description: string | null;
  brandId: number | null;
  categoryId: number | null;
  ownerUserId: number | null;
  values: CustomValues;
  coverFileId: number | null;
  imageFileIds: number[];
  relatedFileIds: number[];
}

/**
 * Checks brand, category and owner references that the write sets. A set brand is locked FOR
 * SHARE: category tree writes and brand deletion lock the same row exclusively, so a product can
 * never land in a brand or category that is being deleted (spec 3.2 guards see it, or it sees them).
 */
export async function checkReferences(tx: Ctx, draft: ProductDraft, changed: { brandOrCategory: boolean; owner: boolean }): Promise<void> {
  if (changed.brandOrCategory && draft.brandId !== null) {
    if (!(await lockLiveBrandForShare(tx, draft.brandId))) throw invalid('brandId', 'is not a live brand of your library');
  }
  if (changed.brandOrCategory && draft.categoryId !== null) {
    if (draft.brandId === null) throw invalid('categoryId', 'needs a brand: a category belongs to a brand, so set brandId (or clear categoryId)');
    const brandId = await liveCategoryBrand(tx, draft.categoryId);
    if (brandId === null) throw invalid('categoryId', 'is not a live category of your library');
    if (brandId !== draft.brandId) throw invalid('categoryId', 'belongs to another brand than the product');
  }
  if (changed.owner && draft.ownerUserId !== null) {
    if (!(await isMemberOfTeam(tx, tx.teamId, draft.ownerUserId))) throw invalid('ownerUserId', 'is not a member of your team');
  }
}

/** Applies `templateFields` (shallow merge) onto the draft; throws 422 naming every bad value. */
export function applyCustomValues(draft: ProductDraft, groups: TemplateGroupView[] | null, input: Record<string, unknown> | undefined) {
  const merged = mergeCustomValues(groups, draft.values, input ?? {});
  if (merged.issues.length > 0) throw invalidFields(merged.issues);
  draft.values = merged.values;
  return merged.media;
}

/** The media rules of a write (count first: it needs no lookup), then the library lookup of the supplied ids. */
export async function checkMedia(tx: Ctx, library: LibraryService, draft: ProductDraft, supplied: Parameters<typeof checkMediaWrite>[2]): Promise<void> {
  checkMediaTotal({ ...draft, mediaFields: draft.values.mediaFields });
  await checkMediaWrite(tx, library, supplied);
}

/** What keeps the draft from being published (spec 3.1), given which of its files are live. */
export function completenessIssues(draft: ProductDraft, groups: TemplateGroupView[] | null, liveFileIds: LiveFiles): FieldIssue[] {
  const cover = effectiveCoverId(draft);
  return missingRequired(groups, {
    name: draft.name,
    spu: draft.spu,
    hasCover: cover !== null && liveFileIds.has(cover),
    values: draft.values,
    liveFileIds,
  });
}

/** A new draft from a validated ProductCreate body: name and spu normalized, omitted fields at their defaults. */
export function draftFromCreate(body: ProductCreate): ProductDraft {
  return {
    name: body.name === undefined ? '' : normalizeName(body.name),
    spu: body.spu === undefined ? null : normalizeSpu(body.spu),
    description: body.description ?? null,
    brandId: body.brandId ?? null,
    categoryId: body.categoryId ?? null,
    ownerUserId: body.ownerUserId ?? null,
    values: { templateFields: {}, mediaFields: {} },
    coverFileId: body.coverAssetId ?? null,
    imageFileIds: body.imageAssetIds ?? [],
    relatedFileIds: body.relatedAssetIds ?? [],
  };
}

/** The current product as a draft to patch: omitted properties stay unchanged. */
export function draftFromRecord(record: ProductRecord): ProductDraft {
  return {
    name: record.name,
    spu: record.spu,
    description: record.description,
    brandId: record.brandId,
    categoryId: record.categoryId,
    ownerUserId: record.ownerUserId,
    values: { templateFields: record.templateFields, mediaFields: record.mediaFields },
    coverFileId: record.coverFileId,
    imageFileIds: record.imageFileIds,
    relatedFileIds: record.relatedFileIds,
  };
}
