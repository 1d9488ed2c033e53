import { type Static, Type } from 'typebox';
import type { FieldIssue } from '../../platform/errors.ts';
import { isRealDate, isStorableTimestamp } from '../../platform/timestamps.ts';

/**
 * The types of custom metadata fields and template custom fields (docs/library.md "Custom
 * metadata and custom fields"), and the rules their values follow.
 */
export const FIELD_TYPES = ['text', 'number', 'date', 'select'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Limits of definitions and values. */
export const CUSTOM_METADATA_LIMITS = {
  nameLength: 64,
  /** Options of a select field, and the length of each. */
  options: 100,
  optionLength: 100,
  /** A text value, in characters. */
  textLength: 2000,
  /** Metadata fields per team; templates per team; custom fields per template. */
  metadataFields: 200,
  templates: 100,
  templateFields: 50,
  /** Values set in one call. */
  valuesPerCall: 100,
} as const;

/** A value as it is stored and shown: text, a select option and a date are strings; a number is a number. */
export type FieldValue = string | number;

/** A field's definition as values are checked against it. */
export interface FieldDefinition {
  id: number;
  name: string;
  type: FieldType;
  /** The allowed values of a select field; null for the other types. */
  options: string[] | null;
}

/** A field as a definition input gives it (a metadata field, or one field of a template). */
export const FieldDefinitionInput = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: CUSTOM_METADATA_LIMITS.nameLength,
      description: '1-64 characters, not blank, no control characters; unique (per team for metadata fields, per template for custom fields).',
    }),
    type: Type.Union([Type.Literal('text'), Type.Literal('number'), Type.Literal('date'), Type.Literal('select')], {
      description: 'text, number, date or select.',
    }),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: CUSTOM_METADATA_LIMITS.optionLength }), {
        minItems: 1,
        maxItems: CUSTOM_METADATA_LIMITS.options,
        description: 'select only (required there): the allowed values, 1-100 distinct strings of 1-100 characters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FieldDefinitionInput = Static<typeof FieldDefinitionInput>;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** The name of a definition, trimmed; problems are added to `issues` under `field`. */
export function definitionName(name: string, field: string, issues: FieldIssue[]): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) issues.push({ field, message: 'must not be blank' });
  else if (CONTROL.test(trimmed)) issues.push({ field, message: 'must not contain control characters' });
  return trimmed;
}

/** A definition's rules beyond its schema: a select has distinct options, other types none. Returns the normalised definition. */
export function checkDefinition(input: FieldDefinitionInput, prefix: string, issues: FieldIssue[]): Omit<FieldDefinition, 'id'> {
  const name = definitionName(input.name, `${prefix}name`, issues);
  if (input.type !== 'select') {
    if (input.options !== undefined) issues.push({ field: `${prefix}options`, message: 'are allowed only for type select' });
    return { name, type: input.type, options: null };
  }
  if (input.options === undefined) {
    issues.push({ field: `${prefix}options`, message: 'are required for type select' });
    return { name, type: 'select', options: [] };
  }
  const options = input.options.map((o) => o.trim());
  options.forEach((option, i) => {
    if (option.length === 0) issues.push({ field: `${prefix}options[${i}]`, message: 'must not be blank' });
    else if (CONTROL.test(option)) issues.push({ field: `${prefix}options[${i}]`, message: 'must not contain control characters' });
    else if (options.indexOf(option) !== i) issues.push({ field: `${prefix}options[${i}]`, message: 'repeats an earlier option' });
  });
  return { name, type: 'select', options };
}

const DATE_ONLY = /^(\d{4})-(\d\d)-(\d\d)$/;

/**
 * A date value: `YYYY-MM-DD` (kept as is) or an RFC 3339 date-time, kept in UTC with six
 * fractional digits (`2026-03-01T08:00:00.000000Z`), as the project shows times; null when invalid.
 */
function normaliseDate(value: string): string | null {
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) return isRealDate(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])) ? value : null;
  if (!isStorableTimestamp(value)) return null;
  const [, y, m, d, hh, mm, ss, fraction = '', offset] = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)$/i.exec(value)!;
  const ms = Date.parse(`${y}-${m}-${d}T${hh}:${mm}:${ss}${offset!.toUpperCase()}`);
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction.padEnd(6, '0')}Z`;
}

/** What a value of each type must be, for error messages. */
const EXPECTED: Record<FieldType, string> = {
  text: `must be a string of at most ${CUSTOM_METADATA_LIMITS.textLength} characters`,
  number: 'must be a finite number',
  date: 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time',
  select: "must be one of the field's options",
};

/**
 * Checks a value against its field's type and returns it as stored: text at most 2000 characters,
 * a finite number, a real date (YYYY-MM-DD or RFC 3339, date-times normalised to UTC), or one of
 * a select's options exactly. A wrong value adds an issue naming `field` and the custom field.
 */
export function checkValue(definition: FieldDefinition, value: unknown, field: string, issues: FieldIssue[]): FieldValue | undefined {
  const refuse = () => {
    issues.push({ field, message: `${EXPECTED[definition.type]} ("${definition.name}" is ${definition.type})` });
    return undefined;
  };
  switch (definition.type) {
    case 'text':
      return typeof value === 'string' && [...value].length <= CUSTOM_METADATA_LIMITS.textLength ? value : refuse();
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : refuse();
    case 'date': {
      const date = typeof value === 'string' ? normaliseDate(value) : null;
      return date ?? refuse();
    }
    case 'select':
      return typeof value === 'string' && (definition.options ?? []).includes(value) ? value : refuse();
  }
}
