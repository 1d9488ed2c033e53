import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Schema = Record<string, unknown>;
/** Finds a shared schema by `$ref` (the app's schemas are referenced by bare `$id`). */
type Resolve = (ref: string) => object | undefined;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNullSchema = (value: unknown): boolean =>
  isObject(value) && value.type === 'null' && Object.keys(value).every((k) => k === 'type' || k === 'description');

/** The non-null branch as a schema with a `type`, `$ref`s inlined (without `$id`, which must stay unique); null when it has none. */
function typedBranch(branch: Schema, resolve: Resolve, depth: number): Schema | null {
  if (typeof branch.$ref === 'string') {
    const target = resolve(branch.$ref) as Schema | undefined;
    if (!target) return null;
    const { $id: _id, ...inlined } = withNullableFlags(target, resolve, depth + 1);
    const { $ref: _ref, ...siblings } = branch;
    return typeof inlined.type === 'string' ? { ...inlined, ...siblings } : null;
  }
  return typeof branch.type === 'string' && branch.anyOf === undefined ? branch : null;
}

/**
 * The same schema with every `anyOf: [X, {type: 'null'}]` written as `X` plus `nullable: true`
 * (X inlined when it is a `$ref`).
 *
 * Why: fast-json-stringify chooses an anyOf branch by running the branch's validator on the value,
 * so a nullable MediaObject or timestamp ran its `uri` and `date-time` format checks on every
 * value of every response (about a tenth of the service's CPU on a sync page of 100 products,
 * bench/RESULTS-products.md). With `nullable` it only compares with null. The serialized output is
 * the same: the serializer never validates, it only picks how to write a value. Schemas are copied,
 * never changed in place: the same objects feed the validators and the OpenAPI document.
 */
export function withNullableFlags<T>(schema: T, resolve: Resolve = () => undefined, depth = 0): T {
  if (depth > 16) return schema; // a self-referencing schema is left as it is past this depth
  if (Array.isArray(schema)) return schema.map((item) => withNullableFlags(item, resolve, depth)) as T;
  if (!isObject(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withNullableFlags(value, resolve, depth);
  const anyOf = copy.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.filter(isNullSchema).length === 1) {
    const other = typedBranch(anyOf.find((branch) => !isNullSchema(branch)) as Schema, resolve, depth);
    if (other) {
      const { anyOf: _dropped, ...siblings } = copy;
      return { ...other, ...siblings, nullable: true } as T;
    }
  }
  const tagged = Array.isArray(anyOf) && anyOf.length === 2 ? taggedChoice(anyOf as Schema[], resolve) : null;
  if (tagged) {
    const { anyOf: _dropped, ...siblings } = copy;
    return { ...siblings, ...tagged } as T;
  }
  return copy as T;
}

/**
 * `anyOf: [X, T]` where T (object, or a `$ref` to one) has a required property with a `const` (or
 * a one-value `enum`) that X does not declare, as `if T's constant then T else X`.
 *
 * Why: as above, fast-json-stringify would run X's whole validator on every value to choose (the
 * sync feed's items: a ProductSummary with its media on every item of every sync page); the `if`
 * checks one property.
 */
function taggedChoice(branches: Schema[], resolve: Resolve): Schema | null {
  const objectOf = (branch: Schema): Schema | undefined => {
    const target = typeof branch.$ref === 'string' ? (resolve(branch.$ref) as Schema | undefined) : branch;
    return target && target.type === 'object' ? target : undefined;
  };
  const tagOf = (object: Schema | undefined): [string, unknown] | null => {
    if (!object || !Array.isArray(object.required) || !isObject(object.properties)) return null;
    const properties = object.properties;
    for (const name of object.required as string[]) {
      const property = properties[name];
      if (!isObject(property)) continue;
      if ('const' in property) return [name, property.const];
      // TypeBox writes a literal as a one-value enum
      if (Array.isArray(property.enum) && property.enum.length === 1) return [name, property.enum[0]];
    }
    return null;
  };
  for (const [index, branch] of branches.entries()) {
    const tag = tagOf(objectOf(branch));
    const other = branches[1 - index]!;
    const otherObject = objectOf(other);
    if (!tag || !otherObject || (isObject(otherObject.properties) && tag[0] in otherObject.properties)) continue;
    return { if: { type: 'object', properties: { [tag[0]]: { const: tag[1] } }, required: [tag[0]] }, then: branch, else: other };
  }
  return null;
}

/**
 * Fastify's serializer factory (schemaController.compilersFactory.buildSerializer): the default
 * fast-json-stringify compiler, given every response schema and shared schema through
 * `withNullableFlags`.
 */
export const nullableAwareSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  if (!isObject(externalSchemas)) return SerializerSelector()(externalSchemas, options);
  const resolve: Resolve = (ref) => {
    const target = externalSchemas[ref.replace(/#$/, '')];
    return isObject(target) ? target : undefined;
  };
  const shared = Object.fromEntries(Object.entries(externalSchemas).map(([id, s]) => [id, withNullableFlags(s, resolve)]));
  const compile = SerializerSelector()(shared, options);
  return (route) => compile({ ...route, schema: withNullableFlags(route.schema, resolve) });
};
