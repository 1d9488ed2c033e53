import { type GraphQLNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/index.ts';

const BUILT_IN = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

/** Every type, field, argument and enum value of the live schema, by name, with whether it has a description. */
function items(): { name: string; described: boolean }[] {
  const out: { name: string; described: boolean }[] = [];
  for (const type of Object.values(schema.getTypeMap()) as GraphQLNamedType[]) {
    if (type.name.startsWith('__') || BUILT_IN.has(type.name)) continue;
    out.push({ name: type.name, described: Boolean(type.description) });
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        out.push({ name: `${type.name}.${field.name}`, described: Boolean(field.description) });
        for (const arg of 'args' in field ? field.args : []) out.push({ name: `${type.name}.${field.name}(${arg.name})`, described: Boolean(arg.description) });
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) out.push({ name: `${type.name}.${value.name}`, described: Boolean(value.description) });
  }
  return out;
}

describe('the GraphQL schema documents itself', () => {
  it('describes every type, field, argument and enum value', () => {
    const all = items();
    expect(all.length).toBeGreaterThan(500);
    expect(all.filter((i) => !i.described).map((i) => i.name)).toEqual([]);
  });
});
