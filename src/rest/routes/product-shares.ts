import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ProductShareCreate, ProductShareView } from '../../core/catalogue/products/product-shares.schemas.ts';
import type { Core } from '../../core/core.ts';
import { MAX_RESOURCE_ID } from '../../core/platform/ids.ts';
import { PageQuery } from '../../core/platform/pagination.schemas.ts';
import { header } from '../auth.ts';
import { listSchema, ok, okPage, okSchema } from '../envelope.ts';
import { OPTIONAL_BODY } from '../openapi.ts';
import { replyCreated } from '../replies.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, ErrorRef, IdempotencyHeaders, IdParams } from '../schemas.ts';

const tags = ['Products'];
const ShareRef = Type.Ref('ProductShare');
const ShareParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'Product id.' }),
  shareId: Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description: 'Share id.' }),
});

/** docs/products.md "Shares": links to a product's page for people without an API key. */
export async function productShareRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/products/:id/shares',
    {
      schema: {
        operationId: 'createProductShare',
        summary: 'Share a product',
        description:
          "Creates a link (`url`) to a web page showing the product's name, description, template values and media previews to anyone who has it, with a ZIP download when allowDownload. usable or higher (products:share); view_only and usable share published products only (a draft is 404). Optional password (kept as a slow hash), expiry (default 7 days, at most 365, never after the key's own expiry) and which media to show (assetIds among the product's media, 422 otherwise). Idempotency-Key: a replay within 24 hours answers the same share. No ETag.",
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IdempotencyHeaders,
        body: Type.Ref('ProductShareCreate'),
        [OPTIONAL_BODY]: true,
        response: { 201: okSchema(ShareRef), 409: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      return replyCreated(
        reply,
        request.id,
        await core.catalogue.productShares.create(request.ctx, request.params.id, request.body ?? {}, header(request, 'idempotency-key')),
      );
    },
  );

  app.get(
    '/products/:id/shares',
    {
      schema: {
        operationId: 'listProductShares',
        summary: "List a product's shares",
        description:
          "The product's shares, newest first, in ordinary pages, with their links and status (active, expired, revoked). usable or higher (products:share); a draft is 404 for usable. No ETag.",
        tags,
        security: bearerSecurity,
        params: IdParams,
        querystring: PageQuery,
        response: { 200: listSchema(ShareRef), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.catalogue.productShares.list(request.ctx, request.params.id, request.query));
    },
  );

  app.delete(
    '/products/:id/shares/:shareId',
    {
      schema: {
        operationId: 'revokeProductShare',
        summary: 'Revoke a product share',
        description:
          'The link stops working at once: its page answers 410. Answers the share with status revoked; revoking it again changes nothing. usable or higher (products:share); an unknown share or one of another product is 404.',
        tags,
        security: bearerSecurity,
        params: ShareParams,
        response: { 200: okSchema(ShareRef), ...commonErrors },
      },
    },
    async (request) => {
      return ok(request.id, await core.catalogue.productShares.revoke(request.ctx, request.params.id, request.params.shareId));
    },
  );
}

const productShareSchemas = [ProductShareCreate, ProductShareView];

/** The product-shares resource as the app registers it (rest/resource.ts). */
export const productShareResource: RestResource = { routes: productShareRoutes, schemas: productShareSchemas };
