import { type TLiteral, type TObject, type TObjectOptions, type TOptional, type TProperties, type TSchemaOptions, type TUnion, Type } from 'typebox';

/**
 * An object schema of the named `fields`, each optional, in the order given: the shape of every
 * patch (`BrandPatch`, `CategoryPatch`, ...), where an omitted field stays as it is. The fields keep
 * their own schemas and descriptions, so the patch documents exactly what the create does.
 */
export function optionalFields<F extends TProperties, K extends keyof F & string>(
  fields: F,
  keys: readonly K[],
  options: TObjectOptions,
): TObject<{ [P in K]: TOptional<F[P]> }> {
  const properties = Object.fromEntries(keys.map((key) => [key, Type.Optional(fields[key]!)]));
  return Type.Object(properties, options) as unknown as TObject<{ [P in K]: TOptional<F[P]> }>;
}

/**
 * One of a closed list of strings, as `anyOf` of `const`s: the JSON Schema a union of literals
 * writes, typed as the list's values (TypeBox types a union mapped from an array as never).
 */
export function literalUnion<const Values extends readonly string[]>(
  values: Values,
  options?: TSchemaOptions,
): TUnion<{ -readonly [I in keyof Values]: TLiteral<Values[I]> }> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as unknown as TUnion<{ -readonly [I in keyof Values]: TLiteral<Values[I]> }>;
}
