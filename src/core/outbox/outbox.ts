import { randomUUID } from 'node:crypto';
import { type ActingScope, type Actor, actorLabel, type UnitOfWork } from '../platform/ctx.ts';
import { type LiveRowInput, recordLive } from '../platform/live-log.ts';
import { insertEventsWithDeliveries, insertEventWithDeliveries, type OutboxRow } from './outbox.queries.ts';

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
  /**
   * The live log's scope of the event (GraphQL subscriptions, docs/graphql.md "Live updates"): an
   * event with one is written there too, whether or not a webhook subscribes to it.
   */
  live?: LiveScope;
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
 * another (deliveries.queries.ts SUCCEED_MANY). One statement's endpoints are locked in id order.
 * Returns the event id, or null when nobody subscribes.
 */
export async function recordEvent(tx: ActingScope, event: EventToRecord): Promise<string | null> {
  const eventId = randomUUID();
  const body = { eventId, eventType: event.eventType, eventTime: String(Date.now()), actor: actorObject(tx.actor), ...event.fields };
  const text = JSON.stringify(body);
  const written = await insertEventWithDeliveries(tx, outboxRow({ ...event, teamId: tx.teamId, actor: tx.actor }, eventId, text));
  if (event.live) await recordLive(tx, [liveRowOfEvent(tx.teamId, event.eventType, event.live, text)]);
  return written ? eventId : null;
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
  const recorded = await insertEventsWithDeliveries(
    tx,
    events.map((event, i) => outboxRow(event, ids[i]!, bodies[i]!)),
  );
  await recordLive(
    tx,
    events.flatMap((event, i) => (event.live ? [liveRowOfEvent(event.teamId, event.eventType, event.live, bodies[i]!)] : [])),
  );
  return ids.map((id) => (recorded.has(id) ? id : null));
}

function outboxRow(event: ScopedEvent, eventId: string, body: string): OutboxRow {
  return {
    teamId: event.teamId,
    kind: event.audience.kind,
    eventType: event.eventType,
    folderId: event.audience.kind === 'folder' ? event.audience.folderId : null,
    eventId,
    orderingKey: event.orderingKey,
    body,
    actor: actorLabel(event.actor),
  };
}

/** What the live log records of an outbox event: which stream it feeds and what it is about. */
export type LiveScope = { stream: 'library'; subjectId: string; folderIds: readonly number[] } | { stream: 'approval'; subjectId: string };

/** A library event or approval callback for the live log: the very body a webhook receiver gets (less its per-line sequence). */
function liveRowOfEvent(teamId: number, eventType: string, scope: LiveScope, body: string): LiveRowInput {
  return {
    teamId,
    stream: scope.stream,
    eventType,
    subjectId: scope.subjectId,
    folderIds: scope.stream === 'library' ? [...new Set(scope.folderIds)] : [],
    brandId: null,
    categoryId: null,
    draftsOnly: false,
    body,
  };
}
