import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AssetLookupItem, AssetLookupQuery } from '../../core/assets/files/asset-lookup.ts';
import type { Core } from '../../core/core.ts';
import { listSchema, okPage } from '../envelope.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors } from '../schemas.ts';

const tags = ['Assets'];

/** Asset lookup: the file-path IDs product media take (spec 2.1). One core operation. */
export async function assetRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/assets',
    {
      schema: {
        operationId: 'lookupAssets',
        summary: 'Find library files (asset lookup)',
        description:
          'Finds live files of the team by name (case-insensitive substring), folder path (with recursive=true its subtree), extension, SHA-256 of the content, or a list of up to 100 file-path IDs; filters combine with AND. Ordered by id, in ordinary pages (pageSize at most 100). Each item gives the file-path `id` that product media take, the stored-object `assetId`, name, folder path, MIME type, size (decimal string), width, height, duration (seconds) and a signed previewUrl. Any role. A folder path that does not exist matches nothing. No ETag on lists. Failures: 401, 422 validation_failed (a malformed sha256, ids or extension), 503.',
        tags,
        security: bearerSecurity,
        querystring: AssetLookupQuery,
        response: { 200: listSchema(Type.Ref('AssetLookupItem')), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.assets.library.lookup(request.ctx, request.query));
    },
  );
}

const assetSchemas = [AssetLookupItem];

/** The assets resource as the app registers it (rest/resource.ts). */
export const assetResource: RestResource = { routes: assetRoutes, schemas: assetSchemas };
