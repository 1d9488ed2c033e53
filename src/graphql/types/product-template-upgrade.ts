import { PRODUCT_STATUSES } from '../../core/catalogue/products/product.schemas.ts';
import type {
  FieldDiff,
  ProductUpgradeItem,
  TemplateUpgradeReport,
  TemplateUpgradesPreview,
  ValueFinding,
} from '../../core/catalogue/products/template-upgrade.schemas.ts';
import { FIELD_TYPES } from '../../core/catalogue/templates/template.schemas.ts';
import { collectPage, type SizedPage } from '../../core/platform/answer-budget.ts';
import type { FieldIssue } from '../../core/platform/errors.ts';
import type { Versioned } from '../../core/platform/etag.ts';
import { MAX_PAGE_SIZE, type Pagination } from '../../core/platform/pagination.ts';
import { withoutNulls } from '../args.ts';
import { builder, PaginationRef } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost } from '../costs.ts';
import { storedValue } from '../enums.ts';
import { ifMatchArg, type ObjectFieldBuilder, pageArgs } from '../shapes.ts';
import { JsonRef } from './json.ts';
import { ProductResultRef, ProductStatusEnum } from './product.ts';
import { FieldTypeEnum } from './template.ts';

/*
 * Template upgrades (docs/products.md "Template upgrades"): the preview of one product, the upgrade,
 * and the preview of every product pinned to a version. Each resolver calls one core operation.
 */

/** Values and issues of one product: an estimate (a product rarely has many values that stop fitting). */
const FINDINGS_ESTIMATE = 20;
const FINDINGS_COST = countedAs(FINDINGS_ESTIMATE, 'an estimate; a product has at most 197 custom values');
const FIELDS_COST = countedAs(LIST_BOUNDS.templateGroups, 'a definition has at most 200 fields');

type VersionPin = TemplateUpgradeReport['from'];
type FieldSummary = FieldDiff['added'][number];
type RetypedField = FieldDiff['retyped'][number];

const VersionPinRef = builder.objectRef<VersionPin>('TemplateUpgradeVersion').implement({
  description: "A version of the product's template.",
  fields: (t) => ({
    versionId: t.exposeString('versionId', { description: 'The version id (as Product.templateVersionId).' }),
    number: t.exposeInt('number', { description: 'Its number within the template: 1, 2, ...' }),
  }),
});

const FieldSummaryRef = builder.objectRef<FieldSummary>('TemplateUpgradeField').implement({
  description: 'A field added or removed between two versions.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Stable field id (the templateFields key).' }),
    key: t.exposeString('key', { description: 'Machine name.' }),
    name: t.exposeString('name', { description: 'The label.' }),
    type: t.field({ type: FieldTypeEnum, description: 'The field type (spec 2.4).', resolve: (f) => storedValue(FIELD_TYPES, f.type) }),
    required: t.exposeBoolean('required', { description: 'Whether a published product needs a value.' }),
  }),
});

const RetypedFieldRef = builder.objectRef<RetypedField>('TemplateUpgradeRetypedField').implement({
  description: 'A field present in both versions whose type changed.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Stable field id.' }),
    key: t.exposeString('key', { description: 'Machine name.' }),
    name: t.exposeString('name', { description: 'The label in the target version.' }),
    fromType: t.field({ type: FieldTypeEnum, description: 'Its type in the pinned version.', resolve: (f) => storedValue(FIELD_TYPES, f.fromType) }),
    toType: t.field({ type: FieldTypeEnum, description: 'Its type in the target version.', resolve: (f) => storedValue(FIELD_TYPES, f.toType) }),
  }),
});

const FieldDiffRef = builder.objectRef<FieldDiff>('TemplateUpgradeFieldDiff').implement({
  description: 'How two versions of a template differ, by stable field id (system fields never change).',
  fields: (t) => ({
    added: t.field({
      type: [FieldSummaryRef],
      description: `Fields of the target version the pinned one lacks. ${FIELDS_COST}`,
      complexity: listCost(LIST_BOUNDS.templateGroups),
      resolve: (d) => d.added,
    }),
    removed: t.field({
      type: [FieldSummaryRef],
      description: `Fields of the pinned version the target lacks. ${FIELDS_COST}`,
      complexity: listCost(LIST_BOUNDS.templateGroups),
      resolve: (d) => d.removed,
    }),
    retyped: t.field({
      type: [RetypedFieldRef],
      description: `Fields whose type changed. ${FIELDS_COST}`,
      complexity: listCost(LIST_BOUNDS.templateGroups),
      resolve: (d) => d.retyped,
    }),
  }),
});

const ValueFindingRef = builder.objectRef<ValueFinding>('TemplateUpgradeValue').implement({
  description: 'A current value that does not carry over to the target version, and why.',
  fields: (t) => ({
    field: t.exposeString('field', { description: '`templateFields.<fieldId>`, as validation details name it.' }),
    fieldId: t.exposeString('fieldId', { description: "The field id, as the upgrade's `drop` takes it." }),
    name: t.exposeString('name', { description: "The field's label." }),
    value: t.field({
      type: JsonRef,
      nullable: true,
      description: 'The current stored value (media values as file-path ID lists).',
      resolve: (v) => v.value ?? null,
    }),
    reason: t.exposeString('reason', { description: 'Why it does not carry over.' }),
  }),
});

const IssueRef = builder.objectRef<FieldIssue>('TemplateUpgradeIssue').implement({
  description: "A field and what is wrong with it, as a validation_failed error's details list it.",
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The field: `name`, `spu`, `coverAssetId` or `templateFields.<fieldId>`.' }),
    message: t.exposeString('message', { description: 'What is wrong (human text).' }),
  }),
});

/** The findings of one product, shared by the single and the bulk preview. */
function findingsFields<Shape extends ProductUpgradeItem>(t: ObjectFieldBuilder<Shape>) {
  return {
    productId: t.int({ description: 'The product.', resolve: (f) => f.productId }),
    status: t.field({ type: ProductStatusEnum, description: "The product's status now.", resolve: (f) => storedValue(PRODUCT_STATUSES, f.status) }),
    removedValues: t.field({
      type: [ValueFindingRef],
      description: `Values of fields the target version no longer has: the upgrade drops them. ${FINDINGS_COST}`,
      complexity: listCost(FINDINGS_ESTIMATE),
      resolve: (f) => f.removedValues,
    }),
    invalidValues: t.field({
      type: [ValueFindingRef],
      description: `Values that fail the target version (type, options, file limits): the upgrade is refused unless its \`drop\` names each. ${FINDINGS_COST}`,
      complexity: listCost(FINDINGS_ESTIMATE),
      resolve: (f) => f.invalidValues,
    }),
    publishable: t.boolean({
      description: 'Whether the upgraded product (every invalid value dropped) is complete: could be, or stay, published.',
      resolve: (f) => f.publishable,
    }),
    missing: t.field({
      type: [IssueRef],
      description: `What the upgraded product would lack to be published. ${FINDINGS_COST}`,
      complexity: listCost(FINDINGS_ESTIMATE),
      resolve: (f) => f.missing,
    }),
    canStayPublished: t.boolean({
      nullable: true,
      description: 'For a published product, whether it could stay published (false: the upgrade is refused until it is unpublished); null for a draft.',
      resolve: (f) => f.canStayPublished,
    }),
    ready: t.boolean({ description: 'Whether the upgrade without `drop` would succeed now.', resolve: (f) => f.ready }),
    blocking: t.field({
      type: [IssueRef],
      description: `What the upgrade without \`drop\` would refuse, as its validation_failed details. ${FINDINGS_COST}`,
      complexity: listCost(FINDINGS_ESTIMATE),
      resolve: (f) => f.blocking,
    }),
  };
}

/** The versions and their differences, shared by the single and the bulk preview. */
function targetFields<Shape extends Omit<TemplateUpgradesPreview, 'products'>>(t: ObjectFieldBuilder<Shape>) {
  return {
    templateId: t.string({ description: 'The template.', resolve: (r) => r.templateId }),
    from: t.field({ type: VersionPinRef, description: 'The pinned version.', resolve: (r) => r.from }),
    to: t.field({ type: VersionPinRef, description: 'The version previewed.', resolve: (r) => r.to }),
    fields: t.field({ type: FieldDiffRef, description: 'Fields added, removed and retyped.', resolve: (r) => r.fields }),
  };
}

/** The preview with the product's ETag beside it. */
type ReportWithEtag = TemplateUpgradeReport & { etag: string };

const ReportRef = builder.objectRef<ReportWithEtag>('ProductTemplateUpgradePreview').implement({
  description: 'What moving one product to a newer version of its template would do (REST: GET /v1/products/{id}/template-upgrade); nothing is changed.',
  fields: (t) => ({
    ...findingsFields(t),
    ...targetFields(t),
    etag: t.exposeString('etag', {
      description: "The product's ETag now: send it as ifMatch to upgradeProductTemplate to upgrade exactly what was previewed.",
    }),
  }),
});

const ProductFindingsRef = builder.objectRef<ProductUpgradeItem>('ProductTemplateUpgradeFindings').implement({
  description: 'What moving one product of a bulk preview would do.',
  fields: (t) => findingsFields(t),
});

/** A bulk preview as the core answers it: the versions' part, and its page of products, read when `products` is asked for. */
type BulkPreview = { head: Omit<TemplateUpgradesPreview, 'products'>; page: SizedPage<ProductUpgradeItem, Pagination> };

const BulkRef = builder.objectRef<BulkPreview>('TemplateUpgradesPreview').implement({
  description:
    'What moving every product pinned to one version would do, one page of products at a time (REST: GET /v1/products/template-upgrades); nothing is changed.',
  fields: (t) => ({
    templateId: t.string({ description: 'The template.', resolve: (r) => r.head.templateId }),
    from: t.field({ type: VersionPinRef, description: 'The version the products are pinned to.', resolve: (r) => r.head.from }),
    to: t.field({ type: VersionPinRef, description: 'The version previewed.', resolve: (r) => r.head.to }),
    fields: t.field({ type: FieldDiffRef, description: 'Fields added, removed and retyped.', resolve: (r) => r.head.fields }),
    products: t.field({
      type: [ProductFindingsRef],
      description: `This page of the live products pinned to \`from\` (drafts included), by id ascending. ${countedAs(MAX_PAGE_SIZE, 'the largest page; the field differences above count once')}`,
      complexity: listCost(MAX_PAGE_SIZE),
      // a product's findings can repeat most of its values (about 1 MB): the page counts against the operation's byte limit
      resolve: async (r, _args, gql) => (await collectPage(gql.ctx, r.page)).items,
    }),
    pagination: t.field({
      type: PaginationRef,
      description: 'Ordinary paging (pageSize default 20, at most 100); totalCount counts the live products pinned to `from`.',
      resolve: (r) => r.page.pagination,
    }),
  }),
});

const TemplateUpgradeInput = builder.inputType('TemplateUpgradeInput', {
  description: 'Options of upgradeProductTemplate.',
  fields: (t) => ({
    drop: t.stringList({
      description:
        'Field ids whose current values fail the target version (or whose fields it removed) and are to be cleared; at most 200, no repeats. Any other id is validation_failed on `drop[i]`.',
    }),
  }),
});

const TARGET_ERRORS =
  'validation_failed on `to` when it is not a version of the template, not newer than the pinned one, a version of a deleted template (retired), or the product has no template';

builder.queryFields((t) => ({
  productTemplateUpgrade: t.field({
    type: ReportRef,
    description: `Previews moving a product to a newer version of its template; changes nothing (REST: GET /v1/products/{id}/template-upgrade). Editable or manage (the roles that edit products). Errors: forbidden, not_found, ${TARGET_ERRORS}.`,
    args: {
      productId: t.arg.int({ required: true, description: 'Product id.' }),
      to: t.arg.int({ description: "Version number to move to (1, 2, ...); omitted: the template's current version." }),
    },
    resolve: async (_root, args, gql) => {
      const report: Versioned<TemplateUpgradeReport> = await gql.core.catalogue.products.previewTemplateUpgrade(
        gql.ctx,
        args.productId,
        withoutNulls({ to: args.to }),
      );
      return { ...report.data, etag: report.etag };
    },
  }),
  productTemplateUpgrades: t.field({
    type: BulkRef,
    description: `Previews moving every live product pinned to one version, one page at a time, by product id; changes nothing (REST: GET /v1/products/template-upgrades). Editable or manage. Errors: forbidden, validation_failed on \`templateId\` (not a template of your library), \`from\` (not a version of it), \`to\` (not a version, not newer, or the template was deleted).`,
    args: {
      templateId: t.arg.string({ required: true, description: 'The template (1-128 characters).' }),
      from: t.arg.int({ required: true, description: 'The version number the products are pinned to.' }),
      to: t.arg.int({ description: "The version number to preview; omitted: the template's current version." }),
      ...pageArgs(t),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.products.previewTemplateUpgrades(gql.ctx, withoutNulls(args)),
  }),
}));

builder.mutationFields((t) => ({
  upgradeProductTemplate: t.field({
    type: ProductResultRef,
    description: `Moves a product to a newer version of its template in one transaction (REST: POST /v1/products/{id}/template-upgrade): values valid there are kept, values of removed fields and the invalid values named in \`drop\` are cleared, draftReason recomputed, history and activity written (template_upgraded), the ETag changes. Editable or manage. Errors: forbidden, not_found, validation_failed (ifMatch missing, named If-Match; a value fails the new version and \`drop\` does not name it; a published product would lack a required value; \`drop[i]\` names nothing to drop; ${TARGET_ERRORS}), precondition_failed (stale ifMatch).`,
    args: {
      productId: t.arg.int({ required: true, description: 'Product id.' }),
      to: t.arg.int({ description: "Version number to move to; omitted: the template's current version (pass it to upgrade exactly what you previewed)." }),
      input: t.arg({ type: TemplateUpgradeInput, description: 'What to drop.' }),
      ifMatch: ifMatchArg(t, "Required: the product's ETag from a read or the preview; refused (precondition_failed) if stale."),
    },
    resolve: (_root, args, gql) =>
      gql.core.catalogue.products.upgradeTemplate(
        gql.ctx,
        args.productId,
        withoutNulls({ to: args.to }),
        withoutNulls(args.input ?? {}),
        args.ifMatch ?? undefined,
      ),
  }),
}));
