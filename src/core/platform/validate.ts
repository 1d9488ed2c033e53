import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { type FieldIssue, invalidFields } from './errors.ts';
import { refuseUnsafeInput } from './json-input.ts';
// registers the date-time format before any schema below is compiled
import './timestamp-schema.ts';
import { RFC3339_PATTERN, TIMESTAMP_RULE } from './timestamps.ts';

/** The shape shared by Ajv (Fastify) and TypeBox errors. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
}

function joinField(base: string, child: string): string {
  return base ? `${base}.${child}` : child;
}

/** Turns schema errors into `details[]` items: one per field, naming unknown and missing properties. */
export function schemaErrorsToIssues(errors: Iterable<SchemaError>, prefix = ''): FieldIssue[] {
  const issues = new Map<string, string>();
  for (const error of errors) {
    let field = pointerToField(error.instancePath);
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      const extra = error.params.additionalProperty ?? (error.params.additionalProperties as string[] | undefined)?.[0];
      field = joinField(field, String(extra));
      message = 'unknown field';
    } else if (error.keyword === 'required') {
      const missing = error.params.missingProperty ?? (error.params.requiredProperties as string[] | undefined)?.[0];
      field = joinField(field, String(missing));
      message = 'is required';
    } else if (
      error.keyword === 'boolean' &&
      error.params &&
      Object.keys(error.params).length === 0 &&
      /additionalProperties/.test(String((error as { schemaPath?: string }).schemaPath))
    ) {
      // TypeBox reports an unknown property as the `false` schema of additionalProperties
      message = 'unknown field';
    } else if (
      (error.keyword === 'format' && error.params.format === 'date-time') ||
      (error.keyword === 'pattern' && error.params.pattern === RFC3339_PATTERN)
    ) {
      message = TIMESTAMP_RULE;
    } else if (error.keyword === 'anyOf') {
      // summary errors: the specific one for the same field says more
      if (issues.has(joinField(prefix, field) || '(body)')) continue;
    }
    const key = joinField(prefix, field) || '(body)';
    if (!issues.has(key)) issues.set(key, message);
  }
  return [...issues].map(([field, message]) => ({ field, message }));
}

/** The largest `maxItems` anywhere in a schema (null when no array of it is bounded). */
function largestMaxItems(schema: unknown): number | null {
  let largest: number | null = null;
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    const maxItems = (node as { maxItems?: unknown }).maxItems;
    if (typeof maxItems === 'number') largest = Math.max(largest ?? 0, maxItems);
    for (const child of Object.values(node)) pending.push(child);
  }
  return largest;
}

/**
 * The input as error reporting sees it: arrays cut one item past the schema's largest maxItems.
 * Check() is linear, but listing the errors of a 100,000-item array with duplicates under
 * `uniqueItems` compares pairs (30,000 items: 1.7 s before the first error); cut there, the
 * maxItems error still names the array and the first items' errors stay as they were.
 */
function boundedForErrors(input: unknown, limit: number | null): unknown {
  if (limit === null) return input;
  const copy = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.length > limit + 1 ? value.slice(0, limit + 1) : value.slice();
    if (value !== null && typeof value === 'object') return { ...(value as object) };
    return value;
  };
  const root = copy(input);
  // refuseUnsafeInput bounded the depth already; the walk is iterative anyway
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown> | unknown[];
    if (node === null || typeof node !== 'object') continue;
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') {
        const copied = copy(child);
        (node as Record<string, unknown>)[key] = copied;
        pending.push(copied);
      }
    }
  }
  return root;
}

/** A schema compiled once, checking input at the core boundary so every adapter gets the same rules. */
export function compileInput<T extends TSchema>(schema: T) {
  const compiled = Compile(schema);
  const itemLimit = largestMaxItems(schema);
  return (input: unknown): Static<T> => {
    refuseUnsafeInput(input);
    if (compiled.Check(input)) return input as Static<T>;
    const details = schemaErrorsToIssues(compiled.Errors(boundedForErrors(input, itemLimit)) as Iterable<SchemaError>);
    throw invalidFields(details);
  };
}
