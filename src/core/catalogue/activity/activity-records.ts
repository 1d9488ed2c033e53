import { requirePermission } from '../../access/roles.ts';
import { actorLabel, type Ctx, keyOf, type UnitOfWork } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { countActivityRecords, deleteActivityBefore, deleteExpiredActivity, insertActivityRecord, listActivityRecords } from './activity-records.queries.ts';
import { type ActivityAction, type ActivityItem, ActivityPurge, ActivityQuery, RESOURCE_TYPES, type ResourceType } from './activity-records.schemas.ts';

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
