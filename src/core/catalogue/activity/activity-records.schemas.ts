import { type Static, Type } from 'typebox';
import { timestampInput } from '../../platform/timestamp-schema.ts';

export const RESOURCE_TYPES = ['brand', 'category', 'template', 'product', 'share', 'download', 'activity_records'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** What a write did to its resource; `revoked` is a share's, `purged` the activity records' own. */
export const ACTIVITY_ACTIONS = ['created', 'updated', 'published', 'unpublished', 'deleted', 'template_upgraded', 'revoked', 'purged'] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

export const ActivityQuery = Type.Object({
  resourceType: Type.Optional(Type.String({ description: `One of ${RESOURCE_TYPES.join(', ')}.` })),
  resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'One resource (with resourceType).' })),
  actorKeyId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Writes made with this API key.' })),
  from: Type.Optional(timestampInput('Records at or after this time (RFC 3339).')),
  to: Type.Optional(timestampInput('Records before this time (RFC 3339).')),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Page from 1 (default 1).' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Items per page (default 20, values above 100 count as 100).' })),
});

export const ActivityPurge = Type.Object(
  { before: timestampInput('Delete the records older than this time (RFC 3339).') },
  { $id: 'ActivityPurge', additionalProperties: false },
);

export const ActivityItem = Type.Object(
  {
    id: Type.String({ description: 'Record id (a decimal string), increasing with time.' }),
    resourceType: Type.String({ description: `One of ${RESOURCE_TYPES.join(', ')}.` }),
    resourceId: Type.String({ description: "The resource's id, as a string (template ids are strings)." }),
    action: Type.String({
      description: '`created`, `updated`, `published`, `unpublished`, `deleted`, `template_upgraded` (products), `revoked` (shares) or `purged`.',
    }),
    at: Type.String({ format: 'date-time', description: 'When the write committed (RFC 3339, UTC, microseconds).' }),
    actor: Type.String({ description: '`key:<id>`, `member:<id>` or `system:<job>`.' }),
    keyId: Type.Union([Type.Integer(), Type.Null()], { description: 'The API key of the write; null without one.' }),
    role: Type.Union([Type.String(), Type.Null()], { description: "That key's role at the time." }),
    requestId: Type.Union([Type.String(), Type.Null()], { description: 'The request id (X-Request-Id).' }),
  },
  { $id: 'ActivityItem', additionalProperties: false },
);
export type ActivityItem = Static<typeof ActivityItem>;
