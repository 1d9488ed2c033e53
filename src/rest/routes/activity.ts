import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ActivityItem, ActivityPurge, ActivityQuery } from '../../core/catalogue/activity/activity-records.schemas.ts';
import type { Core } from '../../core/core.ts';
import { listSchema, ok, okPage, okSchema } from '../envelope.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity, commonErrors } from '../schemas.ts';

const tags = ['Activity records'];

/** The team-wide log of catalogue writes (manage only). Each handler calls one core operation. */
export async function activityRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/activity-records',
    {
      schema: {
        operationId: 'listActivityRecords',
        summary: 'List activity records',
        description:
          'Every catalogue write of the team (brands, categories, templates, products), newest first: resource type and id, action, actor, key and role, time and request id. Filters: resourceType, resourceId, actorKeyId, from, to (RFC 3339). Manage role (403 otherwise). Records are kept ACTIVITY_RETENTION_DAYS (400 by default). No ETag.',
        tags,
        security: bearerSecurity,
        querystring: ActivityQuery,
        response: { 200: listSchema(Type.Ref('ActivityItem')), ...commonErrors },
      },
    },
    async (request) => {
      return okPage(request.id, await core.catalogue.activity.page(request.ctx, request.query));
    },
  );

  app.post(
    '/activity-records/purge',
    {
      schema: {
        operationId: 'purgeActivityRecords',
        summary: 'Purge old activity records',
        description:
          "Deletes the team's activity records older than `before`; the purge is itself recorded (resourceType activity_records, action purged). Manage role.",
        tags,
        security: bearerSecurity,
        body: Type.Ref('ActivityPurge'),
        response: { 200: okSchema(Type.Object({ purged: Type.Integer({ description: 'Records deleted.' }) })), ...commonErrors },
      },
    },
    async (request) => ok(request.id, await core.catalogue.activity.purge(request.ctx, request.body)),
  );
}

const activitySchemas = [ActivityItem, ActivityPurge];

/** The activity resource as the app registers it (rest/resource.ts). */
export const activityResource: RestResource = { routes: activityRoutes, schemas: activitySchemas };
