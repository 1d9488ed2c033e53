import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { type FieldNode, type GraphQLResolveInfo, Kind } from 'graphql';
import {
  FIELD_TYPES,
  SYNC_STRATEGIES,
  SYSTEM_KEYS,
  type TemplateFieldView,
  type TemplateGroupView,
  type TemplateVersionSummary,
  type TemplateVersionView,
  type TemplateView,
  type VersionWindow,
} from '../../core/catalogue/templates/template.schemas.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import { builder, JsonObjectRef } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { LIST_BOUNDS, listCost, sizeOf } from '../costs.ts';
import { enumFromCore } from '../enums.ts';
import { asks, fieldAsks, fieldsBelow } from '../selection.ts';
import { deletionType, etagResultType, idempotencyKeyArg, ifMatchArg, pageField, pageType, RFC3339_MICROS, timestampFields, versionedOf } from '../shapes.ts';

export const FieldTypeEnum = enumFromCore('TemplateFieldType', {
  description: 'The type of a template field: which values products may give it and which config it takes (docs/templates.md).',
  values: FIELD_TYPES,
  describe: {
    text: 'A single line of text.',
    textarea: 'Multi-line text.',
    email: 'An email address.',
    phone: 'A phone number: digits, spaces, ( ) . - and an optional leading +.',
    url: 'An absolute http(s) URL.',
    color: 'A hex colour #RGB, #RRGGBB or #RRGGBBAA.',
    date: 'A date YYYY-MM-DD.',
    dateRange: 'A pair of dates ["YYYY-MM-DD", "YYYY-MM-DD"], the start not after the end.',
    number: 'A JSON number.',
    currency: 'An amount; config gives code, symbol and decimals.',
    richtext: 'Rich text; config gives its mode (html or delta).',
    select: "One value of the config's options.",
    radio: "One value of the config's options, shown as radio buttons.",
    checkbox: "Several values of the config's options.",
    image: 'Library images by file-path ID.',
    file: 'Library files by file-path ID.',
  },
});

const SystemKeyEnum = enumFromCore('TemplateSystemKey', {
  description: 'Which system field a template field is (spec 2.4); only NAME, SKU and MAIN_IMAGE are ever seeded.',
  values: SYSTEM_KEYS,
  describe: {
    name: 'The product name.',
    sku: 'The product SKU (spu).',
    brand: 'The product brand (reserved: never seeded).',
    category: 'The product category (reserved: never seeded).',
    description: 'The product description (reserved: never seeded).',
    mainImage: 'The product cover image.',
  },
});

const SyncStrategyEnum = enumFromCore('TemplateSyncStrategy', {
  description: 'How a template change reaches products (spec 4.4).',
  values: SYNC_STRATEGIES,
  describe: { newOnly: 'Only new products get the new version; existing products keep the one they pinned.' },
});

const TemplateFieldRef = builder.objectRef<TemplateFieldView>('TemplateField').implement({
  description: 'A field of a template group (spec 2.4); typeChangeConfirmed is write-only.',
  fields: (t) => ({
    id: t.exposeString('id', { description: "Field id (1-128 characters), stable across versions: the key of a product's templateFields." }),
    key: t.exposeString('key', { description: 'Machine name, 1-64 characters, unique in the template.' }),
    name: t.exposeString('name', { description: 'Display name, 1-128 characters.' }),
    type: t.field({ type: FieldTypeEnum, description: 'Which values the field takes.', resolve: (field) => field.type }),
    required: t.exposeBoolean('required', { description: 'A published product must have a value.' }),
    placeholder: t.exposeString('placeholder', { nullable: true, description: 'Up to 255 characters; null when none.' }),
    sortOrder: t.exposeInt('sortOrder', { description: 'Position in its group (then id).' }),
    config: t.field({
      type: JsonObjectRef,
      description: 'Type-specific settings (options of a select, limits); docs/templates.md lists them per type.',
      resolve: (field) => field.config,
    }),
    isSystemField: t.exposeBoolean('isSystemField', { description: 'One of the three system fields (name, sku, mainImage), present in every template.' }),
    systemKey: t.field({
      type: SystemKeyEnum,
      nullable: true,
      description: 'Which system field; null for custom fields.',
      resolve: (field) => field.systemKey,
    }),
  }),
});

const GROUPS_COST = 'Query cost: counted as 200 items (a definition has at most 200 groups, and 200 fields in all of them).';

const TemplateGroupRef = builder.objectRef<TemplateGroupView>('TemplateGroup').implement({
  description: 'A group of fields, ordered by sortOrder then id; the default group holds the system fields.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Group id (1-128 characters), stable across versions.' }),
    name: t.exposeString('name', { description: 'Display name.' }),
    isDefault: t.exposeBoolean('isDefault', { description: 'The default group, which holds the system fields.' }),
    sortOrder: t.exposeInt('sortOrder', { description: 'Position among the groups.' }),
    fields: t.field({
      type: [TemplateFieldRef],
      description:
        "Its fields in order. Query cost: counted within the groups' 200 items, since a definition has at most 200 fields in all its groups together.",
      complexity: listCost(1),
      resolve: (group) => group.fields,
    }),
  }),
});

export const TemplateVersionRef = builder.objectRef<TemplateVersionView | TemplateVersionSummary>('TemplateVersion').implement({
  description: 'An immutable snapshot of a template definition, written by every create and update (spec 3.3).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Version id: what a product pins (templateVersionId).' }),
    templateId: t.exposeString('templateId', { description: 'The template it is a version of.' }),
    number: t.exposeInt('number', { description: '1 for the create, then one more per update.' }),
    name: t.exposeString('name', { description: "The template's name in this version." }),
    description: t.exposeString('description', { nullable: true, description: 'The description in this version; null when none.' }),
    createdAt: t.exposeString('createdAt', { description: 'When the version was written (RFC 3339, UTC, microseconds.)' }),
    groups: t.field({
      type: [TemplateGroupRef],
      description: `The definition in this version. ${GROUPS_COST}`,
      complexity: listCost(LIST_BOUNDS.templateGroups),
      // a summary (Template.versions read without definitions when groups looked unasked) loads its
      // definition through the versions loader, admitted like any other
      resolve: (version, _args, gql) =>
        'groups' in version
          ? version.groups
          : versionsLoader(gql)
              .load({ templateId: version.templateId, before: version.number + 1, last: 1 })
              .then((versions) => versions[0]?.groups ?? []),
    }),
  }),
});

/** Template, loaded in batches per request; its versions come from one batched query per request (below). */
export const TemplateRef = builder.loadableObject('Template', {
  description: 'An information template (spec 2.4; REST: GET /v1/product-info-templates/{id}) at its latest version.',
  load: (ids: string[], gql: GqlContext) => gql.core.catalogue.templates.findByIds(gql.ctx, ids),
  toKey: (template: TemplateView) => template.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Template id (opaque, 1-128 characters).' }),
    name: t.exposeString('name', { description: '1-30 characters; unique among live templates.' }),
    description: t.exposeString('description', { nullable: true, description: 'At most 50 characters; null when none.' }),
    enabled: t.exposeBoolean('enabled', { description: 'Disabled templates are not chosen for new products.' }),
    isSystemDefault: t.exposeBoolean('isSystemDefault', { description: 'Always false: every template is created by a library.' }),
    isLibraryDefault: t.exposeBoolean('isLibraryDefault', { description: 'The library default: used when no binding applies.' }),
    ...timestampFields(t, RFC3339_MICROS),
    boundBrandIds: t.exposeIntList('boundBrandIds', { description: 'Brands whose products use this template when no category binding applies.' }),
    boundCategoryIds: t.exposeIntList('boundCategoryIds', { description: 'Categories (and their descendants) whose products use this template.' }),
    groups: t.field({
      type: [TemplateGroupRef],
      description: `The current definition. ${GROUPS_COST}`,
      complexity: listCost(LIST_BOUNDS.templateGroups),
      resolve: (template) => template.groups,
    }),
  }),
});

builder.objectFields(TemplateRef, (t) => ({
  versions: t.field({
    type: [TemplateVersionRef],
    description:
      'The newest `last` versions, oldest first: the last one is the current definition. Older ones: pass `before` (a version number) to read the ones before it; every version is also templateVersion(id). Query cost: counted as `last` items.',
    args: {
      last: t.arg.int({
        description: `How many versions, the newest first chosen (default ${LIST_BOUNDS.templateVersionsDefault}, at most ${LIST_BOUNDS.templateVersionsMax}).`,
      }),
      before: t.arg.int({ description: 'Only versions numbered below this one; omitted: up to the current version.' }),
    },
    complexity: (args) => listCost(sizeOf(args.last, LIST_BOUNDS.templateVersionsDefault, LIST_BOUNDS.templateVersionsMax)),
    resolve: async (template, args, gql, info) => {
      const last = sizeOf(args.last, LIST_BOUNDS.templateVersionsDefault, LIST_BOUNDS.templateVersionsMax);
      if (last === 0) return [];
      const window = { templateId: template.id, before: args.before ?? null, last };
      // the definitions (nearly all of a version's bytes) are read only when the versions' groups are asked
      return asks(info, ASKS_GROUPS) ? versionsLoader(gql).load(window) : versionSummariesLoader(gql).load(window);
    },
  }),
}));

/** The asked versions of every template in a response from one batched read (per request, like Pothos' loaders). */
const versionsLoader = createContextCache(
  (gql: GqlContext) =>
    new DataLoader<VersionWindow, TemplateVersionView[], string>(async (windows) => gql.core.catalogue.templates.versionWindows(gql.ctx, windows), {
      cacheKeyFn: (w) => `${w.templateId}\u0000${w.before}\u0000${w.last}`,
    }),
);

/** The same windows without definitions, for a versions selection that asks no groups. */
const versionSummariesLoader = createContextCache(
  (gql: GqlContext) =>
    new DataLoader<VersionWindow, TemplateVersionSummary[], string>(async (windows) => gql.core.catalogue.templates.versionSummaryWindows(gql.ctx, windows), {
      cacheKeyFn: (w) => `${w.templateId}\u0000${w.before}\u0000${w.last}`,
    }),
);

const ASKS_GROUPS = new Set(['groups']);

/**
 * The one window of versions without definitions that a `template(id)` selection asks
 * (`template { versions(last, before) { number name ... } }`, fragments included), or null: the
 * template is then read with that window in one statement and the versions resolve from it. Null
 * (each read apart, as before) when no versions are asked, when they ask groups, when two
 * selections ask different windows, or when an argument is a variable.
 */
function versionSummaryWindowAsked(info: GraphQLResolveInfo): Omit<VersionWindow, 'templateId'> | null {
  let window: Omit<VersionWindow, 'templateId'> | null = null;
  for (const node of fieldsBelow(info, 'template', 'versions')) {
    if (fieldAsks(node, info, ASKS_GROUPS)) return null;
    const args = literalIntArgs(node);
    if (!args) return null;
    const last = sizeOf(args.last, LIST_BOUNDS.templateVersionsDefault, LIST_BOUNDS.templateVersionsMax);
    if (last === 0) return null;
    const asked = { before: args.before ?? null, last };
    if (window && (window.before !== asked.before || window.last !== asked.last)) return null;
    window = asked;
  }
  return window;
}

/** A field's arguments when each is an Int or null literal; null when any is a variable. */
function literalIntArgs(node: FieldNode): Record<string, number | null> | null {
  const args: Record<string, number | null> = {};
  for (const arg of node.arguments ?? []) {
    if (arg.value.kind === Kind.INT) args[arg.name.value] = Number.parseInt(arg.value.value, 10);
    else if (arg.value.kind === Kind.NULL) args[arg.name.value] = null;
    else return null;
  }
  return args;
}

const TemplatePageRef = pageType('TemplatePage', TemplateRef, {
  description: 'A page of live templates (REST: GET /v1/product-info-templates).',
  items: 'templates',
});

const TemplateResultRef = etagResultType('TemplateResult', TemplateRef, { field: 'template' });

const DeletedTemplateRef = deletionType('DeletedTemplate', 'String', {
  noun: 'template',
  description: 'What a deletion answers (the versions stay for products that pin them).',
});

const TemplateFieldInput = builder.inputType('TemplateFieldInput', {
  description: 'Spec 4.4 field input: id for an existing field of the group, omitted for a new one.',
  fields: (t) => ({
    id: t.string({ description: "An existing field's id to keep it; omitted for a new field." }),
    key: t.string({ description: 'Machine name, 1-64 characters, unique in the template.' }),
    name: t.string({ description: 'Display name, 1-128 characters.' }),
    type: t.field({ type: FieldTypeEnum, description: "Required for a new field; a change of an existing field's type needs typeChangeConfirmed." }),
    required: t.boolean({ description: 'A published product must have a value.' }),
    placeholder: t.string({ description: 'Up to 255 characters.' }),
    sortOrder: t.int({ description: 'Position in its group.' }),
    config: t.field({ type: JsonObjectRef, description: 'Type-specific settings (docs/templates.md).' }),
    typeChangeConfirmed: t.boolean({ description: "Write-only: true to change an existing field's type (existing values are not migrated)." }),
    isSystemField: t.boolean({ description: 'Send the system fields back as read, with this true.' }),
    systemKey: t.field({ type: SystemKeyEnum, description: 'Which system field (NAME, SKU, MAIN_IMAGE), with isSystemField.' }),
  }),
});

const TemplateGroupInput = builder.inputType('TemplateGroupInput', {
  description: 'A group of fields (spec 4.4): 1-200 groups per request, at most 200 fields in all.',
  fields: (t) => ({
    id: t.string({ description: "An existing group's id to keep it; omitted for a new group." }),
    name: t.string({ required: true, description: 'Display name.' }),
    fields: t.field({ type: [TemplateFieldInput], required: true, description: 'Its fields in order.' }),
  }),
});

const TemplateCreateInput = builder.inputType('TemplateCreateInput', {
  description: 'A new template (spec 4.4 TemplateCreate).',
  fields: (t) => ({
    name: t.string({ required: true, description: '1-30 characters; unique among live templates.' }),
    description: t.string({ description: 'At most 50 characters.' }),
    enabled: t.boolean({ description: 'Default true.' }),
    groups: t.field({
      type: [TemplateGroupInput],
      required: true,
      description: 'The definition; the system fields are added to the default group when missing.',
    }),
    boundBrandIds: t.intList({ description: 'Brands to bind (up to 10,000).' }),
    boundCategoryIds: t.intList({ description: 'Categories to bind (up to 10,000).' }),
    isLibraryDefault: t.boolean({ description: 'Make it the library default.' }),
    syncStrategy: t.field({ type: SyncStrategyEnum, description: 'Default and only value NEW_ONLY.' }),
  }),
});

const TemplatePatchInput = builder.inputType('TemplatePatchInput', {
  description: 'Changes to a template (spec 4.4): every successful update writes a new version, metadata-only ones included.',
  fields: (t) => ({
    name: t.string({ description: '1-30 characters; unique among live templates.' }),
    description: t.string({ description: 'At most 50 characters; null clears.' }),
    enabled: t.boolean({ description: 'Enabled flag.' }),
    groups: t.field({ type: [TemplateGroupInput], description: 'Replaces the definition: fields kept by id, new ones without.' }),
    boundBrandIds: t.intList({ description: 'Replaces the brand bindings.' }),
    boundCategoryIds: t.intList({ description: 'Replaces the category bindings.' }),
    isLibraryDefault: t.boolean({ description: 'true makes it the library default.' }),
    syncStrategy: t.field({ type: SyncStrategyEnum, description: 'Only NEW_ONLY.' }),
  }),
});

const TemplateDeleteInput = builder.inputType('TemplateDeleteInput', {
  description: 'What deleting the library default needs.',
  fields: (t) => ({
    replacementForLibraryDefault: t.string({ description: 'Required when deleting the library default: another live template id, or null to clear.' }),
  }),
});

builder.queryFields((t) => ({
  templates: pageField(t, TemplatePageRef, 'Live templates, createdAt descending then id.', async (gql, query) =>
    collectPage(gql.ctx, await gql.core.catalogue.templates.listPage(gql.ctx, query)),
  ),
  template: t.field({
    type: TemplateResultRef,
    description: 'One live template with its ETag (REST: GET /v1/product-info-templates/{id}). Errors: not_found.',
    args: { id: t.arg.string({ required: true, description: 'Template id.' }) },
    resolve: async (_root, args, gql, info) => {
      const window = versionSummaryWindowAsked(info);
      if (!window) return gql.core.catalogue.templates.get(gql.ctx, args.id);
      // its versions in the same statement: Template.versions then finds them in the loader
      const { template, versions } = await gql.core.catalogue.templates.getWithVersionSummaries(gql.ctx, args.id, window);
      versionSummariesLoader(gql).prime({ templateId: template.data.id, ...window }, versions);
      return template;
    },
  }),
  templateVersion: t.field({
    type: TemplateVersionRef,
    description: 'One version by id, also of a deleted template (products pin versions). Errors: not_found.',
    args: { id: t.arg.string({ required: true, description: 'Version id.' }) },
    resolve: (_root, args, gql) => gql.core.catalogue.templates.getVersion(gql.ctx, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createTemplate: t.field({
    type: TemplateResultRef,
    description:
      'Creates a template and its first version (manage role; REST: POST /v1/product-info-templates). Errors: forbidden, validation_failed, name_in_use, idempotency_key_reused.',
    args: { input: t.arg({ type: TemplateCreateInput, required: true, description: 'The new template.' }), idempotencyKey: idempotencyKeyArg(t) },
    resolve: async (_root, args, gql) => versionedOf(await gql.core.catalogue.templates.create(gql.ctx, args.input, args.idempotencyKey ?? undefined)),
  }),
  updateTemplate: t.field({
    type: TemplateResultRef,
    description:
      'Changes a template, writing a new version (manage role; REST: PATCH /v1/product-info-templates/{id}). Errors: forbidden, not_found, validation_failed, name_in_use, precondition_failed.',
    args: {
      id: t.arg.string({ required: true, description: 'Template id.' }),
      input: t.arg({ type: TemplatePatchInput, required: true, description: 'The changes.' }),
      ifMatch: ifMatchArg(t, 'The ETag last read; refused (precondition_failed) if stale.'),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.templates.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined),
  }),
  deleteTemplate: t.field({
    type: DeletedTemplateRef,
    description:
      'Soft-deletes a template and its bindings; versions stay for pinned products (manage role; REST: DELETE /v1/product-info-templates/{id}). Errors: forbidden, not_found, validation_failed (the library default without a replacement), precondition_failed.',
    args: {
      id: t.arg.string({ required: true, description: 'Template id.' }),
      input: t.arg({ type: TemplateDeleteInput, description: 'Needed for the library default.' }),
      ifMatch: ifMatchArg(t),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.templates.softDelete(gql.ctx, args.id, args.input ?? undefined, args.ifMatch ?? undefined),
  }),
}));
