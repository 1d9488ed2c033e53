import { Type, type Static } from 'typebox';
import { requirePermission } from '../../access/roles.ts';
import { actorLabel, keyOf, type Ctx, type UnitOfWork } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { normalizePage, paginationOf, type Page } from '../../platform/pagination.ts';
import { timestampInput } from '../../platform/timestamp-schema.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { countActivityRecords, deleteActivityBefore, deleteExpiredActivity, insertActivityRecord, listActivityRecords } from './activity-records.queries.ts';

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

const checkQuery = compileInput(ActivityQuery);
const checkPurge = compileInput(ActivityPurge);

/** Writes an activity record in the caller's transaction (a write and its record commit together). */
export async function recordActivity(tx: Ctx, resourceType: ResourceType, resourceId: string | number, action: ActivityAction): Promise<void> {
  const key = keyOf(tx.actor);
  await insertActivityRecord(tx, {
    resourceType,
    resourceId: String(resourceId),
    action,
    actor: actorLabel(tx.actor),
    keyId: key?.keyId ?? null,
    role: key?.role ?? null,
    requestId: tx.requestId ?? null,
  });
}

/** Activity records (`GET /v1/activity-records`, manage only): the team's catalogue writes, newest first, filtered. */
export async function activityPage(ctx: Ctx, input: unknown): Promise<Page<ActivityItem>> {
  requirePermission(ctx, 'activity:read');
  const query = checkQuery(input ?? {});
  if (query.resourceType !== undefined && !(RESOURCE_TYPES as readonly string[]).includes(query.resourceType)) {
    throw invalid('resourceType', `must be one of ${RESOURCE_TYPES.join(', ')}`);
  }
  const page = normalizePage(query);
  const filter = {
    resourceType: query.resourceType ?? null,
    resourceId: query.resourceId ?? null,
    actorKeyId: query.actorKeyId ?? null,
    from: query.from ?? null,
    to: query.to ?? null,
  };
  const [count, items] = await Promise.all([
    countActivityRecords(ctx, filter),
    listActivityRecords(ctx, filter, page.pageSize, (page.page - 1) * page.pageSize),
  ]);
  return { items, pagination: paginationOf(page, count) };
}

/** Manage-only purge of records older than a date; the purge itself is recorded. */
export async function purgeActivity(ctx: Ctx, input: unknown): Promise<{ purged: number }> {
  requirePermission(ctx, 'activity:manage');
  const { before } = checkPurge(input);
  return inTransaction(ctx, async (tx) => {
    const purged = await deleteActivityBefore(tx, before);
    await recordActivity(tx, 'activity_records', before, 'purged');
    return { purged };
  });
}

/** The retention job (maintenance worker): every team's records older than `days` days, in batches. */
export async function purgeExpiredActivity(op: UnitOfWork, days: number, batch = 10_000): Promise<number> {
  return deleteExpiredActivity(op, days, batch);
}
