import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Core } from '../../core/core.ts';
import {
  AssetItem,
  FolderDTO,
  SearchAssetsRequest,
  SearchAssetsResult,
  SearchShareRequest,
  SearchShareResult,
} from '../../core/assets/search/search.schemas.ts';
import { OpenErrorEnvelope, openCommonErrors, openOk, openOkSchema } from '../open-envelope.ts';

const tags = ['Asset search'];
const security = [{ bearerAuth: [] }];
const openErrorRef = Type.Ref('OpenErrorEnvelope');

/** Spec 4.6: search-assets and search-share. Each handler calls one core operation and wraps its result. */
export async function openSearchRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  app.post('/search-assets', {
    schema: {
      operationId: 'searchAssets',
      summary: 'Search assets of the team library',
      tags,
      security,
      body: Type.Ref('SearchAssetsRequest'),
      response: { 200: openOkSchema(Type.Ref('SearchAssetsResult')), ...openCommonErrors },
    },
  }, async (request) => openOk(request.id, await core.assetSearch.search(request.ctx, request.body)));

  app.post('/search-share', {
    schema: {
      operationId: 'searchShare',
      summary: 'Search assets and folders inside a shared link',
      tags,
      security,
      body: Type.Ref('SearchShareRequest'),
      response: { 200: openOkSchema(Type.Ref('SearchShareResult')), 403: openErrorRef, ...openCommonErrors },
    },
  }, async (request) => openOk(request.id, await core.shares.search(request.ctx, request.body)));
}

/** Named schemas of the open search API, registered once by the app (OpenAPI components). */
export const openSearchSchemas = [
  OpenErrorEnvelope,
  FolderDTO,
  AssetItem,
  SearchAssetsRequest,
  SearchAssetsResult,
  SearchShareRequest,
  SearchShareResult,
];
