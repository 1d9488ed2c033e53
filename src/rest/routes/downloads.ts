import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { DOWNLOAD_LIMITS, DownloadRecordView, DownloadRequest } from '../../core/catalogue/products/product-downloads.schemas.ts';
import type { Core } from '../../core/core.ts';
import { PageQuery } from '../../core/platform/pagination.schemas.ts';
import { header } from '../auth.ts';
import { replyWithZip } from '../download-reply.ts';
import { listSchema, okPage } from '../envelope.ts';
import { OPTIONAL_BODY } from '../openapi.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, ErrorRef, IdempotencyHeaders, IdParams } from '../schemas.ts';

const tags = ['Products'];

const ZipAttachment = {
  description: `The media as one ZIP attachment (stored entries, named after the files, a repeated name gets " (2)"), with Content-Length, Download-Record-Id and, on a replay, Idempotent-Replayed: true. At most ${DOWNLOAD_LIMITS.files} files and 2 GiB.`,
  content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
};

/** Spec 4.5/5/7.1 and docs/products.md "Downloads": product media as a streamed ZIP, and who downloaded what. */
export async function downloadRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/products/:id/downloads',
    {
      schema: {
        operationId: 'downloadProductMedia',
        summary: "Download a product's media as a ZIP",
        description:
          "Records a download and answers the product's live media (all, or the file-path IDs in assetIds) as one ZIP attachment streamed from storage. usable or higher with products:read and products:download; view_only and usable see published products only (404 otherwise). More than 100 files or 2 GiB: 413 payload_too_large, nothing recorded. An assetIds entry that is not a media file of the product: 422. Every error before the attachment starts uses the error envelope; once the record is committed, a failure to deliver is 409 mutation_response_unavailable with mutationOutcome (the record id, and the request to repeat). Idempotency-Key: a replay within 24 hours delivers the same files again without a second record.",
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IdempotencyHeaders,
        body: Type.Ref('DownloadRequest'),
        [OPTIONAL_BODY]: true,
        response: { 200: ZipAttachment, 409: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      const productId = request.params.id;
      const download = await core.catalogue.downloads.prepare(request.ctx, productId, request.body ?? {}, header(request, 'idempotency-key'));
      return replyWithZip(reply, core, download, `product-${productId}-download-${download.recordId}.zip`);
    },
  );

  app.get(
    '/products/:id/download-records',
    {
      schema: {
        operationId: 'listProductDownloadRecords',
        summary: "List a product's download records",
        description:
          'Who downloaded which files of the product and when, newest first, in ordinary pages. The roles that may download the product (usable or higher with products:download; a draft is 404 for usable). No ETag.',
        tags,
        security: bearerSecurity,
        params: IdParams,
        querystring: PageQuery,
        response: { 200: listSchema(Type.Ref('DownloadRecord')), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.catalogue.downloads.listForProduct(request.ctx, request.params.id, request.query));
    },
  );

  app.get(
    '/download-records',
    {
      schema: {
        operationId: 'listDownloadRecords',
        summary: "List the team's download records",
        description: "Every download of the team's products, newest first, in ordinary pages. Manage role (403 otherwise). No ETag.",
        tags,
        security: bearerSecurity,
        querystring: PageQuery,
        response: { 200: listSchema(Type.Ref('DownloadRecord')), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.catalogue.downloads.listForTeam(request.ctx, request.query));
    },
  );
}

const downloadSchemas = [DownloadRequest, DownloadRecordView];

/** The downloads resource as the app registers it (rest/resource.ts). */
export const downloadResource: RestResource = { routes: downloadRoutes, schemas: downloadSchemas };
