import { Type, type TObject, type TObjectOptions, type TOptional, type TProperties } from 'typebox';

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
