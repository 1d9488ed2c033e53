import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { int, nullableInt, nullableText, text } from '../../platform/row-checks.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { ActivityAction, ActivityItem, ResourceType } from './activity-records.schemas.ts';

/* Statements on activity records (activity_records). Every statement but the retention purge names the team. */

/** One write's record: who made it (`actor` as activity records name callers), with which key and role, in which request. */
export interface ActivityRecordInput {
  resourceType: ResourceType;
  resourceId: string;
  action: ActivityAction;
  actor: string;
  keyId: number | null;
  role: string | null;
  requestId: string | null;
}

/** Writes an activity record (in the caller's transaction, so a write and its record commit together). */
export async function insertActivityRecord(tx: TeamScope, record: ActivityRecordInput): Promise<void> {
  await queryRows(
    tx,
    `insert into activity_records (team_id, resource_type, resource_id, action, actor, actor_key_id, actor_role, request_id) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [tx.teamId, record.resourceType, record.resourceId, record.action, record.actor, record.keyId, record.role, record.requestId],
  );
}

/** Which records a page lists, each filter optional (null): a resource type, a resource id, an API key, a creation-time range (RFC 3339). */
export interface ActivityFilter {
  resourceType: string | null;
  resourceId: string | null;
  actorKeyId: number | null;
  from: string | null;
  to: string | null;
}

const ACTIVITY_FILTER = `team_id = ? and (?::text is null or resource_type = ?) and (?::text is null or resource_id = ?) and (?::int is null or actor_key_id = ?)
    and (?::timestamptz is null or created_at >= ?::timestamptz) and (?::timestamptz is null or created_at < ?::timestamptz)`;

function activityFilterParams(scope: TeamScope, filter: ActivityFilter): unknown[] {
  return [
    scope.teamId,
    filter.resourceType,
    filter.resourceType,
    filter.resourceId,
    filter.resourceId,
    filter.actorKeyId,
    filter.actorKeyId,
    filter.from,
    filter.from,
    filter.to,
    filter.to,
  ];
}

/** How many of the team's records the filter lets through. */
export async function countActivityRecords(scope: TeamScope, filter: ActivityFilter): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select count(*)::int as n from activity_records where ${ACTIVITY_FILTER}`,
    activityFilterParams(scope, filter),
  );
  return int(row!.n, 'n');
}

/** A page of the team's records the filter lets through, newest first. */
export async function listActivityRecords(scope: TeamScope, filter: ActivityFilter, limit: number, offset: number): Promise<ActivityItem[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select id::text, resource_type as "resourceType", resource_id as "resourceId", action, ${isoSql('created_at')} as at, actor,
              actor_key_id as "keyId", actor_role as role, request_id as "requestId"
         from activity_records where ${ACTIVITY_FILTER} order by id desc limit ? offset ?`,
    [...activityFilterParams(scope, filter), limit, offset],
  );
  return rows.map((row) => ({
    id: text(row.id, 'id'),
    resourceType: text(row.resourceType, 'resourceType'),
    resourceId: text(row.resourceId, 'resourceId'),
    action: text(row.action, 'action'),
    at: text(row.at, 'at'),
    actor: text(row.actor, 'actor'),
    keyId: nullableInt(row.keyId, 'keyId'),
    role: nullableText(row.role, 'role'),
    requestId: nullableText(row.requestId, 'requestId'),
  }));
}

/** Deletes the team's records created before `before` (RFC 3339); how many. */
export async function deleteActivityBefore(tx: TeamScope, before: string): Promise<number> {
  const rows = await queryRows(tx, 'delete from activity_records where team_id = ? and created_at < ?::timestamptz returning id', [tx.teamId, before]);
  return rows.length;
}

/** Deletes up to `batch` records of any team older than `days` days; how many. */
export async function deleteExpiredActivity(op: UnitOfWork, days: number, batch: number): Promise<number> {
  const rows = await queryRows(
    op,
    `delete from activity_records where id in (select id from activity_records where created_at < now() - ? * interval '1 day' limit ?) returning id`,
    [days, batch],
  );
  return rows.length;
}
