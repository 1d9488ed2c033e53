import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BrandCreate, BrandPatch, BrandView } from '../../core/catalogue/brands/brand.schemas.ts';
import type { Core } from '../../core/core.ts';
import { PageQuery } from '../../core/platform/pagination.schemas.ts';
import { header } from '../auth.ts';
import { listSchema, okPage, okSchema } from '../envelope.ts';
import { replyCreated, replyWithEtag } from '../replies.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, DeletedId, ErrorRef, IdempotencyHeaders, IdParams, IfMatchHeaders } from '../schemas.ts';

const BrandRef = Type.Ref('Brand');
const tags = ['Brands'];

/** Spec 4.2: brand CRUD. Each handler calls one core operation and maps its result. */
export async function brandRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/brands',
    {
      schema: {
        operationId: 'listBrands',
        summary: 'List brands',
        description:
          'Live brands of the team ordered by sortOrder then id, in ordinary pages (page from 1, pageSize default 20, at most 100). Any role. No ETag on lists.',
        tags,
        security: bearerSecurity,
        querystring: PageQuery,
        response: { 200: listSchema(BrandRef), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.catalogue.brands.listPage(request.ctx, request.query));
    },
  );

  app.post(
    '/brands',
    {
      schema: {
        operationId: 'createBrand',
        summary: 'Create a brand',
        description:
          'Creates a brand with a server-generated code (manage role). The body takes exactly name, description and logoUrl (spec 4.2): any other field, website, sortOrder and isEnabled included, is 422 validation_failed naming it (GraphQL and the CLI set those). With Idempotency-Key (up to 255 characters) a replay within 24 hours returns the original response with Idempotent-Replayed: true; the same key with other input is 409 idempotency_key_reused. Answers 201 with the brand and its ETag.',
        tags,
        security: bearerSecurity,
        headers: IdempotencyHeaders,
        body: Type.Ref('BrandCreate'),
        response: { 201: okSchema(BrandRef), 409: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyCreated(reply, request.id, await core.catalogue.brands.create(request.ctx, request.body, header(request, 'idempotency-key'), 'spec'));
    },
  );

  app.get(
    '/brands/:id',
    {
      schema: {
        operationId: 'getBrand',
        summary: 'Get a brand',
        description: "One live brand with its strong ETag; 404 not_found for a missing, deleted or other team's brand.",
        tags,
        security: bearerSecurity,
        params: IdParams,
        response: { 200: okSchema(BrandRef), ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(reply, request.id, await core.catalogue.brands.get(request.ctx, request.params.id));
    },
  );

  app.patch(
    '/brands/:id',
    {
      schema: {
        operationId: 'updateBrand',
        summary: 'Update a brand',
        description:
          'Changes the given fields among name, description and logoUrl (manage role; at least one; any other field is 422). With If-Match the change applies only if the brand still has that ETag (412 precondition_failed otherwise); without it the last write wins. Answers the brand and its new ETag.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IfMatchHeaders,
        body: Type.Ref('BrandPatch'),
        response: { 200: okSchema(BrandRef), 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(
        reply,
        request.id,
        await core.catalogue.brands.update(request.ctx, request.params.id, request.body, header(request, 'if-match'), 'spec'),
      );
    },
  );

  app.delete(
    '/brands/:id',
    {
      schema: {
        operationId: 'deleteBrand',
        summary: 'Delete a brand',
        description:
          'Soft-deletes a brand with no live categories or products (409 brand_has_dependents otherwise; never cascades). Manage role; If-Match honoured.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: okSchema(DeletedId), 409: ErrorRef, 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(reply, request.id, await core.catalogue.brands.softDelete(request.ctx, request.params.id, header(request, 'if-match')));
    },
  );
}

const brandSchemas = [BrandView, BrandCreate, BrandPatch];

/** The brands resource as the app registers it (rest/resource.ts). */
export const brandResource: RestResource = { routes: brandRoutes, schemas: brandSchemas };
