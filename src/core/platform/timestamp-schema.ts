import { type TString, Type } from 'typebox';
import { Format } from 'typebox/format';
import { isStorableTimestamp, RFC3339_PATTERN } from './timestamps.ts';

/*
 * The timestamp rule in TypeBox's terms, apart from timestamps.ts so that code which only checks or
 * renders timestamps (a CLI read, say) does not load TypeBox.
 */

// Every TypeBox check of `format: 'date-time'` (compileInput) runs the rule of timestamps.ts; the
// Fastify Ajv instance registers the same function (src/rest/app.ts), so both validators agree.
Format.Set('date-time', isStorableTimestamp);

/** A timestamp input field: `format: date-time` (checked by isStorableTimestamp) and the RFC 3339 pattern, for the OpenAPI document. */
export function timestampInput(description: string): TString {
  return Type.String({ format: 'date-time', pattern: RFC3339_PATTERN, description });
}
