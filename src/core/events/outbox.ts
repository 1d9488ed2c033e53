import { randomUUID } from 'node:crypto';
import { actorLabel, type Actor, type UnitOfWork, type ActingScope } from '../platform/ctx.ts';
import { intArray, queryRows, textArray } from '../platform/sql.ts';

/** Which subscriptions an event reaches (spec 6): a team's material subscriptions of its type, a folder's, or approval subscriptions. */
export type EventAudience = { kind: 'material' } | { kind: 'folder'; folderId: number } | { kind: 'approval' };

export interface EventToRecord {
  /** `MATERIAL_*` (6.2), `FOLDER_CONTENT_UPDATE` (6.1) or `APPROVAL` (6.3). */
  eventType: string;
  audience: EventAudience;
  /**
   * Events of one endpoint and one key arrive in commit order (docs/events.md): `material:<id>`,
   * `folder:<id>`, `task:<id>`.
   */
  orderingKey: string;
  /** The body's own fields (spec 6.1-6.3), after `eventId`, `eventType`, `eventTime` and `actor`. */
  fields: Record<string, unknown>;
}

/** How a body names the caller that caused it, so an integrator can drop echoes of its own writes. */
export function actorObject(actor: Actor): Record<string, unknown> {
  if (actor.kind === 'key') return { kind: 'key', id: actor.keyId };
  if (actor.kind === 'member') return { kind: 'member', id: actor.userId };
  return { kind: 'system', job: actor.job };
}

/**
 * Writes an event to the outbox and one delivery per subscribed, active endpoint, in the caller's
 * transaction (DESIGN.md Events), so an event exists exactly when its change committed. Nothing is
 * written when nobody subscribes. Each delivery takes the next place in its endpoint's line for
 * the ordering key (its body's sequence leaves out the places replays took), and is the line's
 * head (`ready`) when nothing before it is unfinished; the line row's lock orders concurrent
 * writers and the delivery worker that finishes a head. The lock is held to the end of the
 * caller's transaction, so a transaction writing several events holds several lines, taken in
 * the order it writes them; the delivery worker therefore never waits for a line while holding
 * another (delivery.service.ts SUCCEED_MANY). One statement's endpoints are locked in id order.
 * Returns the event id, or null when nobody subscribes.
 */
export async function recordEvent(tx: ActingScope, event: EventToRecord): Promise<string | null> {
  const eventId = randomUUID();
  const body = { eventId, eventType: event.eventType, eventTime: String(Date.now()), actor: actorObject(tx.actor), ...event.fields };
  const folderId = event.audience.kind === 'folder' ? event.audience.folderId : null;
  const rows = await queryRows<{ id: string }>(
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
      tx.teamId,
      event.audience.kind,
      event.eventType,
      folderId,
      tx.teamId,
      eventId,
      event.eventType,
      event.orderingKey,
      JSON.stringify(body),
      actorLabel(tx.actor),
      event.orderingKey,
      tx.teamId,
      tx.teamId,
      event.orderingKey,
    ],
  );
  return rows.length > 0 ? eventId : null;
}

/** An event with the team and actor it belongs to, for recordEvents (one statement may hold several teams' events). */
export interface ScopedEvent extends EventToRecord {
  teamId: number;
  actor: Actor;
}

/**
 * recordEvent for many events in one statement, with the very rows recordEvent would write one
 * event at a time in this order: the events of one endpoint and ordering key take consecutive
 * places in its line, in input order, and only the first of them can be the line's head. For
 * callers that write many events at once (approval timers fired together): one round trip instead
 * of one per event. The statement locks its lines in endpoint and key order. Returns each event's
 * id, or null when nobody subscribes to it.
 */
export async function recordEvents(tx: UnitOfWork, events: ScopedEvent[]): Promise<(string | null)[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => randomUUID());
  const bodies = events.map((event, i) =>
    JSON.stringify({ eventId: ids[i], eventType: event.eventType, eventTime: String(Date.now()), actor: actorObject(event.actor), ...event.fields }),
  );
  const rows = await queryRows<{ event_id: string }>(
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
      textArray(events.map((e) => e.audience.kind)),
      textArray(events.map((e) => e.eventType)),
      `{${events.map((e) => (e.audience.kind === 'folder' ? Math.trunc(e.audience.folderId) : 'NULL')).join(',')}}`,
      `{${ids.join(',')}}`,
      textArray(events.map((e) => e.orderingKey)),
      textArray(bodies),
      textArray(events.map((e) => actorLabel(e.actor))),
    ],
  );
  const recorded = new Set(rows.map((r) => r.event_id));
  return ids.map((id) => (recorded.has(id) ? id : null));
}
