/**
 * Row mappers' checks: `queryRows<T>` only asserts a row's type, so a queries module checks the
 * columns where PostgreSQL's value and the TypeScript type can differ (bigint and `count(*)` come
 * back as strings, `numeric` too; arrays, JSON and nullable columns) before it hands rows on. A
 * failed check is a bug in the statement, not in the input, so it throws a plain Error naming the
 * column instead of letting a wrong type travel on.
 */

function mismatch(column: string, expected: string, value: unknown): never {
  throw new Error(`column ${column}: expected ${expected}, got ${value === null ? 'null' : typeof value} ${JSON.stringify(value)}`);
}

/** A 32-bit integer column (`int`, `::int` casts). */
export function int(value: unknown, column: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) mismatch(column, 'an integer', value);
  return value;
}

export function nullableInt(value: unknown, column: string): number | null {
  return value === null ? null : int(value, column);
}

/** A bigint column (ids of outbox events and deliveries): pg returns its digits as text, kept as text so no precision is lost. */
export function bigintText(value: unknown, column: string): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text)) mismatch(column, 'bigint digits', value);
  return text;
}

export function nullableBigintText(value: unknown, column: string): string | null {
  return value === null ? null : bigintText(value, column);
}

/** A bigint or `count(*)` that is small enough for a number (counts, sequences), from its text. */
export function bigintNumber(value: unknown, column: string): number {
  const n = Number(bigintText(value, column));
  if (!Number.isSafeInteger(n)) mismatch(column, 'a safe integer', value);
  return n;
}

export function float(value: unknown, column: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) mismatch(column, 'a float8', value);
  return value;
}

export function nullableFloat(value: unknown, column: string): number | null {
  return value === null ? null : float(value, column);
}

export function text(value: unknown, column: string): string {
  if (typeof value !== 'string') mismatch(column, 'text', value);
  return value;
}

export function nullableText(value: unknown, column: string): string | null {
  return value === null ? null : text(value, column);
}

export function bool(value: unknown, column: string): boolean {
  if (typeof value !== 'boolean') mismatch(column, 'a boolean', value);
  return value;
}

/** One of a fixed set of strings (a status or state column with a check constraint). */
export function oneOf<const T extends readonly string[]>(values: T, value: unknown, column: string): T[number] {
  if (typeof value !== 'string' || !values.includes(value)) mismatch(column, `one of ${values.join(', ')}`, value);
  return value as T[number];
}

/** An `int[]` column or `array_agg` of integers (pg parses it into an array). */
export function intList(value: unknown, column: string): number[] {
  if (!Array.isArray(value)) mismatch(column, 'an int[]', value);
  return value.map((item, i) => int(item, `${column}[${i}]`));
}

/** A `text[]` column or `array_agg` of text (pg parses it into an array). */
export function textList(value: unknown, column: string): string[] {
  if (!Array.isArray(value)) mismatch(column, 'a text[]', value);
  return value.map((item, i) => text(item, `${column}[${i}]`));
}

/** A `json`/`jsonb` array (json_agg): pg parses it; each item's shape is the mapper's to check. */
export function jsonList(value: unknown, column: string): unknown[] {
  if (!Array.isArray(value)) mismatch(column, 'a JSON array', value);
  return value;
}
