import { p } from '@mikro-orm/core';

/** An RFC 3339 date-time as inputs take it (up to microseconds; Z or an offset), for TypeBox `pattern`. */
export const RFC3339_PATTERN = '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,6})?(Z|[+-]\\d\\d:\\d\\d)$';

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
