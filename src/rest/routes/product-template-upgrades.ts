import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  ProductUpgradeItem,
  TemplateUpgradeQuery,
  TemplateUpgradeReport,
  TemplateUpgradeRequest,
  TemplateUpgradesPreview,
  TemplateUpgradesQuery,
} from '../../core/catalogue/products/template-upgrade.schemas.ts';
import type { Core } from '../../core/core.ts';
import { header } from '../auth.ts';
import { ok, okSchema } from '../envelope.ts';
import { OPTIONAL_BODY } from '../openapi.ts';
import { productDetail } from '../product-views.ts';
import { replyWithEtag } from '../replies.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors, ErrorRef, IdParams } from '../schemas.ts';
import { sendStreamedArray } from '../streamed-page.ts';

const tags = ['Products'];

const RequiredIfMatch = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        "Required: the product's strong ETag (with quotes) from a read or the preview. Missing: 422 naming If-Match; stale: 412 precondition_failed naming If-Match.",
    }),
  ),
});

/** Where a serialized preview's list of products stands (JSON strings escape `"`, so only the property itself can match). */
const EMPTY_PRODUCTS = '"products":[]';

const PagedPreview = Type.Object({
  success: Type.Literal(true),
  data: Type.Ref('TemplateUpgradesPreview'),
  code: Type.Null(),
  message: Type.Null(),
  requestId: Type.String(),
  pagination: Type.Object({
    page: Type.Integer({ minimum: 1 }),
    pageSize: Type.Integer({ minimum: 1, maximum: 100 }),
    totalCount: Type.Integer({ minimum: 0, description: 'Live products pinned to `from`, drafts included.' }),
    totalPages: Type.Integer({ minimum: 0 }),
  }),
});

const TARGET_ERRORS =
  '422 validation_failed naming `to` when it is not a whole number from 1, not a version of the template, not newer than the pinned version, or a version of a deleted template (retired), and when the product has no template.';

/** docs/products.md "Template upgrades": preview and perform moving products to a newer version of their template. */
export async function productTemplateUpgradeRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/products/:id/template-upgrade',
    {
      schema: {
        operationId: 'previewProductTemplateUpgrade',
        summary: 'Preview moving a product to a newer template version',
        description: `Changes nothing. Says what moving the product to version \`to\` of its template would do: the fields added, removed and retyped; each current value that would be dropped (its field is gone) or that fails the new version's validation, with the reason; whether the upgraded product could be (or stay) published and what it would lack; and what POST would refuse. Editable or manage, the roles that edit products (view_only and usable: 403 forbidden). The ETag is the product's: send it as If-Match to upgrade exactly what was previewed. ${TARGET_ERRORS}`,
        tags,
        security: bearerSecurity,
        params: IdParams,
        querystring: TemplateUpgradeQuery,
        response: { 200: okSchema(Type.Ref('TemplateUpgradeReport')), ...commonErrors },
      },
    },
    async (request, reply) =>
      replyWithEtag(reply, request.id, await core.catalogue.products.previewTemplateUpgrade(request.ctx, request.params.id, request.query)),
  );

  app.post(
    '/products/:id/template-upgrade',
    {
      schema: {
        operationId: 'upgradeProductTemplate',
        summary: 'Move a product to a newer template version',
        description: `Editable or manage (as every product edit). Requires If-Match. In one transaction: re-pins the product to version \`to\`, keeps the values valid there, drops the values of removed fields and the invalid values named in \`drop\`, recomputes draftReason, writes a history entry and an activity record (action template_upgraded), bumps updatedAt; answers the ProductDetail with its new ETag. Refused with 422 validation_failed, nothing changed, when a value fails the new version and \`drop\` does not name it, or when a published product would lack a required value (details as the preview's \`blocking\`); \`drop\` naming anything else is 422 on \`drop[i]\`. ${TARGET_ERRORS}`,
        tags,
        security: bearerSecurity,
        params: IdParams,
        querystring: TemplateUpgradeQuery,
        headers: RequiredIfMatch,
        body: Type.Ref('TemplateUpgradeRequest'),
        [OPTIONAL_BODY]: true,
        response: { 200: okSchema(Type.Ref('ProductDetail')), 412: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      const upgraded = await core.catalogue.products.upgradeTemplate(
        request.ctx,
        request.params.id,
        request.query,
        request.body ?? {},
        header(request, 'if-match'),
      );
      return replyWithEtag(reply, request.id, await productDetail(core, request.ctx, upgraded));
    },
  );

  app.get(
    '/products/template-upgrades',
    {
      schema: {
        operationId: 'previewTemplateUpgrades',
        summary: 'Preview moving every product pinned to a version',
        description: `Changes nothing. The preview of every live product pinned to version \`from\` of template \`templateId\` (drafts included), one page at a time, ordered by product id: the field differences once, then per product what its upgrade would drop or refuse. Editable or manage (403 forbidden otherwise). Bounded: pageSize default 20, values above 100 count as 100; the work per page is a count, one read of the products and two of their files. No ETag. 422 validation_failed naming \`templateId\` (not a template of your library), \`from\` (not a version of it) or \`to\` (not a version, not newer than \`from\`, or the template was deleted).`,
        tags,
        security: bearerSecurity,
        querystring: TemplateUpgradesQuery,
        response: { 200: PagedPreview, ...commonErrors },
      },
    },
    async (request, reply) => {
      const { head, page } = await core.catalogue.products.previewTemplateUpgrades(request.ctx, request.query);
      // the envelope as the route's schema writes it, with the products written batch by batch
      // where its empty list stands ("products" is the last property of data)
      const envelope = (reply.compileSerializationSchema(PagedPreview as unknown as Record<string, unknown>) as (value: unknown) => string)(
        ok(request.id, { ...head, products: [] }, page.pagination),
      );
      const at = envelope.indexOf(EMPTY_PRODUCTS);
      return sendStreamedArray(reply, {
        page,
        budget: core.platform.answerBudget,
        serializeItem: reply.compileSerializationSchema(ProductUpgradeItem as unknown as Record<string, unknown>) as (value: unknown) => string,
        head: envelope.slice(0, at + EMPTY_PRODUCTS.length - 1),
        tail: envelope.slice(at + EMPTY_PRODUCTS.length - 1),
      });
    },
  );
}

/** The template-upgrade routes as the app registers them (rest/resource.ts). */
export const productTemplateUpgradeResource: RestResource = {
  routes: productTemplateUpgradeRoutes,
  schemas: [TemplateUpgradeReport, TemplateUpgradeRequest, TemplateUpgradesPreview],
};
