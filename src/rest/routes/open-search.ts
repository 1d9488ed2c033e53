import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  AssetItem,
  FolderDTO,
  SearchAssetsRequest,
  SearchAssetsResult,
  SearchFacet,
  SearchFacetValue,
  SearchShareRequest,
  SearchShareResult,
} from '../../core/assets/search/search.schemas.ts';
import type { Core } from '../../core/core.ts';
import { holdAnswer } from '../answer-allowance.ts';
import { OpenErrorEnvelope, openCommonErrors, openErrorRef, openOk, openOkSchema } from '../open-envelope.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity } from '../schemas.ts';

const tags = ['Asset search'];

/** Spec 4.6: search-assets and search-share. Each handler calls one core operation and wraps its result. */
export async function openSearchRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/search-assets',
    {
      schema: {
        operationId: 'searchAssets',
        description:
          'Searches the team library (spec 4.6): keywords (DEFAULT, PRECISE, DEEP, DEEP_AND_PRECISE), extensions, size and duration ranges, tags, colour, folder subtree (parentId), creators, custom fields, sorting and paging by startPoint/endPoint (at most 100 per page). Any role. Results are AssetItems with signed, expiring links; publicUrl when processing parameters are given. Opt-in (Shelf extension): `facets` adds exact counts per value of up to 8 facets over the same matches as `total` (docs/search.md "Facets"); without it the result is exactly as the spec defines it. Failures in the open envelope: 400 invalid_parameter (details[]), 400 nul_character, 401, 404 not_found (parentId), 413, 503 service_unavailable (Retry-After).',
        summary: 'Search assets of the team library',
        tags,
        security: bearerSecurity,
        body: Type.Ref('SearchAssetsRequest'),
        response: { 200: openOkSchema(Type.Ref('SearchAssetsResult')), ...openCommonErrors },
      },
    },
    async (request, reply) =>
      openOk(request.id, await core.assets.assetSearch.search(holdAnswer(request.ctx, reply, core.platform.answerBudget), request.body)),
  );

  app.post(
    '/search-share',
    {
      schema: {
        operationId: 'searchShare',
        description:
          "Searches assets and folders inside a shared link (spec 4.6): the token (and password when protected) opens one folder subtree of the caller's team. Failures: 403 share_password_required / share_password_invalid, 404 share_not_found, 404 not_found (a folder outside the share), 429 too_many_attempts after 10 wrong passwords a minute (Retry-After), 400 invalid_parameter, 503 service_unavailable (PostgreSQL, or Redis which counts the attempts, unreachable; Retry-After).",
        summary: 'Search assets and folders inside a shared link',
        tags,
        security: bearerSecurity,
        body: Type.Ref('SearchShareRequest'),
        response: { 200: openOkSchema(Type.Ref('SearchShareResult')), 403: openErrorRef, 429: openErrorRef, ...openCommonErrors },
      },
    },
    async (request, reply) => openOk(request.id, await core.assets.shares.search(holdAnswer(request.ctx, reply, core.platform.answerBudget), request.body)),
  );
}

/** Named schemas of the open search API, registered once by the app (OpenAPI components). */
const openSearchSchemas = [
  OpenErrorEnvelope,
  FolderDTO,
  AssetItem,
  SearchAssetsRequest,
  SearchFacetValue,
  SearchFacet,
  SearchAssetsResult,
  SearchShareRequest,
  SearchShareResult,
];

/** The open-search resource as the app registers it (rest/resource.ts). */
export const openSearchResource: RestResource = { routes: openSearchRoutes, schemas: openSearchSchemas };
