import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import type { GqlContext } from './context.ts';
import { DEFAULT_LIST_MULTIPLIER } from './query-cost.ts';
import { QUERY_LIMITS } from './query-limits.ts';

/** The one Pothos builder; each resource adds its types in graphql/types/<resource>.ts. */
export const builder = new SchemaBuilder<{
  Context: GqlContext;
  DefaultInputFieldRequiredness: false;
  DefaultFieldNullability: false;
  Scalars: {
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
    JSON: { Input: unknown; Output: unknown };
    File: { Input: File; Output: never };
  };
}>({
  plugins: [DataloaderPlugin, ComplexityPlugin],
  // fields are non-null unless they say otherwise, as in the REST representation
  defaultFieldNullability: false,
  // the cost model's numbers (query-cost.ts): every field 1, a list's fields counted `multiplier`
  // times; each list field declares its own bound, this default is only a safe fallback. The
  // limits are checked by query-limits.ts before validation, not by the plugin's execution hook.
  complexity: { defaultComplexity: 1, defaultListMultiplier: DEFAULT_LIST_MULTIPLIER },
});

const LIMITS_TEXT =
  `Every operation is measured before anything runs and refused past these limits (docs/graphql.md "Limits"): ` +
  `${QUERY_LIMITS.tokens.toLocaleString('en-US')} tokens (query_too_long), ${QUERY_LIMITS.depth} levels of nesting (query_too_deep), ` +
  `${QUERY_LIMITS.aliases} aliases (query_too_many_aliases), ${QUERY_LIMITS.directives} directives (query_too_many_directives) and a cost of ` +
  `${QUERY_LIMITS.cost.toLocaleString('en-US')} (query_too_complex): each field counts 1, and the fields below a list count once per item it can hold ` +
  '(a page its pageSize, other lists the bound their descriptions give).';

builder.queryType({ description: `Reads of the team the Bearer key belongs to; the same rules as the REST paths each field names. ${LIMITS_TEXT}` });
builder.mutationType({
  description: `Changes, each one core operation with the rules (roles, validation, ETags, idempotency) of its REST path; errors carry extensions.code. The query limits apply to mutations too.`,
});

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
export const PaginationRef = builder.objectRef<{ page: number; pageSize: number; totalCount: number; totalPages: number }>('Pagination').implement({
  description: 'Ordinary paging (spec 2.1): counts are taken once per request.',
  fields: (t) => ({
    page: t.exposeInt('page', { description: 'This page, from 1.' }),
    pageSize: t.exposeInt('pageSize', { description: 'Items per page (default 20, at most 100).' }),
    totalCount: t.exposeInt('totalCount', { description: 'Items in the whole list.' }),
    totalPages: t.exposeInt('totalPages', { description: 'Pages in the whole list: ceil(totalCount / pageSize).' }),
  }),
});
