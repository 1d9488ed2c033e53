import { requirePermission } from '../../access/roles.ts';
import { admitStored, READ_WITH_SIZE_BYTES, type SizedPage, sizedPage } from '../../platform/answer-budget.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { checkIfMatch, etagOf, type Versioned } from '../../platform/etag.ts';
import { type IdempotentOutcome, withIdempotency } from '../../platform/idempotency.ts';
import { normalizePage, type Pagination, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { recordActivity } from '../activity/activity-records.ts';
import {
  type ResolvedTemplate,
  TEMPLATE_LIMITS,
  TemplateCreate,
  TemplateDelete,
  type TemplateGroupView,
  TemplatePatch,
  type TemplateVersionSummary,
  type TemplateVersionView,
  type TemplateView,
  type VersionWindow,
} from './template.schemas.ts';
import {
  bindLibraryDefaultToNewCategory,
  checkBindingSets,
  clearLibraryDefault,
  distinctIds,
  makeLibraryDefault,
  removeAllBindings,
  replaceBrandBindings,
  replaceCategoryBindings,
} from './template-bindings.ts';
import { buildDefinition, newOpaqueId } from './template-definition.ts';
import { readTemplate, readVersionState, type TemplateVersionState } from './template-read.ts';
import { resolveTemplateForProduct, type TemplateResolutionInput } from './template-resolution.ts';
import {
  countLiveTemplates,
  currentVersionId,
  findLiveTemplateWithVersionSummaries,
  insertTemplate,
  insertVersion as insertVersionRow,
  liveTemplateNamed,
  liveTemplatesBytes,
  lockLiveTemplate,
  readSizedVersionWindows,
  readTemplatesByIds,
  readVersion,
  readVersionSummaryWindows,
  readVersionWindows,
  sizedLiveTemplatesPage,
  softDeleteTemplate,
  updateTemplate,
} from './templates.queries.ts';

const checkCreate = compileInput(TemplateCreate);
const checkPatch = compileInput(TemplatePatch);
const checkDelete = compileInput(TemplateDelete);

function trimmedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > TEMPLATE_LIMITS.name) throw invalid('name', 'must be 1-30 characters after trimming');
  return trimmed;
}

/** Spec 4.4: description trimmed, at most 50 characters; a blank one is stored as null. */
function trimmedDescription(description: string | null | undefined): string | null {
  if (description === undefined || description === null) return null;
  const trimmed = description.trim();
  if (trimmed.length > TEMPLATE_LIMITS.description) throw invalid('description', 'must be at most 50 characters after trimming');
  return trimmed === '' ? null : trimmed;
}

function versioned(template: TemplateView): Versioned<TemplateView> {
  return { data: template, etag: etagOf(template) };
}

const nameInUse = () => new DomainError('name_in_use', 'A live template of this library already has this name');

async function assertNameFree(tx: Ctx, name: string, exceptId: string | null): Promise<void> {
  const taken = await liveTemplateNamed(tx, name, exceptId);
  if (taken) throw nameInUse();
}

/** Writes the next immutable version of a template (spec 3.3); the caller holds the template row. */
async function insertVersion(
  tx: Ctx,
  templateId: string,
  values: { versionId?: string; name: string; description: string | null; groups: TemplateGroupView[] },
): Promise<string> {
  const versionId = values.versionId ?? newOpaqueId('tv');
  await insertVersionRow(tx, templateId, versionId, values);
  return versionId;
}

/** Information templates with versioned definitions, bindings and the library default (spec 2.4, 3.2, 3.3, 4.4). */
export class InformationTemplateService {
  /** listTemplates: live templates, createdAt descending then id, ordinary pagination. */
  async listPage(ctx: Ctx, query: { page?: number; pageSize?: number }): Promise<SizedPage<TemplateView, Pagination>> {
    requirePermission(ctx, 'templates:read');
    const page = normalizePage(query);
    const offset = (page.page - 1) * page.pageSize;
    const sized = await sizedLiveTemplatesPage(ctx, page.pageSize, offset);
    // a page past the end carries no total: count them
    const total = sized.rows.length === 0 && offset > 0 ? await countLiveTemplates(ctx) : sized.total;
    return sizedPage(
      paginationOf(page, total),
      sized.rows,
      (ids) => readTemplatesByIds(ctx, ids),
      (t) => t.id,
    );
  }

  /** getTemplate: one live template with the ETag over fields, groups, bindings and default designation. */
  async get(ctx: Ctx, id: string): Promise<Versioned<TemplateView>> {
    requirePermission(ctx, 'templates:read');
    const template = await readTemplate(ctx, id);
    if (!template) throw notFound('Template');
    return versioned(template);
  }

  /**
   * getTemplate with the versions of one window without their definitions, read in the same
   * statement (GraphQL's `template(id) { versions { number name } }`: one round trip, as REST's read).
   */
  async getWithVersionSummaries(
    ctx: Ctx,
    id: string,
    window: Omit<VersionWindow, 'templateId'>,
  ): Promise<{ template: Versioned<TemplateView>; versions: TemplateVersionSummary[] }> {
    requirePermission(ctx, 'templates:read');
    const found = await findLiveTemplateWithVersionSummaries(ctx, id, window);
    if (!found) throw notFound('Template');
    return { template: versioned(found.template), versions: found.versions };
  }

  /** Batch read for dataloaders: live templates of the caller's team among `ids`. */
  async findByIds(ctx: Ctx, ids: readonly string[]): Promise<TemplateView[]> {
    requirePermission(ctx, 'templates:read');
    if (ctx.answer) await admitStored(ctx, await liveTemplatesBytes(ctx, ids));
    return readTemplatesByIds(ctx, ids);
  }

  /** createTemplate: seeds the system fields, writes version 1, applies bindings and default designation; idempotent with a key. */
  async create(ctx: Ctx, input: unknown, idempotencyKey?: string): Promise<IdempotentOutcome<TemplateView>> {
    requirePermission(ctx, 'templates:create');
    const body = checkCreate(input);
    const name = trimmedName(body.name);
    const description = trimmedDescription(body.description);
    const groups = buildDefinition(null, body.groups);
    const sets = { brandIds: distinctIds(body.boundBrandIds ?? []), categoryIds: distinctIds(body.boundCategoryIds ?? []) };
    return withIdempotency(ctx, { operation: 'templates.create', key: idempotencyKey, input: body }, async (tx) => {
      await assertNameFree(tx, name, null);
      await checkBindingSets(tx, sets, { brands: true, categories: true });
      const id = newOpaqueId('tpl');
      const versionId = newOpaqueId('tv');
      // the foreign key to the version is deferred: the version row follows in this transaction
      await insertTemplate(tx, id, { name, description, enabled: body.enabled ?? true, currentVersionId: versionId });
      await insertVersion(tx, id, { versionId, name, description, groups });
      if (sets.brandIds.length > 0) await replaceBrandBindings(tx, id, sets.brandIds);
      if (sets.categoryIds.length > 0) await replaceCategoryBindings(tx, id, sets.categoryIds);
      if (body.isLibraryDefault === true) await makeLibraryDefault(tx, id);
      const template = (await readTemplate(tx, id))!;
      await recordActivity(tx, 'template', id, 'created');
      return { body: template, etag: etagOf(template) };
    });
  }

  /** updateTemplate: changes the given fields and always writes a new version (spec 3.3); If-Match is checked on the locked row. */
  async update(ctx: Ctx, id: string, input: unknown, ifMatch?: string): Promise<Versioned<TemplateView>> {
    requirePermission(ctx, 'templates:update');
    const patch = checkPatch(input);
    const newName = patch.name === undefined ? undefined : trimmedName(patch.name);
    const newDescription = patch.description === undefined ? undefined : trimmedDescription(patch.description);
    return inTransaction(ctx, async (tx) => {
      const current = await this.lockForWrite(tx, id, ifMatch);
      const groups = patch.groups ? buildDefinition(current.groups, patch.groups) : current.groups;
      const name = newName ?? current.name;
      const description = newDescription === undefined ? current.description : newDescription;
      if (name !== current.name) await assertNameFree(tx, name, id);
      const sets = {
        brandIds: patch.boundBrandIds ? distinctIds(patch.boundBrandIds) : current.boundBrandIds,
        categoryIds: patch.boundCategoryIds ? distinctIds(patch.boundCategoryIds) : current.boundCategoryIds,
      };
      const supplied = { brands: patch.boundBrandIds !== undefined, categories: patch.boundCategoryIds !== undefined };
      await checkBindingSets(tx, sets, supplied);
      const versionId = await insertVersion(tx, id, { name, description, groups });
      await updateTemplate(tx, id, { name, description, enabled: patch.enabled ?? current.enabled, currentVersionId: versionId });
      if (supplied.brands) await replaceBrandBindings(tx, id, sets.brandIds);
      if (supplied.categories) await replaceCategoryBindings(tx, id, sets.categoryIds);
      if (patch.isLibraryDefault === true && !current.isLibraryDefault) await makeLibraryDefault(tx, id);
      if (patch.isLibraryDefault === false && current.isLibraryDefault) await clearLibraryDefault(tx, id);
      await recordActivity(tx, 'template', id, 'updated');
      return versioned((await readTemplate(tx, id))!);
    });
  }

  /**
   * deleteTemplate: soft delete that removes the bindings and keeps every version (spec 3.2). Deleting
   * the library default needs `replacementForLibraryDefault`: another live template, or null to clear.
   */
  async softDelete(ctx: Ctx, id: string, input: unknown, ifMatch?: string): Promise<Versioned<{ id: string }>> {
    requirePermission(ctx, 'templates:delete');
    const body = checkDelete(input ?? {});
    return inTransaction(ctx, async (tx) => {
      const current = await this.lockForWrite(tx, id, ifMatch);
      const replacement = body.replacementForLibraryDefault;
      if (current.isLibraryDefault && replacement === undefined) {
        throw invalid(
          'replacementForLibraryDefault',
          'is required when deleting the library default: another live template id, or null to leave the library without a default',
        );
      }
      if (!current.isLibraryDefault && replacement !== undefined && replacement !== null) {
        throw invalid('replacementForLibraryDefault', 'applies only when deleting the library default');
      }
      if (replacement !== undefined && replacement !== null) await this.lockReplacement(tx, id, replacement);
      await removeAllBindings(tx, id);
      await softDeleteTemplate(tx, id);
      if (replacement) await makeLibraryDefault(tx, replacement);
      await recordActivity(tx, 'template', id, 'deleted');
      const data = { id };
      return { data, etag: etagOf(data) };
    });
  }

  private async lockReplacement(tx: Ctx, deletedId: string, replacementId: string): Promise<void> {
    if (replacementId === deletedId) throw invalid('replacementForLibraryDefault', 'must be a different template than the one deleted');
    const found = await lockLiveTemplate(tx, replacementId);
    if (!found) throw invalid('replacementForLibraryDefault', 'is not a live template of this library');
  }

  /** Locks the live template row for this transaction and checks If-Match against its full representation. */
  private async lockForWrite(tx: Ctx, id: string, ifMatch: string | undefined): Promise<TemplateView> {
    const current = await readTemplate(tx, id, { forUpdate: true });
    if (!current) throw notFound('Template');
    checkIfMatch(ifMatch, current);
    return current;
  }

  /** A pinned definition (spec 2.5 templateDefinition): any version of the team, deleted templates included; needs no templates:read. */
  async getVersion(ctx: Ctx, versionId: string): Promise<TemplateVersionView> {
    const version = await readVersion(ctx, versionId);
    if (!version) throw notFound('Template version');
    return version;
  }

  /** The version a product created now would pin for a live template of the team, or null. */
  async latestVersionId(ctx: Ctx, templateId: string): Promise<string | null> {
    return currentVersionId(ctx, templateId);
  }

  /**
   * A template's version by its number (null: the current one), with whether the template is still
   * live, for template upgrades of products (docs/products.md); deleted templates included, no
   * templates:read needed (as getVersion). `lock` holds the template FOR SHARE until the transaction ends.
   */
  async versionByNumber(ctx: Ctx, templateId: string, number: number | null, options: { lock?: boolean } = {}): Promise<TemplateVersionState | null> {
    return readVersionState(ctx, templateId, number, options);
  }

  /**
   * Batch read for the GraphQL versions loader: the versions of each window (a template, the newest
   * `last` below `before`), oldest first, one list per window; only those versions are read.
   * Admitted against the caller's answer: a small read comes with its size in one statement, a
   * larger one is sized first and read once admitted.
   */
  async versionWindows(ctx: Ctx, windows: readonly VersionWindow[]): Promise<TemplateVersionView[][]> {
    requirePermission(ctx, 'templates:read');
    if (!ctx.answer) return readVersionWindows(ctx, windows);
    const sized = await readSizedVersionWindows(ctx, windows, READ_WITH_SIZE_BYTES);
    await admitStored(ctx, sized.storedBytes);
    return sized.versions ?? readVersionWindows(ctx, windows);
  }

  /**
   * The versions of each window without their definitions (number, name, description, when): a
   * list of versions whose groups are not asked reads neither the definitions nor their size.
   */
  async versionSummaryWindows(ctx: Ctx, windows: readonly VersionWindow[]): Promise<TemplateVersionSummary[][]> {
    requirePermission(ctx, 'templates:read');
    return readVersionSummaryWindows(ctx, windows);
  }

  /** Spec 4.5 template resolution at product creation; products call this inside their transaction. */
  async resolveForProduct(ctx: Ctx, input: TemplateResolutionInput): Promise<ResolvedTemplate | null> {
    return resolveTemplateForProduct(ctx, input);
  }

  /** Spec 4.3: the category-created hook binding the library default to a new category. */
  async onCategoryCreated(tx: Ctx, category: { id: number; brandId: number }): Promise<void> {
    await bindLibraryDefaultToNewCategory(tx, category);
  }
}
