import { builder } from './builder.ts';

/**
 * The GraphQL name of a core value: upper snake case, as GraphQL enum values are conventionally
 * written (`dateRange` -> `DATE_RANGE`, `view_only` -> `VIEW_ONLY`, `PENDING` stays).
 */
export function enumValueName(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/**
 * A GraphQL enum built from one of the core's lists of values, so the set is written once and
 * the schema can never offer a value the core refuses (or miss one it accepts). Resolvers see
 * and return the core's own values; only the names on the wire are GraphQL's. `describe` must
 * give every value a description (the compiler checks that it names each one).
 */
export function enumFromCore<const Value extends string>(
  name: string,
  options: { description: string; values: readonly Value[]; describe: Record<Value, string> },
) {
  const names = new Set(options.values.map(enumValueName));
  if (names.size !== options.values.length) throw new Error(`${name}: two values share a GraphQL name`);
  const values: Record<string, { value: Value; description: string }> = {};
  for (const value of options.values) values[enumValueName(value)] = { value, description: options.describe[value] };
  return builder.enumType(name, { description: options.description, values });
}

/**
 * A value read back from storage as one of the core's values. Rows are written only through the
 * core's typed operations, so anything else is a bug: it fails loudly (a masked internal error)
 * rather than reaching a client as a value the schema does not declare.
 */
export function storedValue<const Value extends string>(values: readonly Value[], value: string): Value {
  if (!(values as readonly string[]).includes(value)) throw new Error(`stored value ${JSON.stringify(value)} is not one of ${values.join(', ')}`);
  return value as Value;
}
