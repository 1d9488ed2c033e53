import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { canonicalJson } from '../../platform/canonical-json.ts';
import type { FieldIssue } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { type SchemaError, schemaErrorsToIssues } from '../../platform/validate.ts';
import type { FieldType } from './template.schemas.ts';

export type FieldConfig = Record<string, unknown>;

/** Types whose config is `{}` only (spec 2.4 table, first row). */
const EMPTY_CONFIG_TYPES: readonly FieldType[] = ['text', 'textarea', 'email', 'phone', 'url', 'color', 'date', 'dateRange'];
const CHOICE_TYPES: readonly FieldType[] = ['select', 'radio', 'checkbox'];
const MEDIA_TYPES: readonly FieldType[] = ['image', 'file'];

const Option = Type.Object({
  value: Type.String({ minLength: 1, maxLength: 255 }),
  label: Type.String({ minLength: 1, maxLength: 255 }),
  sortOrder: Type.Integer({ minimum: 0, maximum: MAX_RESOURCE_ID }),
  archived: Type.Optional(Type.Boolean()),
});

// Spec 2.4: "Empty and system configurations reject unknown properties; other configuration and
// option validators strip unknown properties" - hence additionalProperties false only on those two.
const schemas = {
  empty: Compile(Type.Object({}, { additionalProperties: false })),
  system: Compile(Type.Object({ customPlaceholder: Type.Optional(Type.String({ maxLength: 255 })) }, { additionalProperties: false })),
  number: Compile(Type.Object({ unit: Type.Optional(Type.String({ maxLength: 64 })) })),
  currency: Compile(
    Type.Object({
      code: Type.String({ minLength: 1, maxLength: 16 }),
      symbol: Type.String({ minLength: 1, maxLength: 16 }),
      decimals: Type.Integer({ minimum: 0, maximum: 4 }),
    }),
  ),
  richtext: Compile(Type.Object({ mode: Type.Union([Type.Literal('html'), Type.Literal('delta')]) })),
  choice: Compile(Type.Object({ options: Type.Array(Option, { minItems: 1, maxItems: 1000 }) })),
  media: Compile(
    Type.Object({
      maxCount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID })),
      maxSizeMB: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
      accept: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 })),
    }),
  ),
};

type Outcome = { config: FieldConfig; issues: FieldIssue[] };

function check(schema: { Check(v: unknown): boolean; Errors(v: unknown): unknown[] }, value: unknown, path: string): FieldIssue[] {
  if (schema.Check(value)) return [];
  return schemaErrorsToIssues(schema.Errors(value) as unknown as SchemaError[], path);
}

/** Copies only the named properties that are present, in a fixed order (this is the stripping). */
function pick(source: FieldConfig, keys: readonly string[]): FieldConfig {
  const out: FieldConfig = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

function validateChoice(config: FieldConfig, path: string): Outcome {
  const issues = check(schemas.choice, config, path);
  if (issues.length > 0) return { config, issues };
  const options = (config.options as FieldConfig[]).map((o) => pick(o, ['value', 'label', 'sortOrder', 'archived']));
  const seen = new Set<string>();
  options.forEach((option, i) => {
    if (seen.has(option.value as string)) issues.push({ field: `${path}.options[${i}].value`, message: 'must be unique within the field' });
    seen.add(option.value as string);
  });
  return { config: { options }, issues };
}

/** Validates `config` for a custom field of `type` (spec 2.4 table) and returns it with unknown properties stripped where the spec says so. */
export function validateFieldConfig(type: FieldType, config: unknown, path: string): Outcome {
  const value = config as FieldConfig;
  if (EMPTY_CONFIG_TYPES.includes(type)) return { config: {}, issues: check(schemas.empty, value, path) };
  if (CHOICE_TYPES.includes(type)) return validateChoice(value, path);
  const [schema, keys] =
    type === 'number'
      ? [schemas.number, ['unit']]
      : type === 'currency'
        ? [schemas.currency, ['code', 'symbol', 'decimals']]
        : type === 'richtext'
          ? [schemas.richtext, ['mode']]
          : [schemas.media, ['maxCount', 'maxSizeMB', 'accept']];
  const issues = check(schema, value, path);
  return { config: issues.length > 0 ? value : pick(value, keys), issues };
}

/** Validates a system field's config: only `customPlaceholder`, unknown properties rejected (spec 2.4). */
export function validateSystemConfig(config: unknown, path: string): Outcome {
  return { config: config as FieldConfig, issues: check(schemas.system, config, path) };
}

/** What a type keeps of the old config when a field changes type (spec 4.4: config is migrated). */
function carriedKeys(from: FieldType, to: FieldType): readonly string[] {
  if (CHOICE_TYPES.includes(from) && CHOICE_TYPES.includes(to)) return ['options'];
  if (MEDIA_TYPES.includes(from) && MEDIA_TYPES.includes(to)) return ['maxCount', 'maxSizeMB', 'accept'];
  return [];
}

/**
 * The config a field gets when its type changes and no new config is supplied: what the new type
 * can carry over from the old one, plus `mode: html` for richtext. Currency and the choice types
 * coming from elsewhere get nothing, so they fail validation until the caller supplies a config.
 */
export function migrateConfig(from: FieldType, oldConfig: FieldConfig, to: FieldType): FieldConfig {
  const carried = pick(oldConfig, carriedKeys(from, to));
  return to === 'richtext' ? { mode: 'html', ...carried } : carried;
}

/**
 * A type change loses information - and so needs `typeChangeConfirmed: true` - when the current
 * config holds a property the new type cannot carry over (options, unit, currency code, richtext
 * mode, media limits). Changes between types whose config is empty lose nothing.
 */
export function typeChangeLosesConfig(from: FieldType, oldConfig: FieldConfig, to: FieldType): boolean {
  if (from === to) return false;
  const carried = carriedKeys(from, to);
  return Object.keys(oldConfig).some((key) => oldConfig[key] !== undefined && !carried.includes(key));
}

/** Deep equality of two JSON configs, ignoring key order (jsonb reorders keys). */
export function sameConfig(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
