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

builder.queryType({ description: 'Reads of the team the Bearer key belongs to; the same rules as the REST paths each field names.' });
builder.mutationType({ description: 'Changes, each one core operation with the rules (roles, validation, ETags, idempotency) of its REST path; errors carry extensions.code.' });

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
    description: 'Ordinary paging (spec 2.1): counts are taken once per request.',
    fields: (t) => ({
      page: t.exposeInt('page', { description: 'This page, from 1.' }),
      pageSize: t.exposeInt('pageSize', { description: 'Items per page (default 20, at most 100).' }),
      totalCount: t.exposeInt('totalCount', { description: 'Items in the whole list.' }),
      totalPages: t.exposeInt('totalPages', { description: 'Pages in the whole list: ceil(totalCount / pageSize).' }),
    }),
  });
