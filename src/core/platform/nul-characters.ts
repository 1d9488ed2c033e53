import { DomainError, type FieldIssue } from './errors.ts';

/**
 * Where a value holds a NUL character (U+0000): PostgreSQL text cannot store one, so it would
 * fail deep inside a write as a 500. Returns the field paths (`name`, `assets[0].url`) of every
 * string that has one, nested objects and arrays included.
 */
export function nulFields(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [path || '(body)'] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => nulFields(item, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [...(key.includes('\u0000') ? [path || '(body)'] : []), ...nulFields(item, path ? `${path}.${key}` : key)]);
  }
  return [];
}

/** Refuses input with a NUL character as that area's validation failure, naming each field (issue 12 item 7). */
export function refuseNulCharacters(value: unknown, prefix = ''): void {
  const fields = nulFields(value, prefix);
  if (fields.length === 0) return;
  const details: FieldIssue[] = fields.map((field) => ({ field, message: 'must not contain the NUL character (U+0000)' }));
  throw new DomainError('validation_failed', 'The request is invalid', details, { reason: 'nul_character' });
}
