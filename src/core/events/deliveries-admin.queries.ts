import { EVENT_TYPES } from '../outbox/event-types.ts';
import type { TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { bigintText, int, nullableInt, nullableText, oneOf, text } from '../platform/row-checks.ts';
import { queryOne, queryRows } from '../platform/sql.ts';
import { isoSql } from '../platform/timestamps.ts';
import { type AttemptView, DELIVERY_STATUSES, type DeliveryView } from './webhook-values.ts';

/*
 * Statements on webhook deliveries for the integrator tools (WebhookAdminService): pages of an
 * endpoint's deliveries and their attempts, replays appended to a line, and the retention purge.
 * The statements the delivery engine runs are deliveries.queries.ts.
 */

/** Which of an endpoint's deliveries a page lists: a status and a creation-time range (RFC 3339), each optional. */
export interface DeliveryFilter {
  status: string | null;
  from: string | null;
  to: string | null;
}

const DELIVERY_FILTER = `d.team_id = ? and d.endpoint_id = ? and (?::text is null or d.status = ?) and (?::timestamptz is null or d.created_at >= ?::timestamptz) and (?::timestamptz is null or d.created_at < ?::timestamptz)`;

function deliveryFilterParams(scope: TeamScope, endpointId: number, filter: DeliveryFilter): unknown[] {
  return [scope.teamId, endpointId, filter.status, filter.status, filter.from, filter.from, filter.to, filter.to];
}

/** How many of an endpoint's deliveries the filter lets through. */
export async function countDeliveries(scope: TeamScope, endpointId: number, filter: DeliveryFilter): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select count(*)::int as n from webhook_deliveries d where ${DELIVERY_FILTER}`,
    deliveryFilterParams(scope, endpointId, filter),
  );
  return int(row!.n, 'n');
}

/** A page of an endpoint's deliveries the filter lets through, newest first. */
export async function listDeliveries(scope: TeamScope, endpointId: number, filter: DeliveryFilter, limit: number, offset: number): Promise<DeliveryView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select d.id::text, o.event_id as "eventId", o.event_type as "eventType", d.ordering_key as "orderingKey", coalesce(d.body_sequence, d.sequence)::int as sequence, d.status, d.attempts,
            case when d.status = 'pending' then ${isoSql('d.next_attempt_at')} end as "nextAttemptAt", d.last_status as "lastStatus", d.last_error as "lastError",
            ${isoSql('d.created_at')} as "createdAt", ${isoSql('d.finished_at')} as "finishedAt"
       from webhook_deliveries d
       -- the event by its key alone, as CLAIM_MANY reads it and for its reason; the team is checked on the row
       cross join lateral (select o.event_id, o.event_type, o.team_id from outbox_events o where o.id = d.event_id limit 1) o
      where ${DELIVERY_FILTER} and o.team_id = d.team_id order by d.id desc limit ? offset ?`,
    [...deliveryFilterParams(scope, endpointId, filter), limit, offset],
  );
  return rows.map((row) => ({
    id: bigintText(row.id, 'id'),
    eventId: text(row.eventId, 'eventId'),
    eventType: oneOf(EVENT_TYPES, row.eventType, 'eventType'),
    orderingKey: text(row.orderingKey, 'orderingKey'),
    sequence: int(row.sequence, 'sequence'),
    status: oneOf(DELIVERY_STATUSES, row.status, 'status'),
    attempts: int(row.attempts, 'attempts'),
    nextAttemptAt: nullableText(row.nextAttemptAt, 'nextAttemptAt'),
    lastStatus: nullableInt(row.lastStatus, 'lastStatus'),
    lastError: nullableText(row.lastError, 'lastError'),
    createdAt: text(row.createdAt, 'createdAt'),
    finishedAt: nullableText(row.finishedAt, 'finishedAt'),
  }));
}

/** The endpoint a delivery of the team belongs to, or null when the team has no such delivery. */
export async function endpointIdOfDelivery(scope: TeamScope, deliveryId: string): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select endpoint_id from webhook_deliveries where id = ? and team_id = ?', [
    deliveryId,
    scope.teamId,
  ]);
  return row && int(row.endpoint_id, 'endpoint_id');
}

/** Every attempt of one delivery of the team, in order. */
export async function listAttempts(scope: TeamScope, deliveryId: string): Promise<AttemptView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select attempt, ${isoSql('started_at')} as "startedAt", duration_ms as "durationMs", status_code as "statusCode", error, response_excerpt as "responseExcerpt"
       from webhook_attempts where delivery_id = ? and team_id = ? order by attempt`,
    [deliveryId, scope.teamId],
  );
  return rows.map((row) => ({
    attempt: int(row.attempt, 'attempt'),
    startedAt: text(row.startedAt, 'startedAt'),
    durationMs: int(row.durationMs, 'durationMs'),
    statusCode: nullableInt(row.statusCode, 'statusCode'),
    error: nullableText(row.error, 'error'),
    responseExcerpt: nullableText(row.responseExcerpt, 'responseExcerpt'),
  }));
}

/**
 * Appends a delivery of a stored event to an endpoint's line for its key, behind what is pending
 * there. A replay carries the sequence of the event's first delivery to this endpoint, so a
 * receiver sees a repeat and not a new event, and is counted so the next new event's sequence
 * follows the last one without a gap (outbox.queries.ts gives new events `place - replayed`).
 * Returns the new delivery's id.
 */
export async function appendToLine(tx: TeamScope, endpointId: number, eventRowId: string, orderingKey: string, replay: boolean): Promise<string> {
  const teamId = tx.teamId;
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `with first as (
       select coalesce(body_sequence, sequence) as sequence from webhook_deliveries
        where ?::boolean and endpoint_id = ? and event_id = ? and team_id = ? order by id limit 1),
     line as (
       insert into webhook_delivery_lines as l (endpoint_id, ordering_key, team_id, last_sequence, unfinished, replayed) values (?, ?, ?, 1, 1, ?)
       on conflict (endpoint_id, ordering_key) do update
         set last_sequence = l.last_sequence + 1, unfinished = l.unfinished + 1, replayed = l.replayed + excluded.replayed
       returning last_sequence, unfinished, replayed)
     insert into webhook_deliveries (team_id, endpoint_id, event_id, ordering_key, sequence, body_sequence, ready)
     select ?, ?, ?, ?, line.last_sequence,
            case when ?::boolean then (select sequence from first) else nullif(line.last_sequence - line.replayed, line.last_sequence) end,
            line.unfinished = 1
       from line
     returning id::text`,
    [replay, endpointId, eventRowId, teamId, endpointId, orderingKey, teamId, replay ? 1 : 0, teamId, endpointId, eventRowId, orderingKey, replay],
  );
  return bigintText(row!.id, 'id');
}

/** Deletes up to `batch` deliveries (their attempts go with them) that finished more than `days` days ago; returns how many. */
export async function purgeFinishedDeliveries(op: UnitOfWork, days: number, batch: number): Promise<number> {
  const rows = await queryRows(
    op,
    `with old as (
       select id from webhook_deliveries where status in ('succeeded', 'failed') and finished_at < now() - interval '${Math.trunc(days)} days' limit ?)
     -- their attempts go with them (foreign key on delete cascade)
     delete from webhook_deliveries d using old where d.id = old.id returning d.id`,
    [batch],
  );
  return rows.length;
}
