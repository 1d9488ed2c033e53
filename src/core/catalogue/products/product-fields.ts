import type { FieldIssue } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import type { TemplateFieldView, TemplateGroupView } from '../templates/template.schemas.ts';
import type { LiveFiles } from './product-projection.ts';

/*
 * Custom template field values of a product (spec 4.5 templateFields): keyed by the stable field id
 * of the pinned template version, validated by type even on drafts. The input formats are
 * documented in docs/products.md ("templateFields formats").
 */

/** Longest accepted string per type (the spec leaves them open; the 1 MiB body bounds richtext). */
export const FIELD_TEXT_LIMITS = { text: 1000, textarea: 65535, email: 254, phone: 32, url: 2048 } as const;

const MEDIA_TYPES = new Set(['image', 'file']);

/** Non-media values and media values (file-path ids) are stored apart, so reads need no definition. */
export interface CustomValues {
  templateFields: Record<string, unknown>;
  mediaFields: Record<string, number[]>;
}

/** A custom media value set by this write, to be checked against the library and the field's limits. */
export interface MediaFieldInput {
  field: TemplateFieldView;
  ids: number[];
}

export function fieldsOf(groups: readonly TemplateGroupView[]): Map<string, TemplateFieldView> {
  const fields = new Map<string, TemplateFieldView>();
  for (const group of groups) for (const field of group.fields) fields.set(field.id, field);
  return fields;
}

export function isMediaField(field: Pick<TemplateFieldView, 'type'>): boolean {
  return MEDIA_TYPES.has(field.type);
}

const DATE = /^(\d{4})-(\d\d)-(\d\d)$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ().-]+$/;
const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

function isDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // a calendar date, not a timestamp: Date.UTC only checks that the day exists
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function liveOptionValues(field: TemplateFieldView): Set<string> {
  const options = (field.config.options ?? []) as Array<{ value: string; archived?: boolean }>;
  return new Set(options.filter((o) => !o.archived).map((o) => o.value));
}

function stringWithin(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return 'must be a string';
  return value.length > max ? `must be at most ${max} characters` : null;
}

function currencyProblem(value: unknown, field: TemplateFieldView): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a JSON number';
  const decimals = Number(field.config.decimals ?? 0);
  return Number(value.toFixed(decimals)) === value ? null : `must have at most ${decimals} decimal places`;
}

function richtextProblem(value: unknown, field: TemplateFieldView): string | null {
  if (field.config.mode === 'delta') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object {"ops": [...]} in delta mode';
    const keys = Object.keys(value);
    const ops = (value as { ops?: unknown }).ops;
    if (keys.length !== 1 || !Array.isArray(ops)) return 'must be an object {"ops": [...]} in delta mode';
    return ops.every(isDeltaOp) ? null : 'ops must be delta operations (insert, retain or delete, with optional attributes)';
  }
  return typeof value === 'string' ? null : 'must be an HTML string in html mode';
}

function isDeltaOp(op: unknown): boolean {
  if (op === null || typeof op !== 'object' || Array.isArray(op)) return false;
  const { insert, retain, delete: del, attributes, ...rest } = op as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return false;
  if (attributes !== undefined && (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes))) return false;
  const kinds = [insert, retain, del].filter((k) => k !== undefined);
  if (kinds.length !== 1) return false;
  if (insert !== undefined) return typeof insert === 'string' || (insert !== null && typeof insert === 'object' && !Array.isArray(insert));
  const count = retain ?? del;
  return Number.isInteger(count) && (count as number) >= 1;
}

function choiceProblem(value: unknown, field: TemplateFieldView): string | null {
  const allowed = liveOptionValues(field);
  if (field.type === 'checkbox') {
    if (!Array.isArray(value)) return 'must be an array of option values';
    if (new Set(value).size !== value.length) return 'must not repeat an option value';
    return value.every((v) => typeof v === 'string' && allowed.has(v)) ? null : 'must contain only values of non-archived options';
  }
  return typeof value === 'string' && allowed.has(value) ? null : 'must be the value of a non-archived option';
}

/** Why a non-null, non-media value does not fit its field's type, or null when it fits. */
export function valueProblem(field: TemplateFieldView, value: unknown): string | null {
  switch (field.type) {
    case 'text':
    case 'textarea':
      return stringWithin(value, FIELD_TEXT_LIMITS[field.type]);
    case 'email':
      return stringWithin(value, FIELD_TEXT_LIMITS.email) ?? (EMAIL.test(value as string) ? null : 'must be an email address');
    case 'phone': {
      const problem = stringWithin(value, FIELD_TEXT_LIMITS.phone);
      if (problem) return problem;
      const digits = (value as string).replace(/\D/g, '').length;
      return PHONE.test(value as string) && digits >= 3 ? null : 'must be a phone number: digits, spaces, ( ) . - and an optional leading +';
    }
    case 'url':
      return stringWithin(value, FIELD_TEXT_LIMITS.url) ?? (isHttpUrl(value as string) ? null : 'must be an absolute http(s) URL');
    case 'color':
      return typeof value === 'string' && COLOR.test(value) ? null : 'must be a hex colour #RGB, #RRGGBB or #RRGGBBAA';
    case 'date':
      return isDate(value) ? null : 'must be a date YYYY-MM-DD';
    case 'dateRange':
      if (!Array.isArray(value) || value.length !== 2 || !isDate(value[0]) || !isDate(value[1])) return 'must be a pair of dates ["YYYY-MM-DD", "YYYY-MM-DD"]';
      return value[0] <= value[1] ? null : 'must be ordered: the start date is not after the end date';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a JSON number';
    case 'currency':
      return currencyProblem(value, field);
    case 'richtext':
      return richtextProblem(value, field);
    case 'select':
    case 'radio':
    case 'checkbox':
      return choiceProblem(value, field);
    default:
      return 'has an unsupported type';
  }
}

function mediaIdsProblem(field: TemplateFieldView, value: unknown): string | null {
  if (!Array.isArray(value)) return 'must be an array of file-path IDs or null';
  if (!value.every((id) => Number.isInteger(id) && id >= 1 && id <= MAX_RESOURCE_ID)) return 'must contain only file-path IDs (positive integers)';
  if (new Set(value).size !== value.length) return 'must not repeat a file-path ID';
  const maxCount = field.config.maxCount as number | undefined;
  return maxCount !== undefined && value.length > maxCount ? `must hold at most ${maxCount} files (the field's maxCount)` : null;
}

/**
 * Shallow-merges `input` into `current` (null clears one value): unknown and system field ids are
 * rejected, and every value is checked against its field's type and options. Media values are
 * returned separately so the caller can check them against the library.
 */
export function mergeCustomValues(
  definition: readonly TemplateGroupView[] | null,
  current: CustomValues,
  input: Record<string, unknown>,
): { values: CustomValues; media: MediaFieldInput[]; issues: FieldIssue[] } {
  const fields = fieldsOf(definition ?? []);
  const values: CustomValues = { templateFields: { ...current.templateFields }, mediaFields: { ...current.mediaFields } };
  const media: MediaFieldInput[] = [];
  const issues: FieldIssue[] = [];
  for (const [id, value] of Object.entries(input)) {
    const path = `templateFields.${id}`;
    const field = fields.get(id);
    if (!field) {
      issues.push({ field: path, message: definition ? unknownFieldMessage(id, fields) : 'the product has no template' });
      continue;
    }
    if (field.isSystemField) {
      issues.push({ field: path, message: 'is a system field: set it through name, spu or coverAssetId' });
      continue;
    }
    if (value === null) {
      delete values.templateFields[id];
      delete values.mediaFields[id];
      continue;
    }
    const problem = isMediaField(field) ? mediaIdsProblem(field, value) : valueProblem(field, value);
    if (problem) {
      issues.push({ field: path, message: `${problem} ("${field.name}", a ${field.type} field)` });
    } else if (isMediaField(field)) {
      values.mediaFields[id] = value as number[];
      media.push({ field, ids: value as number[] });
    } else {
      values.templateFields[id] = value;
    }
  }
  return { values, media, issues };
}

/** Whether a stored value counts as empty: nothing, blank text, no items, a delta of whitespace only. */
export function isBlank(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && Array.isArray((value as { ops?: unknown }).ops)) {
    // a delta document of whitespace only is empty, as an editor shows it
    const ops = (value as { ops: Array<{ insert?: unknown }> }).ops;
    return ops.every((op) => typeof op.insert === 'string' && op.insert.trim() === '');
  }
  return false;
}

/** What the completeness check needs of a product (spec 3.1: publishing validates the complete product). */
export interface CompletenessInput {
  name: string;
  spu: string | null;
  /** The effective cover, only when its file is live. */
  hasCover: boolean;
  values: CustomValues;
  /** Media ids of the product whose files are live (each to the file shown for it; products.md "Media"). */
  liveFileIds: LiveFiles;
}

/**
 * The fields that keep a product from being published: the name (always required), and every
 * required field of the pinned definition without a value. System fields map onto the product's
 * own columns (name, spu, cover). Returns validation details, empty when complete.
 */
export function missingRequired(definition: readonly TemplateGroupView[] | null, product: CompletenessInput): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (product.name.trim() === '') issues.push({ field: 'name', message: 'is required to publish' });
  for (const field of fieldsOf(definition ?? []).values()) {
    if (!field.required) continue;
    if (field.isSystemField) {
      if (field.systemKey === 'sku' && product.spu === null) issues.push({ field: 'spu', message: 'is required by the template to publish' });
      if (field.systemKey === 'mainImage' && !product.hasCover) issues.push({ field: 'coverAssetId', message: 'is required by the template to publish' });
      continue;
    }
    const missing = isMediaField(field)
      ? !(product.values.mediaFields[field.id] ?? []).some((id) => product.liveFileIds.has(id))
      : isBlank(product.values.templateFields[field.id]);
    if (missing) issues.push({ field: `templateFields.${field.id}`, message: `"${field.name}" is required to publish` });
  }
  return issues;
}

/** How many fields an unknown-key message lists before it points at the definition. */
const LISTED_FIELDS = 20;

/**
 * The message for a templateFields key that is no field id of the pinned version: it lists the
 * valid ids with their labels, and says so when the caller sent a field's key instead of its id
 * (templateFields are keyed by stable field ids, spec 4.5).
 */
function unknownFieldMessage(id: string, fields: ReadonlyMap<string, TemplateFieldView>): string {
  const custom = [...fields.values()].filter((f) => !f.isSystemField);
  const sameKey = custom.find((f) => f.key === id);
  const hint = sameKey ? ` "${id}" is the key of field ${sameKey.id} ("${sameKey.name}"): templateFields are keyed by field id, not key.` : '';
  const listed = custom.slice(0, LISTED_FIELDS).map((f) => `${f.id} ("${f.name}")`);
  const more = custom.length > LISTED_FIELDS ? `, and ${custom.length - LISTED_FIELDS} more in the product's templateDefinition` : '';
  const valid = custom.length === 0 ? ' The pinned version has no custom fields.' : ` Its custom fields are: ${listed.join(', ')}${more}.`;
  return `is not a field of the pinned template version.${hint}${valid}`;
}

/** Spec 2.5 draftReason: a short text naming what a draft lacks to be published (with each template field's label), or null. */
export function draftReasonOf(issues: readonly FieldIssue[], definition: readonly TemplateGroupView[] | null): string | null {
  if (issues.length === 0) return null;
  const fields = fieldsOf(definition ?? []);
  const named = issues.map((issue) => {
    const field = issue.field.startsWith('templateFields.') ? fields.get(issue.field.slice('templateFields.'.length)) : undefined;
    return field ? `${issue.field} ("${field.name}")` : issue.field;
  });
  return `Missing required values: ${named.join(', ')}`;
}
