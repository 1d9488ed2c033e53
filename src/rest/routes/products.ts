import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { MediaObject } from '../../core/assets/files/library.schemas.ts';
import {
  ProductCreate,
  ProductDetailView,
  ProductListQuery,
  ProductPatch,
  ProductSummaryView,
  ProductTombstoneView,
  ProductVisibilityItem,
  ProductVisibilityRequest,
} from '../../core/catalogue/products/product.schemas.ts';
import { ProductHistoryItem } from '../../core/catalogue/products/product-history.schemas.ts';
import { rejectRepeatedParameters } from '../../core/catalogue/products/product-query.ts';
import type { SyncItem } from '../../core/catalogue/products/product-sync.ts';
import type { Core } from '../../core/core.ts';
import { mapPage } from '../../core/platform/answer-budget.ts';
import { PageQuery } from '../../core/platform/pagination.schemas.ts';
import { header } from '../auth.ts';
import { listSchema, ok, okSchema, PaginationSchema } from '../envelope.ts';
import { productDetail, productSummaries } from '../product-views.ts';
import { replyCreated, replyWithEtag } from '../replies.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, DeletedId, ErrorRef, IdempotencyHeaders, IdParams, IfMatchHeaders } from '../schemas.ts';
import { sendSizedPage } from '../streamed-page.ts';

const DetailRef = Type.Ref('ProductDetail');
const tags = ['Products'];

/** Spec 2.1 synchronization pagination object. */
const SyncPagination = Type.Object({
  pageSize: Type.Integer({ minimum: 1, maximum: 100 }),
  syncedUntil: Type.String({
    pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$',
    description: 'The fixed exclusive upper bound of the scan; save it unchanged once nextCursor is null.',
  }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Follow until null, also across empty pages.' }),
  hasMore: Type.Boolean({ description: 'true exactly when nextCursor is not null.' }),
});

/** One entry of a product's history (one object: the streamed page's serializer is compiled once per schema object). */
const HistoryItemRef = Type.Ref('ProductHistoryItem');

/** An item of a products page: a summary, or in sync pages with changes=true a tombstone. */
const ListItem = Type.Union([Type.Ref('ProductSummary'), Type.Ref('ProductTombstone')]);

const ListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(ListItem, {
    description: 'ProductSummary items; ProductTombstone items appear only in sync pages requested with changes=true.',
  }),
  code: Type.Null(),
  message: Type.Null(),
  requestId: Type.String(),
  pagination: Type.Union([PaginationSchema, SyncPagination], { description: 'Ordinary pagination, or with sync=true the synchronization pagination.' }),
});

/** Spec 4.5 and docs/products.md: products. Each handler calls one core operation and maps its result. */
export async function productRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/products',
    {
      schema: {
        operationId: 'listProducts',
        summary: 'List or sync products',
        description:
          'Ordinary pages ordered by updatedAt then id descending; with sync=true an incremental scan ordered by (updatedAt, id) ascending within [updatedAfter, first request time - 30 s), continued with nextCursor until null. view_only and usable keys see published products only. Repeated known parameters are refused (422). Opt-in sync feed: with sync=true&changes=true a page may also carry ProductTombstone items (deleted, or hidden from your role) and products changed through a linked entity (a media file renamed, replaced or recycled; a category moved or renamed), in the same order and bound; without changes=true nothing differs. The change log is kept PRODUCT_CHANGES_RETENTION_DAYS (400 days by default): a changes=true cycle whose updatedAfter is older is 422 validation_failed on updatedAfter (run a full scan instead).',
        tags,
        security: bearerSecurity,
        querystring: ProductListQuery,
        response: { 200: ListEnvelope, ...commonErrors },
      },
      // a repeated parameter arrives as an array; it gets its own message before type validation
      preValidation: async (request) => rejectRepeatedParameters(request.query),
    },
    async (request, reply) => {
      const result = await core.catalogue.products.list(request.ctx, request.query);
      const common = { requestId: request.id, budget: core.platform.answerBudget };
      const summaries = <T extends SyncItem>(items: T[]) => productSummaries(core, request.ctx, items);
      return result.mode === 'page'
        ? sendSizedPage(reply, { ...common, page: mapPage(result.page, summaries), itemSchema: ListItem, paginationSchema: PaginationSchema })
        : sendSizedPage(reply, { ...common, page: mapPage(result.page, summaries), itemSchema: ListItem, paginationSchema: SyncPagination });
    },
  );

  app.post(
    '/products',
    {
      schema: {
        operationId: 'createProduct',
        summary: 'Create a product (draft)',
        description:
          'Always creates a draft and pins the resolved template version (explicit templateId, then category or ancestor binding, then the brand binding, then the library default).',
        tags,
        security: bearerSecurity,
        headers: IdempotencyHeaders,
        body: Type.Ref('ProductCreate'),
        response: { 201: okSchema(DetailRef), 409: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      const created = await core.catalogue.products.create(request.ctx, request.body, header(request, 'idempotency-key'));
      const { data } = await productDetail(core, request.ctx, { data: created.body, etag: created.etag ?? '' });
      return replyCreated(reply, request.id, { ...created, body: data });
    },
  );

  app.post(
    '/products/visibility',
    {
      schema: {
        operationId: 'checkProductVisibility',
        summary: 'Check which products a key sees',
        description: 'Spec 4.5 rule 5: visible or not_visible per id for this key; brand, category, status and search filters do not apply.',
        tags,
        security: bearerSecurity,
        body: Type.Ref('ProductVisibilityRequest'),
        response: { 200: okSchema(Type.Array(Type.Ref('ProductVisibility'))), ...commonErrors },
      },
    },
    async (request) => ok(request.id, await core.catalogue.products.visibility(request.ctx, request.body)),
  );

  app.get(
    '/products/:id',
    {
      schema: {
        operationId: 'getProduct',
        summary: 'Get a product',
        description: 'ProductDetail with its pinned templateDefinition. A draft is 404 for view_only and usable keys.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        response: { 200: okSchema(DetailRef), ...commonErrors },
      },
    },
    async (request, reply) =>
      replyWithEtag(reply, request.id, await productDetail(core, request.ctx, await core.catalogue.products.get(request.ctx, request.params.id))),
  );

  app.patch(
    '/products/:id',
    {
      schema: {
        operationId: 'updateProduct',
        summary: 'Update a product',
        description:
          'The ProductCreate field rules for the fields given (at least one); templateFields shallow-merge; templateId cannot change (422); a published product must stay complete (422). Bumps updatedAt.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IfMatchHeaders,
        body: Type.Ref('ProductPatch'),
        response: { 200: okSchema(DetailRef), 409: ErrorRef, 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      const updated = await core.catalogue.products.update(request.ctx, request.params.id, request.body, header(request, 'if-match'));
      return replyWithEtag(reply, request.id, await productDetail(core, request.ctx, updated));
    },
  );

  /** publishProduct and unpublishProduct: a POST without a body on one product, under If-Match, answering the product with its new ETag. */
  const statusChange = (action: 'publish' | 'unpublish', text: { summary: string; description: string }) =>
    app.post(
      `/products/:id/${action}`,
      {
        schema: {
          operationId: `${action}Product`,
          ...text,
          tags,
          security: bearerSecurity,
          params: IdParams,
          headers: IfMatchHeaders,
          response: { 200: okSchema(DetailRef), 412: ErrorRef, ...commonErrors },
        },
      },
      async (request, reply) => {
        const changed = await core.catalogue.products[action](request.ctx, request.params.id, header(request, 'if-match'));
        return replyWithEtag(reply, request.id, await productDetail(core, request.ctx, changed));
      },
    );
  statusChange('publish', {
    summary: 'Publish a product',
    description:
      'Validates the complete product (name and required template values; 422 with details otherwise), sets status published and publishedAt. Already published: 200, unchanged. No body.',
  });
  statusChange('unpublish', { summary: 'Unpublish a product', description: 'Back to draft, publishedAt null. Already a draft: 200, unchanged. No body.' });

  app.delete(
    '/products/:id',
    {
      schema: {
        operationId: 'deleteProduct',
        summary: 'Delete a product',
        description: 'Soft delete: the product leaves lists, sync and reads; its spu stays reserved.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: okSchema(DeletedId), 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) =>
      replyWithEtag(reply, request.id, await core.catalogue.products.softDelete(request.ctx, request.params.id, header(request, 'if-match'))),
  );
  app.get(
    '/products/:id/history',
    {
      schema: {
        operationId: 'productHistory',
        summary: "List a product's history",
        description:
          'Every change of the product, newest first, in ordinary pages: what happened (created, updated, published, unpublished, deleted, template_upgraded), when, by which caller (key id and role) and request, and the changed fields with their values before and after (template values per field id as templateFields.<id>, media as file-path ID lists). Written in the transaction of the change. Visible to the roles that can see the product (a draft is 404 for view_only and usable; a deleted product is 404). No ETag.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        querystring: PageQuery,
        response: { 200: listSchema(HistoryItemRef), ...commonErrors },
      },
    },
    async (request, reply) => {
      const page = await core.catalogue.products.history(request.ctx, request.params.id, request.query);
      return sendSizedPage(reply, {
        requestId: request.id,
        page,
        budget: core.platform.answerBudget,
        itemSchema: HistoryItemRef,
        paginationSchema: PaginationSchema,
      });
    },
  );
}

const productSchemas = [
  ProductHistoryItem,
  MediaObject,
  ProductSummaryView,
  ProductTombstoneView,
  ProductDetailView,
  ProductCreate,
  ProductPatch,
  ProductVisibilityRequest,
  ProductVisibilityItem,
];

/** The products resource as the app registers it (rest/resource.ts). */
export const productResource: RestResource = { routes: productRoutes, schemas: productSchemas };
