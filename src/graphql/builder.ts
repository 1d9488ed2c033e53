import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import type { GqlContext } from './context.ts';

/** The one Pothos builder; each resource adds its types in graphql/types/<resource>.ts. */
export const builder = new SchemaBuilder<{
  Context: GqlContext;
  DefaultInputFieldRequiredness: false;
  DefaultFieldNullability: false;
  Scalars: { JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> }; JSON: { Input: unknown; Output: unknown } };
}>({
  plugins: [DataloaderPlugin],
  // fields are non-null unless they say otherwise, as in the REST representation
  defaultFieldNullability: false,
});

builder.queryType({});
builder.mutationType({});

function jsonObject(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new GraphQLError('JSONObject must be a JSON object');
  return value as Record<string, unknown>;
}

/** An arbitrary JSON object, e.g. a template field's `config`; the core validates its content. */
export const JsonObjectRef = builder.scalarType('JSONObject', {
  description: 'A JSON object.',
  serialize: (value) => jsonObject(value),
  parseValue: (value) => jsonObject(value),
  parseLiteral: (ast, variables) => {
    if (ast.kind !== Kind.OBJECT) throw new GraphQLError('JSONObject must be a JSON object');
    return jsonObject(valueFromASTUntyped(ast, variables));
  },
});

/** Ordinary paging, as REST's `pagination` object. */
export const PaginationRef = builder
  .objectRef<{ page: number; pageSize: number; totalCount: number; totalPages: number }>('Pagination')
  .implement({
    fields: (t) => ({
      page: t.exposeInt('page'),
      pageSize: t.exposeInt('pageSize'),
      totalCount: t.exposeInt('totalCount'),
      totalPages: t.exposeInt('totalPages'),
    }),
  });
