import type { TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { bigintText, text } from '../platform/row-checks.ts';
import { idArray, intArray, nullableIntArray, queryOne, queryRows, textArray } from '../platform/sql.ts';

/*
 * Statements on the outbox (outbox_events). Recording an event also places its deliveries in
 * their lines (webhook_delivery_lines, webhook_deliveries) in the same statement: outbox.ts says
 * what that locks and why.
 */

/** An event as the outbox stores it, with whom it reaches. */
export interface OutboxRow {
  teamId: number;
  /** The audience's kind: `material`, `folder` or `approval`. */
  kind: string;
  eventType: string;
  /** The subscribed folder for a `folder` audience, else null. */
  folderId: number | null;
  eventId: string;
  orderingKey: string;
  /** The body, JSON text. */
  body: string;
  /** actorLabel of who caused it. */
  actor: string;
}

/**
 * Writes an event and one delivery per subscribed, active endpoint (outbox.ts recordEvent); writes
 * nothing when nobody subscribes. True when the event was written.
 */
export async function insertEventWithDeliveries(tx: UnitOfWork, event: OutboxRow): Promise<boolean> {
  const rows = await queryRows(
    tx,
    `with targets as (
       select distinct s.endpoint_id from event_subscriptions s
         join webhook_endpoints e on e.id = s.endpoint_id and e.team_id = s.team_id and e.state = 'active'
        where s.team_id = ? and s.kind = ? and s.event_type = ? and s.folder_id is not distinct from ?::int),
     ev as (
       insert into outbox_events (team_id, event_id, event_type, ordering_key, body, actor)
       select ?, ?, ?, ?, ?::json, ? where exists (select 1 from targets) returning id),
     lines as (
       insert into webhook_delivery_lines as l (endpoint_id, ordering_key, team_id, last_sequence, unfinished)
       select t.endpoint_id, ?, ?, 1, 1 from targets t where exists (select 1 from ev) order by t.endpoint_id
       on conflict (endpoint_id, ordering_key) do update set last_sequence = l.last_sequence + 1, unfinished = l.unfinished + 1
       returning endpoint_id, last_sequence, unfinished, replayed)
     insert into webhook_deliveries (team_id, endpoint_id, event_id, ordering_key, sequence, body_sequence, ready)
     select ?, lines.endpoint_id, ev.id, ?, lines.last_sequence, nullif(lines.last_sequence - lines.replayed, lines.last_sequence), lines.unfinished = 1
       from lines cross join ev
     returning id`,
    [
      event.teamId,
      event.kind,
      event.eventType,
      event.folderId,
      event.teamId,
      event.eventId,
      event.eventType,
      event.orderingKey,
      event.body,
      event.actor,
      event.orderingKey,
      event.teamId,
      event.teamId,
      event.orderingKey,
    ],
  );
  return rows.length > 0;
}

/**
 * insertEventWithDeliveries for many events in one statement, with the very rows it would write
 * one event at a time in this order (outbox.ts recordEvents). Returns the ids of the events written.
 */
export async function insertEventsWithDeliveries(tx: UnitOfWork, events: readonly OutboxRow[]): Promise<Set<string>> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `with input as (
       select * from unnest(?::int[], ?::text[], ?::text[], ?::int[], ?::uuid[], ?::text[], ?::text[], ?::text[]) with ordinality
         as i(team_id, kind, event_type, folder_id, event_id, ordering_key, body, actor, ord)),
     targets as (
       select distinct i.ord, s.endpoint_id from input i
         join event_subscriptions s on s.team_id = i.team_id and s.kind = i.kind and s.event_type = i.event_type and s.folder_id is not distinct from i.folder_id
         join webhook_endpoints e on e.id = s.endpoint_id and e.team_id = s.team_id and e.state = 'active'),
     ev as (
       insert into outbox_events (team_id, event_id, event_type, ordering_key, body, actor)
       select i.team_id, i.event_id, i.event_type, i.ordering_key, i.body::json, i.actor from input i
        where exists (select 1 from targets t where t.ord = i.ord) order by i.ord
       returning id, event_id),
     placed as (
       select t.endpoint_id, i.ordering_key, i.team_id, i.event_id, i.ord,
              row_number() over (partition by t.endpoint_id, i.ordering_key order by i.ord) as r,
              count(*) over (partition by t.endpoint_id, i.ordering_key) as n
         from targets t join input i on i.ord = t.ord),
     lines as (
       insert into webhook_delivery_lines as l (endpoint_id, ordering_key, team_id, last_sequence, unfinished)
       select endpoint_id, ordering_key, min(team_id), count(*), count(*) from placed group by endpoint_id, ordering_key order by endpoint_id, ordering_key
       on conflict (endpoint_id, ordering_key) do update set last_sequence = l.last_sequence + excluded.last_sequence, unfinished = l.unfinished + excluded.unfinished
       returning endpoint_id, ordering_key, last_sequence, unfinished, replayed),
     place as (
       select p.*, ev.id as outbox_id, lines.last_sequence - p.n + p.r as sequence, lines.unfinished - p.n + p.r as unfinished, lines.replayed
         from placed p join ev on ev.event_id = p.event_id join lines on lines.endpoint_id = p.endpoint_id and lines.ordering_key = p.ordering_key),
     deliveries as (
       insert into webhook_deliveries (team_id, endpoint_id, event_id, ordering_key, sequence, body_sequence, ready)
       select team_id, endpoint_id, outbox_id, ordering_key, sequence, nullif(sequence - replayed, sequence), unfinished = 1
         from place order by ord, endpoint_id)
     select event_id::text from ev`,
    [
      intArray(events.map((e) => e.teamId)),
      textArray(events.map((e) => e.kind)),
      textArray(events.map((e) => e.eventType)),
      nullableIntArray(events.map((e) => e.folderId)),
      idArray(events.map((e) => e.eventId)),
      textArray(events.map((e) => e.orderingKey)),
      textArray(events.map((e) => e.body)),
      textArray(events.map((e) => e.actor)),
    ],
  );
  return new Set(rows.map((row) => text(row.event_id, 'event_id')));
}

/** Writes an event for one endpoint only (a test event); its delivery is appended by the caller. Returns the event's row id. */
export async function insertEvent(tx: TeamScope, event: Omit<OutboxRow, 'teamId' | 'kind' | 'folderId'>): Promise<string> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into outbox_events (team_id, event_id, event_type, ordering_key, body, actor) values (?, ?::uuid, ?, ?, ?::json, ?) returning id::text`,
    [tx.teamId, event.eventId, event.eventType, event.orderingKey, event.body, event.actor],
  );
  return bigintText(row!.id, 'id');
}

/**
 * Events of the team an endpoint was sent before, in id order, at most `limit`: the one with
 * `eventId`, or those created in [from, to) (`to` null: up to now).
 */
export async function eventsSentTo(
  tx: TeamScope,
  endpointId: number,
  which: { eventId: string | null; from: string | null; to: string | null },
  limit: number,
): Promise<{ id: string; orderingKey: string }[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select o.id, o.ordering_key from outbox_events o
      where o.team_id = ? and exists (select 1 from webhook_deliveries d where d.event_id = o.id and d.endpoint_id = ? and d.team_id = o.team_id)
        and (o.event_id = ?::uuid or (?::timestamptz is not null and o.created_at >= ?::timestamptz and (?::timestamptz is null or o.created_at < ?::timestamptz)))
      order by o.id limit ?`,
    [tx.teamId, endpointId, which.eventId, which.from, which.from, which.to, which.to, limit],
  );
  return rows.map((row) => ({ id: bigintText(row.id, 'id'), orderingKey: text(row.ordering_key, 'ordering_key') }));
}

/** Deletes up to `batch` events older than `days` days that no delivery carries any more. */
export async function purgeOldEventsWithoutDeliveries(op: UnitOfWork, days: number, batch: number): Promise<void> {
  await queryRows(
    op,
    `delete from outbox_events o where o.id in (
       select o2.id from outbox_events o2 where o2.created_at < now() - interval '${Math.trunc(days)} days'
          and not exists (select 1 from webhook_deliveries d where d.event_id = o2.id) limit ?)`,
    [batch],
  );
}
