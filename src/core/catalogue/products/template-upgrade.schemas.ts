import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';

/*
 * Wire shapes of template upgrades (docs/products.md "Template upgrades"): moving a product's pin
 * to a newer version of its template, previewed first. Every shape here is new; no existing answer
 * changes.
 */

const versionNumber = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description });

/** How many field ids one upgrade may name in `drop`: a definition has at most 200 fields. */
export const UPGRADE_DROP_LIMIT = 200;

export const TemplateUpgradeQuery = Type.Object({
  to: Type.Optional(
    versionNumber("The version number (1, 2, ...) of the product's template to move to; newer than the pinned one. Omitted: the template's current version."),
  ),
});
export type TemplateUpgradeQuery = Static<typeof TemplateUpgradeQuery>;

export const TemplateUpgradeRequest = Type.Object(
  {
    drop: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: UPGRADE_DROP_LIMIT,
        uniqueItems: true,
        description:
          'Field ids (as in templateFields, without the `templateFields.` prefix) whose current values fail the target version and are to be cleared by the upgrade. Only ids the preview lists under invalidValues or removedValues are accepted; at most 200, no repeats.',
      }),
    ),
  },
  { $id: 'TemplateUpgradeRequest', additionalProperties: false },
);
export type TemplateUpgradeRequest = Static<typeof TemplateUpgradeRequest>;

export const TemplateUpgradesQuery = Type.Object({
  templateId: Type.String({ minLength: 1, maxLength: 128, description: 'The template whose products are previewed.' }),
  from: versionNumber('The version number the products are pinned to.'),
  to: Type.Optional(versionNumber("The version number to preview moving to; newer than `from`. Omitted: the template's current version.")),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'Page from 1 (default 1).' })),
  pageSize: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'Products per page (default 20; values above 100 count as 100).' }),
  ),
});
export type TemplateUpgradesQuery = Static<typeof TemplateUpgradesQuery>;

const VersionRef = Type.Object(
  {
    versionId: Type.String({ description: 'The version id (as in templateVersionId).' }),
    number: Type.Integer({ description: 'Its number within the template: 1, 2, ...' }),
  },
  { additionalProperties: false },
);

const FieldSummary = Type.Object(
  {
    id: Type.String({ description: 'Stable field id (the templateFields key).' }),
    key: Type.String(),
    name: Type.String({ description: 'The label.' }),
    type: Type.String(),
    required: Type.Boolean(),
  },
  { additionalProperties: false },
);

const RetypedField = Type.Object(
  {
    id: Type.String({ description: 'Stable field id.' }),
    key: Type.String(),
    name: Type.String({ description: 'The label in the target version.' }),
    fromType: Type.String({ description: 'Its type in the pinned version.' }),
    toType: Type.String({ description: 'Its type in the target version.' }),
  },
  { additionalProperties: false },
);

export const FieldDiff = Type.Object(
  {
    added: Type.Array(FieldSummary, { description: 'Fields of the target version that the pinned version lacks.' }),
    removed: Type.Array(FieldSummary, { description: 'Fields of the pinned version that the target version lacks.' }),
    retyped: Type.Array(RetypedField, { description: 'Fields in both whose type changed.' }),
  },
  { additionalProperties: false, description: 'How the definitions differ, by field id (system fields never change).' },
);
export type FieldDiff = Static<typeof FieldDiff>;

const ValueFinding = Type.Object(
  {
    field: Type.String({ description: '`templateFields.<fieldId>`, as validation details name it.' }),
    fieldId: Type.String({ description: 'The field id, as `drop` takes it.' }),
    name: Type.String({ description: "The field's label (in the target version when it has the field, otherwise in the pinned one)." }),
    value: Type.Unknown({ description: 'The current stored value (media values as file-path ID lists).' }),
    reason: Type.String({ description: 'Why the value does not carry over.' }),
  },
  { additionalProperties: false },
);
export type ValueFinding = Static<typeof ValueFinding>;

const Issue = Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: false });

/** What one product's upgrade would do (the part a bulk preview repeats per product). */
export const ProductUpgradeFindings = {
  productId: Type.Integer({ description: 'The product.' }),
  status: Type.String({ description: '`draft` or `published`, now.' }),
  removedValues: Type.Array(ValueFinding, { description: 'Values of fields the target version no longer has: the upgrade drops them.' }),
  invalidValues: Type.Array(ValueFinding, {
    description: "Values that fail the target version's validation (type, options, limits of files): the upgrade is refused unless `drop` names each.",
  }),
  publishable: Type.Boolean({ description: 'Whether the product as upgraded (with every invalid value dropped) is complete: could be, or stay, published.' }),
  missing: Type.Array(Issue, { description: 'What the upgraded product would lack to be published (as publish reports it).' }),
  canStayPublished: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'For a published product, whether it could stay published (false: the upgrade is refused until it is unpublished); null for a draft.',
  }),
  ready: Type.Boolean({ description: 'Whether POST without `drop` would succeed now.' }),
  blocking: Type.Array(Issue, {
    description: 'What POST without `drop` would refuse, as its 422 `details`: every invalid value, and for a published product what it would lack.',
  }),
};

const upgradeTarget = {
  templateId: Type.String({ description: "The product's template." }),
  from: VersionRef,
  to: VersionRef,
  fields: FieldDiff,
};

export const TemplateUpgradeReport = Type.Object(
  { ...ProductUpgradeFindings, ...upgradeTarget },
  {
    $id: 'TemplateUpgradeReport',
    additionalProperties: false,
    description: 'What moving one product to a newer version of its template would do; nothing is changed.',
  },
);
export type TemplateUpgradeReport = Static<typeof TemplateUpgradeReport>;

export const ProductUpgradeItem = Type.Object(ProductUpgradeFindings, { additionalProperties: false });
export type ProductUpgradeItem = Static<typeof ProductUpgradeItem>;

export const TemplateUpgradesPreview = Type.Object(
  { ...upgradeTarget, products: Type.Array(ProductUpgradeItem, { description: 'This page of the products pinned to `from`, by id ascending.' }) },
  {
    $id: 'TemplateUpgradesPreview',
    additionalProperties: false,
    description: 'What moving every product pinned to one version would do, one page of products at a time; nothing is changed.',
  },
);
export type TemplateUpgradesPreview = Static<typeof TemplateUpgradesPreview>;
