import type { LibraryService } from '../../assets/files/library.service.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { checkIfMatch, type Versioned } from '../../platform/etag.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import type { TemplateGroupView } from '../templates/template.schemas.ts';
import { ProductPatch } from './product.schemas.ts';
import { draftReasonOf } from './product-fields.ts';
import { recordProductChange } from './product-history.ts';
import { allFileIds, checkedLive } from './product-media.ts';
import { type ProductRecord, productEtagRepresentation, versionedProduct } from './product-projection.ts';
import {
  applyCustomValues,
  checkMedia,
  checkReferences,
  completenessIssues,
  draftFromRecord,
  normalizeName,
  normalizeSpu,
  type ProductDraft,
} from './product-write.ts';
import { publishProduct, readProductWithLive, softDeleteProduct, unpublishProduct, updateFields } from './products.queries.ts';

const checkPatch = compileInput(ProductPatch);

/**
 * The changes to an existing product (docs/products.md): PATCH, publish, unpublish, delete. Each
 * locks the live row FOR UPDATE, checks If-Match against what it holds now, and bumps updatedAt
 * from the database clock, so sync sees every change (spec 4.5).
 */
export class ProductLifecycle {
  private readonly library: LibraryService;
  private readonly definitionOf: (tx: Ctx, record: ProductRecord) => Promise<TemplateGroupView[] | null>;

  constructor(deps: { library: LibraryService; definitionOf: (tx: Ctx, record: ProductRecord) => Promise<TemplateGroupView[] | null> }) {
    this.library = deps.library;
    this.definitionOf = deps.definitionOf;
  }

  /** PATCH: the create rules for the fields given; the template cannot change; a published product must stay complete. */
  async patch(ctx: Ctx, id: number, input: unknown, ifMatch: string | undefined): Promise<Versioned<ProductRecord>> {
    const patch = checkPatch(input);
    const name = patch.name === undefined ? undefined : normalizeName(patch.name);
    const spu = patch.spu === undefined ? undefined : normalizeSpu(patch.spu);
    return inTransaction(ctx, async (tx) => {
      const { current, live } = await this.lockForWrite(tx, id, ifMatch);
      if (patch.templateId !== undefined && patch.templateId !== current.templateId) {
        throw invalid('templateId', 'cannot change: the template version is pinned when the product is created');
      }
      const draft: ProductDraft = {
        ...draftFromRecord(current),
        ...(name !== undefined && { name }),
        ...(spu !== undefined && { spu }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.brandId !== undefined && { brandId: patch.brandId }),
        ...(patch.categoryId !== undefined && { categoryId: patch.categoryId }),
        ...(patch.ownerUserId !== undefined && { ownerUserId: patch.ownerUserId }),
        ...(patch.coverAssetId !== undefined && { coverFileId: patch.coverAssetId }),
        ...(patch.imageAssetIds !== undefined && { imageFileIds: patch.imageAssetIds }),
        ...(patch.relatedAssetIds !== undefined && { relatedFileIds: patch.relatedAssetIds }),
      };
      await checkReferences(tx, draft, {
        brandOrCategory: patch.brandId !== undefined || patch.categoryId !== undefined,
        owner: patch.ownerUserId !== undefined,
      });
      const groups = await this.definitionOf(tx, current);
      const mediaInputs = applyCustomValues(draft, groups, patch.templateFields);
      await checkMedia(tx, this.library, draft, {
        coverFileId: patch.coverAssetId,
        imageFileIds: patch.imageAssetIds,
        relatedFileIds: patch.relatedAssetIds,
        fields: mediaInputs,
      });
      // the supplied references were just checked live; the kept ones are live if they were
      const nowLive = new Map([
        ...live,
        ...checkedLive(allFileIds({ ...draft, mediaFields: draft.values.mediaFields }).filter((fid) => suppliedNow(patch, mediaInputs, fid))),
      ]);
      const issues = completenessIssues(draft, groups, nowLive);
      if (current.status === 'published' && issues.length > 0) {
        throw new DomainError('validation_failed', 'A published product must stay complete; unpublish it first to save an incomplete version', issues);
      }
      const updated = await updateFields(tx, id, draft, current.status === 'draft' ? draftReasonOf(issues, groups) : null);
      await recordProductChange(tx, id, 'updated', current, updated);
      return versionedProduct(updated, nowLive);
    });
  }

  /** Publish: the complete product (name and required template values), publishedAt set; no-op when already published. */
  async publish(ctx: Ctx, id: number, ifMatch: string | undefined): Promise<Versioned<ProductRecord>> {
    return inTransaction(ctx, async (tx) => {
      const { current, live } = await this.lockForWrite(tx, id, ifMatch);
      if (current.status === 'published') return versionedProduct(current, live);
      const issues = completenessIssues(draftFromRecord(current), await this.definitionOf(tx, current), live);
      if (issues.length > 0) throw new DomainError('validation_failed', 'The product is not complete and cannot be published', issues);
      const published = await publishProduct(tx, id);
      await recordProductChange(tx, id, 'published', current, published);
      return versionedProduct(published, live);
    });
  }

  /** Unpublish: back to draft, publishedAt null, draftReason recomputed; no-op when already a draft. */
  async unpublish(ctx: Ctx, id: number, ifMatch: string | undefined): Promise<Versioned<ProductRecord>> {
    return inTransaction(ctx, async (tx) => {
      const { current, live } = await this.lockForWrite(tx, id, ifMatch);
      if (current.status === 'draft') return versionedProduct(current, live);
      const definition = await this.definitionOf(tx, current);
      const issues = completenessIssues(draftFromRecord(current), definition, live);
      const unpublished = await unpublishProduct(tx, id, draftReasonOf(issues, definition));
      await recordProductChange(tx, id, 'unpublished', current, unpublished);
      return versionedProduct(unpublished, live);
    });
  }

  /** Soft delete: the row stays (its spu stays reserved); it leaves every list, sync and read. */
  async softDelete(ctx: Ctx, id: number, ifMatch: string | undefined): Promise<void> {
    await inTransaction(ctx, async (tx) => {
      const { current } = await this.lockForWrite(tx, id, ifMatch);
      await softDeleteProduct(tx, id);
      await recordProductChange(tx, id, 'deleted', current, current);
    });
  }

  private async lockForWrite(tx: Ctx, id: number, ifMatch: string | undefined): Promise<{ current: ProductRecord; live: Map<number, number> }> {
    return lockProductForWrite(tx, id, ifMatch);
  }
}

/** Locks the live product row and checks If-Match against its representation now (files deleted since included). */
export async function lockProductForWrite(tx: Ctx, id: number, ifMatch: string | undefined): Promise<{ current: ProductRecord; live: Map<number, number> }> {
  const read = await readProductWithLive(tx, id, { lock: true });
  if (!read) throw notFound('Product');
  const { record: current, live } = read;
  checkIfMatch(ifMatch, productEtagRepresentation(current, live));
  return { current, live };
}

/** Whether a file id was supplied by this PATCH (and so was just checked live). */
function suppliedNow(patch: ProductPatch, mediaInputs: Array<{ ids: number[] }>, id: number): boolean {
  return (
    patch.coverAssetId === id ||
    (patch.imageAssetIds?.includes(id) ?? false) ||
    (patch.relatedAssetIds?.includes(id) ?? false) ||
    mediaInputs.some((input) => input.ids.includes(id))
  );
}
