import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CategoryCreate, CategoryListQuery, CategoryPatch, CategoryView } from '../../core/catalogue/categories/category.schemas.ts';
import type { Core } from '../../core/core.ts';
import { header } from '../auth.ts';
import { listSchema, okPage, okSchema } from '../envelope.ts';
import { replyCreated, replyWithEtag } from '../replies.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, DeletedId, ErrorRef, IdempotencyHeaders, IdParams, IfMatchHeaders } from '../schemas.ts';

const CategoryRef = Type.Ref('Category');
const tags = ['Categories'];

/** Spec 4.3: category CRUD. Each handler calls one core operation and maps its result. */
export async function categoryRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/categories',
    {
      schema: {
        operationId: 'listCategorys',
        summary: 'List categories',
        description:
          'The flat live category tree in ordinary pages, ordered by brandId, parentId (roots first), sortOrder and id; brandId narrows it to one brand. Any role. No ETag on lists.',
        tags,
        security: bearerSecurity,
        querystring: CategoryListQuery,
        response: { 200: listSchema(CategoryRef), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.catalogue.categories.listPage(request.ctx, request.query));
    },
  );

  app.post(
    '/categories',
    {
      schema: {
        operationId: 'createCategory',
        summary: 'Create a category',
        description:
          'Creates a category under a brand or a parent of the same brand (manage role): at most 10 levels and 5,000 live categories per brand; the name is unique among live siblings (409 name_in_use). Idempotency-Key as for brands. A new category gets the library default template when its brand bindings allow.',
        tags,
        security: bearerSecurity,
        headers: IdempotencyHeaders,
        body: Type.Ref('CategoryCreate'),
        response: { 201: okSchema(CategoryRef), 409: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyCreated(reply, request.id, await core.catalogue.categories.create(request.ctx, request.body, header(request, 'idempotency-key')));
    },
  );

  app.get(
    '/categories/:id',
    {
      schema: {
        operationId: 'getCategory',
        summary: 'Get a category',
        description: 'One live category with its strong ETag; 404 not_found otherwise.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        response: { 200: okSchema(CategoryRef), ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(reply, request.id, await core.catalogue.categories.get(request.ctx, request.params.id));
    },
  );

  app.patch(
    '/categories/:id',
    {
      schema: {
        operationId: 'updateCategory',
        summary: 'Update or move a category',
        description:
          'Changes fields or moves the category (a new parentId and/or sortOrder) within its brand (manage role); a move into its own subtree or past 10 levels is 422. If-Match honoured (412 precondition_failed).',
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IfMatchHeaders,
        body: Type.Ref('CategoryPatch'),
        response: { 200: okSchema(CategoryRef), 409: ErrorRef, 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(
        reply,
        request.id,
        await core.catalogue.categories.update(request.ctx, request.params.id, request.body, header(request, 'if-match')),
      );
    },
  );

  app.delete(
    '/categories/:id',
    {
      schema: {
        operationId: 'deleteCategory',
        summary: 'Delete a category subtree',
        description:
          'Soft-deletes the category and its whole subtree unless a live product references any of them (409 category_has_products, nothing deleted). Manage role; If-Match honoured.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: okSchema(DeletedId), 409: ErrorRef, 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(reply, request.id, await core.catalogue.categories.softDelete(request.ctx, request.params.id, header(request, 'if-match')));
    },
  );
}

const categorySchemas = [CategoryView, CategoryCreate, CategoryPatch];

/** The categories resource as the app registers it (rest/resource.ts). */
export const categoryResource: RestResource = { routes: categoryRoutes, schemas: categorySchemas };
