import type { LibraryFileView } from '../../assets/files/library.schemas.ts';
import type { LibraryService } from '../../assets/files/library.service.ts';
import { visibleFileIds } from '../../assets/versions/version-lines.queries.ts';
import { mapPage, type SizedPage, sizedItems } from '../../platform/answer-budget.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, type FieldIssue, invalid, invalidFields, isDomainError } from '../../platform/errors.ts';
import type { Versioned } from '../../platform/etag.ts';
import { normalizePage, type Pagination, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import type { InformationTemplateService } from '../templates/information-template.service.ts';
import type { TemplateFieldView, TemplateGroupView, TemplateVersionView } from '../templates/template.schemas.ts';
import { type CustomValues, draftReasonOf, fieldsOf, mergeCustomValues } from './product-fields.ts';
import { recordProductChange } from './product-history.ts';
import { lockProductForWrite } from './product-lifecycle.ts';
import { fieldLimitProblem } from './product-media.ts';
import { type LiveFiles, mediaIdsOf, type ProductRecord, versionedProduct } from './product-projection.ts';
import { completeListed, listedRecordBytes } from './product-read.ts';
import { completenessIssues, draftFromRecord } from './product-write.ts';
import { readPinnedProductsPage, repinTemplateVersion, updateFields } from './products.queries.ts';
import {
  type FieldDiff,
  type ProductUpgradeItem,
  TemplateUpgradeQuery,
  type TemplateUpgradeReport,
  TemplateUpgradeRequest,
  type TemplateUpgradesPreview,
  TemplateUpgradesQuery,
  type ValueFinding,
} from './template-upgrade.schemas.ts';

/*
 * Template upgrades (docs/products.md "Template upgrades"): a product keeps the template version it
 * pinned (spec 3.3) until someone moves it, one product at a time, to a newer version of the same
 * template. The preview says what would happen and changes nothing; the upgrade does exactly that in
 * one transaction. Values are judged by the same validation a write uses (mergeCustomValues for
 * types and options, fieldLimitProblem for files, completenessIssues for publishing), applied to the
 * target version: there is no second set of rules.
 */

const checkQuery = compileInput(TemplateUpgradeQuery);
const checkRequest = compileInput(TemplateUpgradeRequest);
const checkBulkQuery = compileInput(TemplateUpgradesQuery);

/** The pinned version and the one to move to, both of the product's template. */
interface UpgradeTarget {
  templateId: string;
  from: TemplateVersionView;
  to: TemplateVersionView;
}

/** One product judged against the target version: the report, and the values the upgrade would write. */
interface Assessment {
  findings: ProductUpgradeItem;
  /** The current values that carry over (valid in the target version). */
  carried: CustomValues;
  /** The issues that keep the upgraded product from being published. */
  missing: FieldIssue[];
}

/** What the files of the products being judged are: live files with their type and size, and what each reference shows. */
interface FileFacts {
  files: ReadonlyMap<number, LibraryFileView>;
  live: LiveFiles;
}

function summary(field: TemplateFieldView) {
  return { id: field.id, key: field.key, name: field.name, type: field.type, required: field.required };
}

/** Fields added, removed and retyped between two definitions, by stable field id, in the target's (or pinned) order. */
export function definitionDiff(from: readonly TemplateGroupView[], to: readonly TemplateGroupView[]): FieldDiff {
  const before = fieldsOf(from);
  const after = fieldsOf(to);
  return {
    added: [...after.values()].filter((f) => !before.has(f.id)).map(summary),
    removed: [...before.values()].filter((f) => !after.has(f.id)).map(summary),
    retyped: [...after.values()]
      .filter((f) => before.has(f.id) && before.get(f.id)!.type !== f.type)
      .map((f) => ({ id: f.id, key: f.key, name: f.name, fromType: before.get(f.id)!.type, toType: f.type })),
  };
}

/** Every custom value a product holds, media as file-path id lists, keyed by field id. */
function storedValues(record: ProductRecord): Map<string, unknown> {
  return new Map<string, unknown>([...Object.entries(record.templateFields), ...Object.entries(record.mediaFields)]);
}

/**
 * Judges one product's values against the target version: values of removed fields drop; the
 * others go through the write validation of the target version (mergeCustomValues) and, for
 * media, the target field's file limits on the files still in the library (a reference to a file
 * no longer live is kept, as any write keeps it). Completeness is judged on what carries over.
 */
function assess(record: ProductRecord, target: UpgradeTarget, facts: FileFacts): Assessment {
  const pinned = fieldsOf(target.from.groups);
  const next = fieldsOf(target.to.groups);
  const values = storedValues(record);
  const finding = (fieldId: string, label: string, reason: string): ValueFinding => ({
    field: `templateFields.${fieldId}`,
    fieldId,
    name: label,
    value: values.get(fieldId),
    reason,
  });
  const removedValues: ValueFinding[] = [];
  const kept: Record<string, unknown> = {};
  for (const [fieldId, value] of values) {
    if (next.has(fieldId)) kept[fieldId] = value;
    else removedValues.push(finding(fieldId, pinned.get(fieldId)?.name ?? fieldId, `version ${target.to.number} has no such field: the value is dropped`));
  }
  const merged = mergeCustomValues(target.to.groups, { templateFields: {}, mediaFields: {} }, kept);
  const reasons = new Map<string, string[]>();
  const note = (fieldId: string, reason: string) => reasons.set(fieldId, [...(reasons.get(fieldId) ?? []), reason]);
  for (const issue of merged.issues) note(issue.field.slice('templateFields.'.length), issue.message);
  for (const input of merged.media) {
    for (const id of input.ids) {
      const file = facts.files.get(id);
      const problem = file ? fieldLimitProblem(input, file) : null;
      if (problem) note(input.field.id, `${problem} ("${input.field.name}", a ${input.field.type} field)`);
    }
  }
  const carried: CustomValues = { templateFields: { ...merged.values.templateFields }, mediaFields: { ...merged.values.mediaFields } };
  const invalidValues: ValueFinding[] = [];
  for (const [fieldId, messages] of reasons) {
    delete carried.templateFields[fieldId];
    delete carried.mediaFields[fieldId];
    invalidValues.push(finding(fieldId, next.get(fieldId)?.name ?? fieldId, messages.join('; ')));
  }
  const missing = completenessIssues({ ...draftFromRecord(record), values: carried }, target.to.groups, facts.live);
  const published = record.status === 'published';
  const blocking = blockingIssues(invalidValues, published ? missing : [], new Set());
  return {
    findings: {
      productId: record.id,
      status: record.status,
      removedValues,
      invalidValues,
      publishable: missing.length === 0,
      missing,
      canStayPublished: published ? missing.length === 0 : null,
      ready: blocking.length === 0,
      blocking,
    },
    carried,
    missing,
  };
}

/**
 * What refuses an upgrade, as its 422 details: each invalid value `drop` does not name, and for a
 * published product what the upgraded product would lack (judged with every invalid value dropped).
 */
function blockingIssues(invalidValues: readonly ValueFinding[], missingWhilePublished: readonly FieldIssue[], dropped: ReadonlySet<string>): FieldIssue[] {
  return [
    ...invalidValues.filter((v) => !dropped.has(v.fieldId)).map((v) => ({ field: v.field, message: `${v.reason}; name ${v.fieldId} in drop to clear it` })),
    ...missingWhilePublished.map((m) => ({ field: m.field, message: `${m.message}: the product is published and must stay complete (unpublish it first)` })),
  ];
}

/** The live library files (type and size) among the references of some products, in one lookup. */
async function libraryFilesOf(ctx: Ctx, library: LibraryService, records: readonly ProductRecord[]): Promise<Map<number, LibraryFileView>> {
  const ids = mediaIdsOf(records);
  return new Map(ids.length === 0 ? [] : (await library.findFilesByIds(ctx, ids)).map((f) => [f.id, f]));
}

/** The file facts of a set of products in two lookups: live files with type and size, and what each reference shows. */
async function fileFactsOf(ctx: Ctx, library: LibraryService, records: readonly ProductRecord[]): Promise<FileFacts> {
  const ids = mediaIdsOf(records);
  const [files, live] = await Promise.all([libraryFilesOf(ctx, library, records), ids.length === 0 ? new Map<number, number>() : visibleFileIds(ctx, ids)]);
  return { files, live };
}

/**
 * The pinned version and the target of a product's template: `to` must be a version of the same,
 * still live template (the versions of a deleted template are retired: kept only for the products
 * that pinned them), newer than the pinned one.
 */
async function targetOf(
  ctx: Ctx,
  templates: InformationTemplateService,
  from: TemplateVersionView,
  to: number | undefined,
  options: { lock?: boolean } = {},
): Promise<UpgradeTarget> {
  const state = await templates.versionByNumber(ctx, from.templateId, to ?? null, options);
  if (!state?.live)
    throw invalid('to', `the template ${from.templateId} was deleted: its versions are retired and kept only for the products that pinned them`);
  if (!state.version) throw invalid('to', `is not a version of template ${from.templateId}: its versions are 1 to ${state.currentNumber}`);
  if (state.version.number <= from.number) {
    throw invalid('to', `must be newer than the pinned version ${from.number} (the template's current version is ${state.currentNumber})`);
  }
  return { templateId: from.templateId, from, to: state.version };
}

/** What a preview says of the versions themselves, whichever products it covers. */
function targetHead(target: UpgradeTarget): Omit<TemplateUpgradesPreview, 'products'> {
  return {
    templateId: target.templateId,
    from: { versionId: target.from.id, number: target.from.number },
    to: { versionId: target.to.id, number: target.to.number },
    fields: definitionDiff(target.from.groups, target.to.groups),
  };
}

/** Rewrites a stale If-Match refusal to name the header, as this route requires it. */
async function withIfMatchNamed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isDomainError(e) && e.code === 'precondition_failed') {
      throw new DomainError('precondition_failed', e.message, [
        { field: 'If-Match', message: "does not match the product's current ETag; read the product again" },
      ]);
    }
    throw e;
  }
}

/** The `drop` entries that name no value this upgrade would drop or refuse: 422 on each `drop[i]`. */
function checkDrop(drop: readonly string[], findings: ProductUpgradeItem, target: UpgradeTarget, record: ProductRecord): void {
  const droppable = new Set([...findings.invalidValues, ...findings.removedValues].map((v) => v.fieldId));
  const pinned = fieldsOf(target.from.groups);
  const values = storedValues(record);
  const issues: FieldIssue[] = [];
  drop.forEach((fieldId, i) => {
    if (droppable.has(fieldId)) return;
    const field = pinned.get(fieldId);
    const message = !field
      ? `${fieldId} is not a field of the pinned template version`
      : !values.has(fieldId)
        ? `${fieldId} ("${field.name}") has no value to drop`
        : `${fieldId} ("${field.name}") is valid in version ${target.to.number} and carries over; clear it with PATCH instead`;
    issues.push({ field: `drop[${i}]`, message });
  });
  if (issues.length > 0) throw invalidFields(issues);
}

/** Previews and performs template upgrades; ProductService exposes them after its permission and visibility checks. */
export class ProductTemplateUpgrades {
  private readonly library: LibraryService;
  private readonly templates: InformationTemplateService;

  constructor(deps: { library: LibraryService; templates: InformationTemplateService }) {
    this.library = deps.library;
    this.templates = deps.templates;
  }

  /** The pinned version of a product with a template; 422 on `to` without one (there is nothing to upgrade). */
  private async pinnedOf(ctx: Ctx, record: ProductRecord): Promise<TemplateVersionView> {
    if (record.templateVersionId === null) throw invalid('to', 'the product has no template, so there is no version to move to');
    return this.templates.getVersion(ctx, record.templateVersionId);
  }

  /** What moving a product (already read within the caller's visibility) to version `to` would do; changes nothing. */
  async preview(ctx: Ctx, record: ProductRecord, query: unknown): Promise<TemplateUpgradeReport> {
    const { to } = checkQuery(query ?? {});
    const target = await targetOf(ctx, this.templates, await this.pinnedOf(ctx, record), to);
    const { findings } = assess(record, target, await fileFactsOf(ctx, this.library, [record]));
    return { ...findings, ...targetHead(target) };
  }

  /**
   * Moves a product to version `to` in one transaction: the product row is locked and If-Match
   * (required) checked against it, the template row held FOR SHARE, the values judged as the
   * preview judges them; refused with the preview's blocking issues unless `drop` names every
   * invalid value. Writes the values that carry over, the new pin, draftReason, history and activity.
   */
  async apply(ctx: Ctx, id: number, query: unknown, input: unknown, ifMatch: string | undefined): Promise<Versioned<ProductRecord>> {
    const { to } = checkQuery(query ?? {});
    const { drop = [] } = checkRequest(input ?? {});
    if (ifMatch === undefined) throw invalid('If-Match', "is required: send the product's ETag from your last read (and preview) of it");
    return inTransaction(ctx, async (tx) => {
      const { current, live } = await withIfMatchNamed(() => lockProductForWrite(tx, id, ifMatch));
      const target = await targetOf(tx, this.templates, await this.pinnedOf(tx, current), to, { lock: true });
      // the lock already read which references are live
      const { findings, carried, missing } = assess(current, target, { files: await libraryFilesOf(tx, this.library, [current]), live });
      checkDrop(drop, findings, target, current);
      const refused = blockingIssues(findings.invalidValues, current.status === 'published' ? missing : [], new Set(drop));
      if (refused.length > 0) {
        throw new DomainError(
          'validation_failed',
          `The product cannot move to version ${target.to.number} as it stands; see the template-upgrade preview`,
          refused,
        );
      }
      await repinTemplateVersion(tx, id, target.to.id);
      const draftReason = current.status === 'draft' ? draftReasonOf(missing, target.to.groups) : null;
      const upgraded = await updateFields(tx, id, { ...draftFromRecord(current), values: carried }, draftReason);
      await recordProductChange(tx, id, 'template_upgraded', current, upgraded);
      // the upgrade keeps or drops references, never adds one: the lock's live files cover them all
      return versionedProduct(upgraded, live);
    });
  }

  /**
   * The preview for every product pinned to version `from` of a template, one bounded page at a
   * time; changes nothing. The page is chosen with the products' light columns and sized by their
   * template fields (up to about 1 MB a product, and a finding may repeat any of its values): each
   * batch is read whole and assessed while the answer is written (platform/answer-budget.ts). A
   * product deleted, hidden or upgraded between the page's choice and its batch is left out.
   */
  async previewPinned(
    ctx: Ctx,
    query: unknown,
    publishedOnly: boolean,
  ): Promise<{ head: Omit<TemplateUpgradesPreview, 'products'>; page: SizedPage<ProductUpgradeItem, Pagination> }> {
    const parsed = checkBulkQuery(query ?? {});
    const page = normalizePage(parsed);
    const fromState = await this.templates.versionByNumber(ctx, parsed.templateId, parsed.from);
    if (!fromState) throw invalid('templateId', 'is not a template of your library');
    if (!fromState.version) throw invalid('from', `is not a version of template ${parsed.templateId}: its versions are 1 to ${fromState.currentNumber}`);
    const target = await targetOf(ctx, this.templates, fromState.version, parsed.to);
    const { records, total } = await readPinnedProductsPage(ctx, target.from.id, publishedOnly, page.pageSize, (page.page - 1) * page.pageSize);
    // a finding carries values of the product: count its fields twice, read and repeated
    const sized = sizedItems(
      paginationOf(page, total),
      records,
      (record) => 2 * listedRecordBytes(record),
      (batch) => completeListed(ctx, batch, publishedOnly),
    );
    const assessed = mapPage(sized, async (batch) => {
      const pinned = batch.filter((record) => record.templateVersionId === target.from.id);
      const facts = await fileFactsOf(ctx, this.library, pinned);
      return pinned.map((record) => assess(record, target, facts).findings);
    });
    return { head: targetHead(target), page: assessed };
  }
}
