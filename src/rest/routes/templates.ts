import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  OpaqueId,
  TemplateCreate,
  TemplateDelete,
  TemplateFieldView,
  TemplateGroupView,
  TemplatePatch,
  TemplateView,
} from '../../core/catalogue/templates/template.schemas.ts';
import type { Core } from '../../core/core.ts';
import { PageQuery } from '../../core/platform/pagination.schemas.ts';
import { header } from '../auth.ts';
import { listSchema, okSchema, PaginationSchema } from '../envelope.ts';
import { OPTIONAL_BODY } from '../openapi.ts';
import { replyCreated, replyWithEtag } from '../replies.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, ErrorRef, IdempotencyHeaders, IfMatchHeaders } from '../schemas.ts';
import { sendSizedPage } from '../streamed-page.ts';

const TemplateRef = Type.Ref('Template');
const DeletedId = Type.Object({ id: Type.String() });
/** Spec 4.1: a template id in the path is a string of 1-128 characters. */
const TemplateIdParams = Type.Object({ id: OpaqueId });
const tags = ['Information templates'];

/** Spec 4.4: information template CRUD. Each handler calls one core operation and maps its result. */
export async function templateRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/product-info-templates',
    {
      schema: {
        operationId: 'listTemplates',
        summary: 'List information templates',
        description: 'Live information templates of the team in ordinary pages, each at its latest version. Any role. No ETag on lists.',
        tags,
        security: bearerSecurity,
        querystring: PageQuery,
        response: { 200: listSchema(TemplateRef), ...commonErrors },
      },
    },
    async (request, reply) => {
      const page = await core.catalogue.templates.listPage(request.ctx, request.query);
      return sendSizedPage(reply, {
        requestId: request.id,
        page,
        budget: core.platform.answerBudget,
        itemSchema: TemplateRef,
        paginationSchema: PaginationSchema,
      });
    },
  );

  app.post(
    '/product-info-templates',
    {
      schema: {
        operationId: 'createTemplate',
        summary: 'Create an information template',
        description:
          'Creates a template and its first immutable version (manage role): groups and fields with the three system fields, bindings to brands and categories, optionally the library default. Idempotency-Key as for brands; 409 name_in_use among live templates.',
        tags,
        security: bearerSecurity,
        headers: IdempotencyHeaders,
        body: Type.Ref('TemplateCreate'),
        response: { 201: okSchema(TemplateRef), 409: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyCreated(reply, request.id, await core.catalogue.templates.create(request.ctx, request.body, header(request, 'idempotency-key')));
    },
  );

  app.get(
    '/product-info-templates/:id',
    {
      schema: {
        operationId: 'getTemplate',
        summary: 'Get an information template',
        description: 'One live template at its latest version with its strong ETag; 404 not_found otherwise.',
        tags,
        security: bearerSecurity,
        params: TemplateIdParams,
        response: { 200: okSchema(TemplateRef), ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(reply, request.id, await core.catalogue.templates.get(request.ctx, request.params.id));
    },
  );

  app.patch(
    '/product-info-templates/:id',
    {
      schema: {
        operationId: 'updateTemplate',
        summary: 'Update an information template',
        description:
          'Every successful PATCH (metadata only included) creates a new immutable version; products keep the version they pinned. Manage role; If-Match honoured (412).',
        tags,
        security: bearerSecurity,
        params: TemplateIdParams,
        headers: IfMatchHeaders,
        body: Type.Ref('TemplatePatch'),
        response: { 200: okSchema(TemplateRef), 409: ErrorRef, 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(reply, request.id, await core.catalogue.templates.update(request.ctx, request.params.id, request.body, header(request, 'if-match')));
    },
  );

  app.delete(
    '/product-info-templates/:id',
    {
      schema: {
        operationId: 'deleteTemplate',
        summary: 'Delete an information template',
        description:
          'Soft-deletes a template, removes its bindings and keeps its versions for pinned products. The library default needs replacementForLibraryDefault in the body (optional otherwise). Manage role; If-Match honoured.',
        tags,
        security: bearerSecurity,
        params: TemplateIdParams,
        headers: IfMatchHeaders,
        body: Type.Ref('TemplateDelete'),
        [OPTIONAL_BODY]: true,
        response: { 200: okSchema(DeletedId), 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyWithEtag(
        reply,
        request.id,
        await core.catalogue.templates.softDelete(request.ctx, request.params.id, request.body, header(request, 'if-match')),
      );
    },
  );
}

const templateSchemas = [TemplateFieldView, TemplateGroupView, TemplateView, TemplateCreate, TemplatePatch, TemplateDelete];

/** The templates resource as the app registers it (rest/resource.ts). */
export const templateResource: RestResource = { routes: templateRoutes, schemas: templateSchemas };
