import type {
  CustomFieldTemplateView,
  CustomFieldView,
  CustomValueView,
  FileMetadataView,
  FileTemplateValuesView,
  MetadataFieldView,
  MetadataValueView,
} from '../../core/assets/custom-metadata/custom-metadata.schemas.ts';
import { FIELD_TYPES } from '../../core/assets/custom-metadata/field-types.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { countedAs, LIST_BOUNDS, listCost } from '../costs.ts';
import { enumFromCore } from '../enums.ts';
import { pageQuery, RFC3339_MICROS } from '../shapes.ts';
import { AssetItemRef } from './asset-item.ts';
import { JsonRef } from './json.ts';

/*
 * Custom metadata fields, custom field templates and the values files carry (docs/library.md
 * "Custom metadata and custom fields").
 */

const VALUE_RULES =
  "text: a string of at most 2000 characters; number: a finite number; date: YYYY-MM-DD, or an RFC 3339 date-time (shown in UTC with microseconds); select: one of the field's options, exactly.";

const FieldTypeEnum = enumFromCore('CustomFieldType', {
  description: 'The type of a custom metadata field or template custom field; it decides which values it takes.',
  values: FIELD_TYPES,
  describe: {
    text: 'A string of at most 2000 characters.',
    number: 'A finite number (JSON number).',
    date: 'YYYY-MM-DD, or an RFC 3339 date-time (kept in UTC with microseconds).',
    select: "One of the field's options, exactly.",
  },
});

const MetadataFieldRef = builder.objectRef<MetadataFieldView>('LibraryMetadataField').implement({
  description: 'A custom metadata field of the team: files carry at most one value of it in their metadata record.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Field id: setLibraryFileMetadata values[].fieldId.' }),
    name: t.exposeString('name', { description: "Unique in the team; the key of the field's value in the METADATA event's `metadata`." }),
    type: t.field({ type: FieldTypeEnum, description: 'What values the field takes.', resolve: (f) => f.type }),
    options: t.exposeStringList('options', { nullable: true, description: 'SELECT: the allowed values; null for the other types.' }),
    createdAt: t.exposeString('createdAt', { description: RFC3339_MICROS }),
  }),
});

const CustomFieldRef = builder.objectRef<CustomFieldView>('CustomField').implement({
  description: 'One custom field of a custom field template.',
  fields: (t) => ({
    id: t.exposeInt('id', {
      description:
        'Custom field id: search-assets customFieldId, setLibraryFileCustomFields values[].customFieldId, the key of its value in the CUSTOM_FIELD event.',
    }),
    templateId: t.exposeInt('templateId', { description: 'The template it belongs to.' }),
    name: t.exposeString('name', { description: 'Unique within the template.' }),
    type: t.field({ type: FieldTypeEnum, description: 'What values the field takes.', resolve: (f) => f.type }),
    options: t.exposeStringList('options', { nullable: true, description: 'SELECT: the allowed values; null for the other types.' }),
    position: t.exposeInt('position', { description: 'Its place in the template, from 0.' }),
  }),
});

const TemplateRef = builder.objectRef<CustomFieldTemplateView>('CustomFieldTemplate').implement({
  description: 'A custom field template of the team: a named set of custom fields whose values files carry.',
  fields: (t) => ({
    id: t.exposeInt('id', {
      description:
        "Template id: search-assets customFieldTemplateIds, setLibraryFileCustomFields templateId, the key in the CUSTOM_FIELD event's customFields.",
    }),
    name: t.exposeString('name', { description: 'Unique in the team.' }),
    createdAt: t.exposeString('createdAt', { description: RFC3339_MICROS }),
    fields: t.field({
      type: [CustomFieldRef],
      description: `Its custom fields in order. ${countedAs(LIST_BOUNDS.customFieldsPerTemplate, 'a template has at most 50')}`,
      complexity: listCost(LIST_BOUNDS.customFieldsPerTemplate),
      resolve: (template) => template.fields,
    }),
  }),
});

const MetadataValueRef = builder.objectRef<MetadataValueView>('LibraryMetadataValue').implement({
  description: 'One metadata value of a file.',
  fields: (t) => ({
    fieldId: t.exposeInt('fieldId', { description: 'The metadata field.' }),
    name: t.exposeString('name', { description: "The field's name." }),
    type: t.field({ type: FieldTypeEnum, description: "The field's type.", resolve: (v) => v.type }),
    value: t.field({ type: JsonRef, description: `The value: a string, or a number for NUMBER. ${VALUE_RULES}`, resolve: (v) => v.value }),
  }),
});

const FileMetadataRef = builder.objectRef<FileMetadataView>('LibraryFileMetadata').implement({
  description: "A file's custom metadata: its record and values.",
  fields: (t) => ({
    materialId: t.exposeInt('materialId', { description: 'The file-path ID.' }),
    recordId: t.exposeInt('recordId', {
      nullable: true,
      description: "The file's metadata record (the METADATA event's recordId), made with its first value; null before.",
    }),
    values: t.field({
      type: [MetadataValueRef],
      description: `Its values, by field name. ${countedAs(LIST_BOUNDS.fileValuesEstimate, 'an estimate; at most one per metadata field, 200')}`,
      complexity: listCost(LIST_BOUNDS.fileValuesEstimate),
      resolve: (m) => m.values,
    }),
  }),
});

const CustomValueRef = builder.objectRef<CustomValueView>('LibraryCustomFieldValue').implement({
  description: 'One custom field value of a file.',
  fields: (t) => ({
    customFieldId: t.exposeInt('customFieldId', { description: 'The custom field.' }),
    name: t.exposeString('name', { description: "The custom field's name." }),
    type: t.field({ type: FieldTypeEnum, description: "The custom field's type.", resolve: (v) => v.type }),
    value: t.field({ type: JsonRef, description: `The value: a string, or a number for NUMBER. ${VALUE_RULES}`, resolve: (v) => v.value }),
  }),
});

const FileCustomFieldsRef = builder.objectRef<FileTemplateValuesView>('LibraryFileCustomFields').implement({
  description: "A file's values of one template's custom fields; a file carries a template while it has at least one of them.",
  fields: (t) => ({
    materialId: t.exposeInt('materialId', { description: 'The file-path ID.' }),
    templateId: t.exposeInt('templateId', { description: 'The template.' }),
    templateName: t.exposeString('templateName', { description: "The template's name." }),
    values: t.field({
      type: [CustomValueRef],
      description: `Its values, in the template's order; empty when the file has none. ${countedAs(LIST_BOUNDS.fileValuesEstimate, "an estimate; at most the template's 50 fields")}`,
      complexity: listCost(LIST_BOUNDS.fileValuesEstimate),
      resolve: (v) => v.values,
    }),
  }),
});

builder.objectFields(AssetItemRef, (t) => ({
  metadata: t.loadable({
    type: FileMetadataRef,
    description: "The file's custom metadata (GraphQL only; not part of the /open AssetItem).",
    load: (fileIds: number[], gql: GqlContext) => gql.core.assets.customMetadata.fileMetadata.forFiles(gql.ctx, fileIds),
    sort: (metadata) => metadata.materialId,
    resolve: (item) => item.id,
  }),
  customFields: t.loadableList({
    type: FileCustomFieldsRef,
    description: `The file's custom field values per template it carries, by template name (GraphQL only; search with customFieldTemplateIds / customFieldId). ${countedAs(LIST_BOUNDS.fileTemplatesEstimate, "an estimate; at most the team's 100 templates")}`,
    complexity: listCost(LIST_BOUNDS.fileTemplatesEstimate),
    load: async (fileIds: number[], gql: GqlContext) => {
      const views = await gql.core.assets.customMetadata.fileCustomFields.forFiles(gql.ctx, fileIds);
      return fileIds.map((id) => views.filter((v) => v.materialId === id));
    },
    resolve: (item) => item.id,
  }),
}));

const FieldDefinitionInputRef = builder.inputType('CustomFieldDefinitionInput', {
  description: 'A field to define: a metadata field, or one custom field of a template.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description:
        '1-64 characters, not blank, no control characters (trimmed); unique in the team (metadata fields) or in the template (custom fields), else name_in_use / validation_failed.',
    }),
    type: t.field({ type: FieldTypeEnum, required: true, description: 'What values the field takes.' }),
    options: t.stringList({
      description: 'SELECT only, and required there: 1-100 distinct options of 1-100 characters. Other types: omit (validation_failed otherwise).',
    }),
  }),
});

const TemplateInputRef = builder.inputType('CustomFieldTemplateInput', {
  description: 'A custom field template to define, with its fields.',
  fields: (t) => ({
    name: t.string({ required: true, description: '1-64 characters, unique in the team (else name_in_use).' }),
    fields: t.field({ type: [FieldDefinitionInputRef], required: true, description: '1-50 custom fields with distinct names, in order.' }),
  }),
});

const MetadataValueInputRef = builder.inputType('LibraryMetadataValueInput', {
  description: 'One metadata value to set or clear.',
  fields: (t) => ({
    fieldId: t.int({ required: true, description: 'A metadata field of the team (another id: validation_failed naming values[i].fieldId).' }),
    value: t.field({
      type: JsonRef,
      description: `The new value; null or omitted clears it. ${VALUE_RULES} A wrong value: validation_failed naming values[i].value.`,
    }),
  }),
});

const CustomValueInputRef = builder.inputType('LibraryCustomFieldValueInput', {
  description: 'One custom field value to set or clear.',
  fields: (t) => ({
    customFieldId: t.int({ required: true, description: 'A custom field of the template (another id: validation_failed naming values[i].customFieldId).' }),
    value: t.field({
      type: JsonRef,
      description: `The new value; null or omitted clears it. ${VALUE_RULES} A wrong value: validation_failed naming values[i].value.`,
    }),
  }),
});

builder.queryFields((t) => ({
  libraryMetadataFields: t.field({
    type: [MetadataFieldRef],
    description: `The team's custom metadata fields, by name; any role of the team may read them. Their options count against the operation's byte limit (at most about 8 MB for 200 fields; response_too_large, docs/graphql.md "Limits"). ${countedAs(LIST_BOUNDS.metadataFields, 'a team has at most 200')}`,
    complexity: listCost(LIST_BOUNDS.metadataFields),
    resolve: (_root, _args, gql) => gql.core.assets.customMetadata.fields.list(gql.ctx),
  }),
  customFieldTemplates: t.field({
    type: [TemplateRef],
    description: `The team's custom field templates, by name, each with its fields; any role of the team may read them. A page holds 100 by default, the most a team may have, so without arguments the answer is all of them; a template may carry about 1 MB of options, so a page counts against the operation's byte limit (response_too_large: ask for a smaller pageSize; docs/graphql.md "Limits"). Errors: validation_failed (page, pageSize), response_too_large. ${countedAs(LIST_BOUNDS.customFieldTemplates, 'a team has at most 100')}`,
    args: {
      page: t.arg.int({ description: 'Page from 1 (default 1).' }),
      pageSize: t.arg.int({ description: 'Templates per page (default 100, at most 100).' }),
    },
    complexity: listCost(LIST_BOUNDS.customFieldTemplates),
    resolve: async (_root, args, gql) => (await collectPage(gql.ctx, await gql.core.assets.customMetadata.templates.list(gql.ctx, pageQuery(args)))).items,
  }),
}));

builder.mutationFields((t) => ({
  createLibraryMetadataField: t.field({
    type: MetadataFieldRef,
    description:
      'Defines a custom metadata field of the team; needs a key of manage role (a named member may not). At most 200 per team. Errors: forbidden, name_in_use (the team has a field of that name), validation_failed.',
    args: { input: t.arg({ type: FieldDefinitionInputRef, required: true, description: 'The field.' }) },
    resolve: (_root, args, gql) => gql.core.assets.customMetadata.fields.create(gql.ctx, withoutNulls(args.input)),
  }),
  createCustomFieldTemplate: t.field({
    type: TemplateRef,
    description:
      'Defines a custom field template with its custom fields; needs a key of manage role (a named member may not). At most 100 per team. Errors: forbidden, name_in_use (the team has a template of that name), validation_failed.',
    args: { input: t.arg({ type: TemplateInputRef, required: true, description: 'The template and its fields.' }) },
    resolve: (_root, args, gql) =>
      gql.core.assets.customMetadata.templates.create(gql.ctx, { name: args.input.name, fields: args.input.fields.map((f) => withoutNulls(f)) }),
  }),
  setLibraryFileMetadata: t.field({
    type: FileMetadataRef,
    description:
      "Sets or clears some of a file's metadata values (the others stay); needs editable or higher. Writes a MATERIAL_METADATA_UPDATED METADATA event with only the fields created or updated now; a call that changes nothing writes none. Errors: not_found (file), validation_failed (a field not of the team, a value of the wrong type: nothing is changed).",
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID.' }),
      values: t.arg({ type: [MetadataValueInputRef], required: true, description: '1-100 values, each field at most once.' }),
    },
    resolve: (_root, args, gql) =>
      gql.core.assets.customMetadata.fileMetadata.set(gql.ctx, args.id, { values: args.values.map((v) => ({ fieldId: v.fieldId, value: v.value ?? null })) }),
  }),
  setLibraryFileCustomFields: t.field({
    type: FileCustomFieldsRef,
    description:
      "Sets or clears some of a file's values of one template's custom fields (the others stay); needs editable or higher. Writes a MATERIAL_METADATA_UPDATED CUSTOM_FIELD event with only the custom fields set or cleared now; a call that changes nothing writes none. Errors: not_found (template or file), validation_failed (a custom field not of the template, a value of the wrong type: nothing is changed).",
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID.' }),
      templateId: t.arg.int({ required: true, description: 'A custom field template of the team.' }),
      values: t.arg({ type: [CustomValueInputRef], required: true, description: '1-100 values, each custom field at most once.' }),
    },
    resolve: (_root, args, gql) =>
      gql.core.assets.customMetadata.fileCustomFields.set(gql.ctx, args.id, {
        templateId: args.templateId,
        values: args.values.map((v) => ({ customFieldId: v.customFieldId, value: v.value ?? null })),
      }),
  }),
}));
