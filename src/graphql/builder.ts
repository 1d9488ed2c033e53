import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import type { GqlContext } from './context.ts';

/** The one Pothos builder; each resource adds its types in graphql/types/<resource>.ts. */
export const builder = new SchemaBuilder<{
  Context: GqlContext;
  DefaultInputFieldRequiredness: false;
  DefaultFieldNullability: false;
}>({
  plugins: [DataloaderPlugin],
  // fields are non-null unless they say otherwise, as in the REST representation
  defaultFieldNullability: false,
});

builder.queryType({});
builder.mutationType({});

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
