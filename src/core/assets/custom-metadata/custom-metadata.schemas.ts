import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { CUSTOM_METADATA_LIMITS, FieldDefinitionInput, type FieldType, type FieldValue } from './field-types.ts';

const id = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description });
/** Any JSON: the field's type decides (field-types.ts checkValue), so a wrong type is reported naming the custom field. */
const value = Type.Unknown({
  description: 'text: a string; number: a finite number; date: YYYY-MM-DD or RFC 3339; select: one of the options. null clears the value.',
});

/** Defines a custom metadata field of the team. */
export const MetadataFieldInput = { ...FieldDefinitionInput, $id: 'MetadataFieldInput' };

/** Defines a custom field template with its fields. */
export const CustomFieldTemplateInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: CUSTOM_METADATA_LIMITS.nameLength, description: '1-64 characters, unique per team.' }),
    fields: Type.Array(FieldDefinitionInput, {
      minItems: 1,
      maxItems: CUSTOM_METADATA_LIMITS.templateFields,
      description: "The template's custom fields, 1-50, names unique within the template.",
    }),
  },
  { $id: 'CustomFieldTemplateInput', additionalProperties: false },
);
export type CustomFieldTemplateInput = Static<typeof CustomFieldTemplateInput>;

/** Sets some of a file's metadata values; the others stay. */
export const SetFileMetadataInput = Type.Object(
  {
    values: Type.Array(Type.Object({ fieldId: id('A metadata field of the team.'), value }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: CUSTOM_METADATA_LIMITS.valuesPerCall,
      description: 'At most 100, each field at most once.',
    }),
  },
  { $id: 'SetFileMetadataInput', additionalProperties: false },
);
export type SetFileMetadataInput = Static<typeof SetFileMetadataInput>;

/** Sets some of a file's values of one template's custom fields; the others stay. */
export const SetFileCustomFieldsInput = Type.Object(
  {
    templateId: id('A custom field template of the team.'),
    values: Type.Array(Type.Object({ customFieldId: id('A custom field of that template.'), value }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: CUSTOM_METADATA_LIMITS.valuesPerCall,
      description: 'At most 100, each custom field at most once.',
    }),
  },
  { $id: 'SetFileCustomFieldsInput', additionalProperties: false },
);
export type SetFileCustomFieldsInput = Static<typeof SetFileCustomFieldsInput>;

/** A custom metadata field of the team. */
export interface MetadataFieldView {
  id: number;
  name: string;
  type: FieldType;
  options: string[] | null;
  /** RFC 3339, UTC, microseconds. */
  createdAt: string;
}

/** One custom field of a template; `id` is search-assets' customFieldId. */
export interface CustomFieldView {
  id: number;
  templateId: number;
  name: string;
  type: FieldType;
  options: string[] | null;
  position: number;
}

/** A custom field template with its fields in order. */
export interface CustomFieldTemplateView {
  id: number;
  name: string;
  createdAt: string;
  fields: CustomFieldView[];
}

/** One metadata value of a file, with its field. */
export interface MetadataValueView {
  fieldId: number;
  name: string;
  type: FieldType;
  value: FieldValue;
}

/** A file's metadata: its record (null before its first value) and its values, by field name. */
export interface FileMetadataView {
  materialId: number;
  recordId: number | null;
  values: MetadataValueView[];
}

/** One custom field value of a file. */
export interface CustomValueView {
  customFieldId: number;
  name: string;
  type: FieldType;
  value: FieldValue;
}

/** A file's values of one template's custom fields, in the template's order. */
export interface FileTemplateValuesView {
  materialId: number;
  templateId: number;
  templateName: string;
  values: CustomValueView[];
}
