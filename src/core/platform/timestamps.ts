import { p } from '@mikro-orm/core';
import { invalid } from './errors.ts';

/**
 * An RFC 3339 date-time as inputs take it (up to microseconds; Z or an offset; `T` and `Z` in
 * either case), for TypeBox `pattern`. The shape only: `isStorableTimestamp` decides whether the
 * value names a real instant.
 */
export const RFC3339_PATTERN = '^\\d{4}-\\d\\d-\\d\\d[Tt]\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,6})?([Zz]|[+-]\\d\\d:\\d\\d)$';

/** What a refused timestamp input is told (docs/api-conventions.md "Input"). */
export const TIMESTAMP_RULE =
  'must be an RFC 3339 date-time that exists, with Z or an offset (at most ±15:59) and up to 6 fractional digits, between years 0001 and 9999 in UTC, e.g. 2026-01-31T12:00:00Z';

const PARTS = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d{1,6})?(?:[Zz]|[+-](\d\d):(\d\d))$/;
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Days in a month of the proleptic Gregorian calendar (PostgreSQL's): February has 29 in years divisible by 4, except centuries not divisible by 400. */
export function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** A calendar date that exists, years 0001-9999 (2026-02-30 and 2023-02-29 do not). */
export function isRealDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/**
 * The one check of every timestamp input (REST bodies and query strings, GraphQL arguments, CLI
 * flags): RFC 3339 in the shape of RFC3339_PATTERN, naming a date and time that exist (no
 * February 30, hour 24, minute or second 60), with an offset PostgreSQL accepts (at most 15:59),
 * and an instant whose UTC year is 0001-9999, so PostgreSQL never refuses it and Shelf's
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ` rendering stays four-digit. Anything else would fail inside a
 * query as a 500.
 */
export function isStorableTimestamp(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = PARTS.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as number[];
  if (!isRealDate(year!, month!, day!) || hour! > 23 || minute! > 59 || second! > 59) return false;
  if (offsetHour! > 15 || offsetMinute! > 59) return false;
  const ms = Date.parse(value);
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/** Refuses a timestamp input that isStorableTimestamp does not accept, as `422 validation_failed` naming `field`. */
export function checkTimestamp(field: string, value: string): string {
  if (!isStorableTimestamp(value)) throw invalid(field, TIMESTAMP_RULE);
  return value;
}

/**
 * A `timestamptz` column (microsecond precision) whose value comes from the database clock.
 * JavaScript Dates hold only milliseconds, so services read these columns through `isoSql`
 * rather than round-tripping them through `Date`.
 */
export const dbTimestamp = () => p.datetime().columnType('timestamptz').defaultRaw('now()');
export const nullableTimestamp = () => p.datetime().columnType('timestamptz').nullable();

/** SQL rendering a timestamptz as RFC 3339 in UTC with exactly six fractional digits. */
export function isoSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** SQL rendering a timestamptz as RFC 3339 in UTC with three fractional digits, as approval callbacks carry their times (docs/approvals.md). */
export function isoMillisSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
