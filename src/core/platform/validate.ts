import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { type FieldIssue, invalidFields } from './errors.ts';
import { refuseUnsafeInput } from './json-input.ts';
// registers the date-time format before any schema below is compiled
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
    } else if (error.keyword === 'boolean' && error.params && Object.keys(error.params).length === 0 && /additionalProperties/.test(String((error as { schemaPath?: string }).schemaPath))) {
      // TypeBox reports an unknown property as the `false` schema of additionalProperties
      message = 'unknown field';
    } else if ((error.keyword === 'format' && error.params.format === 'date-time') || (error.keyword === 'pattern' && error.params.pattern === RFC3339_PATTERN)) {
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

/** A schema compiled once, checking input at the core boundary so every adapter gets the same rules. */
export function compileInput<T extends TSchema>(schema: T) {
  const compiled = Compile(schema);
  return (input: unknown): Static<T> => {
    refuseUnsafeInput(input);
    if (compiled.Check(input)) return input as Static<T>;
    const details = schemaErrorsToIssues(compiled.Errors(input) as Iterable<SchemaError>);
    throw invalidFields(details);
  };
}
