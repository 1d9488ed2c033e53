import { FIELD_TYPES, type TemplateFieldView, type TemplateGroupView, type TemplateVersionView, type TemplateView } from '../../core/catalogue/template.schemas.ts';
import type { Pagination } from '../../core/platform/pagination.ts';
import { builder, JsonObjectRef, PaginationRef } from '../builder.ts';
import type { GqlContext } from '../context.ts';

const TemplateFieldRef = builder.objectRef<TemplateFieldView>('TemplateField').implement({
  description: 'A field of a template group (spec 2.4); typeChangeConfirmed is write-only.',
  fields: (t) => ({
    id: t.exposeString('id'),
    key: t.exposeString('key'),
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: `One of ${FIELD_TYPES.join(', ')}.` }),
    required: t.exposeBoolean('required'),
    placeholder: t.exposeString('placeholder', { nullable: true }),
    sortOrder: t.exposeInt('sortOrder'),
    config: t.field({ type: JsonObjectRef, resolve: (field) => field.config }),
    isSystemField: t.exposeBoolean('isSystemField'),
    systemKey: t.exposeString('systemKey', { nullable: true }),
  }),
});

const TemplateGroupRef = builder.objectRef<TemplateGroupView>('TemplateGroup').implement({
  description: 'A group of fields, ordered by sortOrder then id; the default group holds the system fields.',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    isDefault: t.exposeBoolean('isDefault'),
    sortOrder: t.exposeInt('sortOrder'),
    fields: t.field({ type: [TemplateFieldRef], resolve: (group) => group.fields }),
  }),
});

export const TemplateVersionRef = builder.objectRef<TemplateVersionView>('TemplateVersion').implement({
  description: 'An immutable snapshot of a template definition, written by every create and update (spec 3.3).',
  fields: (t) => ({
    id: t.exposeString('id'),
    templateId: t.exposeString('templateId'),
    number: t.exposeInt('number', { description: '1 for the create, then one more per update.' }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    createdAt: t.exposeString('createdAt'),
    groups: t.field({ type: [TemplateGroupRef], resolve: (version) => version.groups }),
  }),
});

/** Template, loaded in batches per request; its versions come from one batched query per request. */
export const TemplateRef = builder.loadableObject('Template', {
  load: (ids: string[], gql: GqlContext) => gql.core.templates.findByIds(gql.ctx, ids),
  toKey: (template: TemplateView) => template.id,
  sort: true,
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    isSystemDefault: t.exposeBoolean('isSystemDefault', { description: 'Always false: every template is created by a library.' }),
    isLibraryDefault: t.exposeBoolean('isLibraryDefault'),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    boundBrandIds: t.exposeIntList('boundBrandIds'),
    boundCategoryIds: t.exposeIntList('boundCategoryIds'),
    groups: t.field({ type: [TemplateGroupRef], resolve: (template) => template.groups }),
    versions: t.loadableList({
      type: TemplateVersionRef,
      description: 'Every version, oldest first; the last one is the current definition.',
      load: (templateIds: string[], gql: GqlContext) => gql.core.templates.versionsByTemplateIds(gql.ctx, templateIds),
      resolve: (template) => template.id,
    }),
  }),
});

const TemplatePageRef = builder.objectRef<{ items: TemplateView[]; pagination: Pagination }>('TemplatePage').implement({
  fields: (t) => ({
    items: t.field({ type: [TemplateRef], resolve: (page) => page.items }),
    pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination }),
  }),
});

const TemplateResultRef = builder.objectRef<{ template: TemplateView; etag: string }>('TemplateResult').implement({
  description: 'A template with the strong ETag to send as ifMatch on the next change.',
  fields: (t) => ({
    template: t.field({ type: TemplateRef, resolve: (r) => r.template }),
    etag: t.exposeString('etag'),
  }),
});

const DeletedTemplateRef = builder.objectRef<{ id: string; etag: string }>('DeletedTemplate').implement({
  fields: (t) => ({ id: t.exposeString('id'), etag: t.exposeString('etag') }),
});

const TemplateFieldInput = builder.inputType('TemplateFieldInput', {
  description: 'Spec 4.4 field input: id for an existing field of the group, omitted for a new one.',
  fields: (t) => ({
    id: t.string(),
    key: t.string(),
    name: t.string(),
    type: t.string(),
    required: t.boolean(),
    placeholder: t.string(),
    sortOrder: t.int(),
    config: t.field({ type: JsonObjectRef }),
    typeChangeConfirmed: t.boolean(),
    isSystemField: t.boolean(),
    systemKey: t.string(),
  }),
});

const TemplateGroupInput = builder.inputType('TemplateGroupInput', {
  fields: (t) => ({
    id: t.string(),
    name: t.string({ required: true }),
    fields: t.field({ type: [TemplateFieldInput], required: true }),
  }),
});

const TemplateCreateInput = builder.inputType('TemplateCreateInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    enabled: t.boolean(),
    groups: t.field({ type: [TemplateGroupInput], required: true }),
    boundBrandIds: t.intList(),
    boundCategoryIds: t.intList(),
    isLibraryDefault: t.boolean(),
    syncStrategy: t.string(),
  }),
});

const TemplatePatchInput = builder.inputType('TemplatePatchInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    enabled: t.boolean(),
    groups: t.field({ type: [TemplateGroupInput] }),
    boundBrandIds: t.intList(),
    boundCategoryIds: t.intList(),
    isLibraryDefault: t.boolean(),
    syncStrategy: t.string(),
  }),
});

const TemplateDeleteInput = builder.inputType('TemplateDeleteInput', {
  fields: (t) => ({
    replacementForLibraryDefault: t.string({ description: 'Required when deleting the library default: another live template id, or null to clear.' }),
  }),
});

builder.queryFields((t) => ({
  templates: t.field({
    type: TemplatePageRef,
    description: 'Live templates, createdAt descending then id.',
    args: { page: t.arg.int(), pageSize: t.arg.int() },
    resolve: (_root, args, gql) => gql.core.templates.listPage(gql.ctx, { page: args.page ?? undefined, pageSize: args.pageSize ?? undefined }),
  }),
  template: t.field({
    type: TemplateResultRef,
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.templates.get(gql.ctx, args.id);
      return { template: data, etag };
    },
  }),
  templateVersion: t.field({
    type: TemplateVersionRef,
    description: 'One version by id, also of a deleted template (products pin versions).',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, gql) => gql.core.templates.getVersion(gql.ctx, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createTemplate: t.field({
    type: TemplateResultRef,
    args: { input: t.arg({ type: TemplateCreateInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const outcome = await gql.core.templates.create(gql.ctx, args.input, args.idempotencyKey ?? undefined);
      return { template: outcome.body, etag: outcome.etag ?? '' };
    },
  }),
  updateTemplate: t.field({
    type: TemplateResultRef,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: TemplatePatchInput, required: true }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.templates.update(gql.ctx, args.id, args.input, args.ifMatch ?? undefined);
      return { template: data, etag };
    },
  }),
  deleteTemplate: t.field({
    type: DeletedTemplateRef,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: TemplateDeleteInput }), ifMatch: t.arg.string() },
    resolve: async (_root, args, gql) => {
      const { data, etag } = await gql.core.templates.softDelete(gql.ctx, args.id, args.input ?? undefined, args.ifMatch ?? undefined);
      return { id: data.id, etag };
    },
  }),
}));
