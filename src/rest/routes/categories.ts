import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CategoryCreate, CategoryListQuery, CategoryPatch, CategoryView } from '../../core/catalogue/category.schemas.ts';
import type { Core } from '../../core/core.ts';
import { header } from '../auth.ts';
import { listSchema, ok, okSchema } from '../envelope.ts';
import { commonErrors, IdempotencyHeaders, IdParams, IfMatchHeaders } from '../schemas.ts';

const CategoryRef = Type.Ref('Category');
const ErrorRef = Type.Ref('ErrorEnvelope');
const DeletedId = Type.Object({ id: Type.Integer() });
const tags = ['Categories'];
const security = [{ bearerAuth: [] }];

/** Spec 4.3: category CRUD. Each handler calls one core operation and maps its result. */
export async function categoryRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  app.get('/categories', {
    schema: { operationId: 'listCategorys', tags, security, querystring: CategoryListQuery, response: { 200: listSchema(CategoryRef), ...commonErrors } },
  }, async (request) => {
    const page = await core.categories.listPage(request.ctx, request.query as CategoryListQuery);
    return ok(request.id, page.items, page.pagination);
  });

  app.post('/categories', {
    schema: { operationId: 'createCategory', tags, security, headers: IdempotencyHeaders, body: Type.Ref('CategoryCreate'), response: { 201: okSchema(CategoryRef), 409: ErrorRef, ...commonErrors } },
  }, async (request, reply) => {
    const outcome = await core.categories.create(request.ctx, request.body, header(request, 'idempotency-key'));
    if (outcome.etag) reply.header('ETag', outcome.etag);
    if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
    return reply.status(outcome.status).send(ok(request.id, outcome.body));
  });

  app.get('/categories/:id', {
    schema: { operationId: 'getCategory', tags, security, params: IdParams, response: { 200: okSchema(CategoryRef), ...commonErrors } },
  }, async (request, reply) => {
    const { data, etag } = await core.categories.get(request.ctx, (request.params as { id: number }).id);
    reply.header('ETag', etag);
    return ok(request.id, data);
  });

  app.patch('/categories/:id', {
    schema: { operationId: 'updateCategory', tags, security, params: IdParams, headers: IfMatchHeaders, body: Type.Ref('CategoryPatch'), response: { 200: okSchema(CategoryRef), 409: ErrorRef, 412: ErrorRef, ...commonErrors } },
  }, async (request, reply) => {
    const { data, etag } = await core.categories.update(request.ctx, (request.params as { id: number }).id, request.body, header(request, 'if-match'));
    reply.header('ETag', etag);
    return ok(request.id, data);
  });

  app.delete('/categories/:id', {
    schema: { operationId: 'deleteCategory', tags, security, params: IdParams, headers: IfMatchHeaders, response: { 200: okSchema(DeletedId), 409: ErrorRef, 412: ErrorRef, ...commonErrors } },
  }, async (request, reply) => {
    const { data, etag } = await core.categories.softDelete(request.ctx, (request.params as { id: number }).id, header(request, 'if-match'));
    reply.header('ETag', etag);
    return ok(request.id, data);
  });
}

export const categorySchemas = [CategoryView, CategoryCreate, CategoryPatch];
