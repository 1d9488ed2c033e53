import { actorLabel, requireKey, type Ctx, type UnitOfWork, type CallerScope, type TeamScope } from '../platform/ctx.ts';
import { hasPermission } from '../access/roles.ts';
import { DomainError, invalid, notFound } from '../platform/errors.ts';
import { normalizePage, paginationOf, type Page } from '../platform/pagination.ts';
import { queryOne, queryRows } from '../platform/sql.ts';
import { checkTimestamp, isoSql } from '../platform/timestamps.ts';
import { inTransaction } from '../platform/tx.ts';
import { randomUUID } from 'node:crypto';
import { actorObject } from './outbox.ts';
import { newSigningSecret } from './subscription.service.ts';
import { isUuid } from '../platform/ids.ts';

import { TEST_EVENT_TYPE, type EventType, type SubscriptionKind } from './event-types.ts';

export { TEST_EVENT_TYPE };

/** Where a delivery stands: waiting or retrying, being sent, done, or given up. */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An endpoint's state as its owner reads it (ENDPOINT_STATE below). */
export const ENDPOINT_STATES = ['active', 'unsubscribed', 'disabled'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/**
 * Whose endpoints an integrator tool sees: a team's, all of them (`keyId` null: manage keys and
 * operators) or one key's own.
 */
export type WebhookScope = TeamScope & { keyId: number | null };

/** A key sees its own endpoints; a manage key (and an operator naming the team) sees every endpoint of the team. */
export function webhookScopeOf(ctx: Ctx): WebhookScope {
  const key = requireKey(ctx.actor);
  return { em: ctx.em, teamId: ctx.teamId, keyId: hasPermission(key.role, 'library:manage_access') ? null : key.keyId };
}

export interface EndpointView {
  id: number;
  url: string;
  apiKeyId: number;
  state: EndpointState;
  disabledReason: string | null;
  disabledAt: string | null;
  failingSince: string | null;
  secret: string;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  subscriptions: { kind: SubscriptionKind; eventType: EventType; folderId: number | null }[];
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: EventType;
  orderingKey: string;
  sequence: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface AttemptView {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** Replays go this far back (GitHub keeps 3 days; docs/events.md). */
export const REPLAY_WINDOW_DAYS = 30;
/** At most this many events in one replay. */
export const REPLAY_MAX_EVENTS = 10_000;
/** How long a rotated-out secret keeps signing (Standard Webhooks allows an overlap). */
const ROTATION_OVERLAP = '24 hours';

/**
 * An endpoint's state as its owner reads it: `disabled` (stored), `unsubscribed` (active, but its
 * last subscription was removed: it gets no new events, while deliveries committed before are
 * still sent, in order, with retries; subscribing again makes it `active`), or `active`.
 */
const ENDPOINT_STATE = `case when e.state = 'active' and not exists (select 1 from event_subscriptions s where s.endpoint_id = e.id and s.team_id = e.team_id)
  then 'unsubscribed' else e.state end`;

const ENDPOINT_COLUMNS = `e.id, e.url, e.api_key_id as "apiKeyId", ${ENDPOINT_STATE} as state, e.disabled_reason as "disabledReason",
  ${isoSql('e.disabled_at')} as "disabledAt", ${isoSql('e.failing_since')} as "failingSince", e.secret,
  ${isoSql('e.previous_secret_expires_at')} as "previousSecretExpiresAt", ${isoSql('e.created_at')} as "createdAt",
  coalesce((select json_agg(json_build_object('kind', s.kind, 'eventType', s.event_type, 'folderId', s.folder_id) order by s.id)
              from event_subscriptions s where s.endpoint_id = e.id and s.team_id = e.team_id), '[]') as subscriptions`;

function rfc3339(value: string | undefined, field: string): string | null {
  return value === undefined ? null : checkTimestamp(field, value);
}

/**
 * What integrators need beyond the spec, for GraphQL and the CLI alike: their
 * endpoints and subscriptions with state and secret, deliveries and attempts, replays, secret
 * rotation and re-enabling. Every read and change is scoped to the team (and the key, for non-manage keys).
 */
export class WebhookAdminService {
  async listEndpoints(scope: WebhookScope): Promise<EndpointView[]> {
    return queryRows<EndpointView>(
      scope,
      `select ${ENDPOINT_COLUMNS} from webhook_endpoints e where e.team_id = ? and (?::int is null or e.api_key_id = ?) order by e.id`,
      [scope.teamId, scope.keyId, scope.keyId],
    );
  }

  async endpoint(scope: WebhookScope, endpointId: number): Promise<EndpointView> {
    const row = await queryOne<EndpointView>(
      scope,
      `select ${ENDPOINT_COLUMNS} from webhook_endpoints e where e.team_id = ? and e.id = ? and (?::int is null or e.api_key_id = ?)`,
      [scope.teamId, endpointId, scope.keyId, scope.keyId],
    );
    if (!row) throw notFound('Webhook endpoint');
    return row;
  }

  /** An endpoint's deliveries, newest first, filtered by status and a creation-time range. */
  async listDeliveries(
    scope: WebhookScope,
    endpointId: number,
    filter: { status?: string; from?: string; to?: string; page?: number | null; pageSize?: number | null },
  ): Promise<Page<DeliveryView>> {
    await this.endpoint(scope, endpointId);
    if (filter.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(filter.status))
      throw invalid('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    const from = rfc3339(filter.from, 'from');
    const to = rfc3339(filter.to, 'to');
    const page = normalizePage(filter);
    const where = `d.team_id = ? and d.endpoint_id = ? and (?::text is null or d.status = ?) and (?::timestamptz is null or d.created_at >= ?::timestamptz) and (?::timestamptz is null or d.created_at < ?::timestamptz)`;
    const params = [scope.teamId, endpointId, filter.status ?? null, filter.status ?? null, from, from, to, to];
    const [count, items] = await Promise.all([
      queryOne<{ n: number }>(scope, `select count(*)::int as n from webhook_deliveries d where ${where}`, params),
      queryRows<DeliveryView>(
        scope,
        `select d.id::text, o.event_id as "eventId", o.event_type as "eventType", d.ordering_key as "orderingKey", coalesce(d.body_sequence, d.sequence)::int as sequence, d.status, d.attempts,
                case when d.status = 'pending' then ${isoSql('d.next_attempt_at')} end as "nextAttemptAt", d.last_status as "lastStatus", d.last_error as "lastError",
                ${isoSql('d.created_at')} as "createdAt", ${isoSql('d.finished_at')} as "finishedAt"
           from webhook_deliveries d join outbox_events o on o.id = d.event_id and o.team_id = d.team_id
          where ${where} order by d.id desc limit ? offset ?`,
        [...params, page.pageSize, (page.page - 1) * page.pageSize],
      ),
    ]);
    return { items, pagination: paginationOf(page, count!.n) };
  }

  /** Every attempt of one delivery, in order. */
  async listAttempts(scope: WebhookScope, deliveryId: string): Promise<AttemptView[]> {
    const delivery = await queryOne<{ endpoint_id: number }>(scope, 'select endpoint_id from webhook_deliveries where id = ? and team_id = ?', [
      deliveryId,
      scope.teamId,
    ]);
    if (!delivery) throw notFound('Delivery');
    await this.endpoint(scope, delivery.endpoint_id);
    return queryRows<AttemptView>(
      scope,
      `select attempt, ${isoSql('started_at')} as "startedAt", duration_ms as "durationMs", status_code as "statusCode", error, response_excerpt as "responseExcerpt"
         from webhook_attempts where delivery_id = ? and team_id = ? order by attempt`,
      [deliveryId, scope.teamId],
    );
  }

  /**
   * Sends again one event, or every event of a time range (at most 30 days back), that this
   * endpoint was sent before: a new delivery each, with the same eventId and the same sequence,
   * queued behind its line.
   */
  async replay(scope: WebhookScope, endpointId: number, input: { eventId?: string; from?: string; to?: string }): Promise<{ replayed: number }> {
    const from = rfc3339(input.from, 'from');
    const to = rfc3339(input.to, 'to');
    if ((input.eventId === undefined) === (from === null)) throw invalid('eventId', 'give either eventId or from (and optionally to)');
    if (input.eventId !== undefined && !isUuid(input.eventId)) throw invalid('eventId', 'must be an event id (UUID)');
    if (from !== null && Date.parse(from) < Date.now() - REPLAY_WINDOW_DAYS * 86_400_000)
      throw invalid('from', `may be at most ${REPLAY_WINDOW_DAYS} days back`);
    return inTransaction(scope, async (tx) => {
      await this.endpoint({ ...scope, em: tx.em }, endpointId);
      const events = await queryRows<{ id: string; ordering_key: string }>(
        tx,
        `select o.id, o.ordering_key from outbox_events o
          where o.team_id = ? and exists (select 1 from webhook_deliveries d where d.event_id = o.id and d.endpoint_id = ? and d.team_id = o.team_id)
            and (o.event_id = ?::uuid or (?::timestamptz is not null and o.created_at >= ?::timestamptz and (?::timestamptz is null or o.created_at < ?::timestamptz)))
          order by o.id limit ?`,
        [scope.teamId, endpointId, input.eventId ?? null, from, from, to, to, REPLAY_MAX_EVENTS + 1],
      );
      if (input.eventId !== undefined && events.length === 0) throw notFound('Event');
      if (events.length > REPLAY_MAX_EVENTS)
        throw new DomainError('payload_too_large', `A replay may send at most ${REPLAY_MAX_EVENTS} events; narrow the range`);
      for (const event of events) await appendToLine(tx, scope.teamId, endpointId, event.id, event.ordering_key, true);
      return { replayed: events.length };
    });
  }

  /**
   * Sends a test event to one endpoint (Svix and Stripe have one): a signed `WEBHOOK_TEST` body
   * through the same guarded, recorded, retried delivery as every event, on a line of its own
   * (`test:<endpointId>`) so it never holds back real events. A disabled endpoint is refused:
   * nothing would be sent until it is enabled.
   */
  async sendTestEvent(scope: WebhookScope & CallerScope, endpointId: number): Promise<{ eventId: string; deliveryId: string }> {
    return inTransaction(scope, async (tx) => {
      const endpoint = await this.endpoint({ ...scope, em: tx.em }, endpointId);
      if (endpoint.state === 'disabled') {
        throw invalid(
          'endpointId',
          `the endpoint is disabled (${endpoint.disabledReason ?? 'no reason recorded'}): enable it first (GraphQL enableWebhookEndpoint, CLI webhook enable)`,
          'endpoint_disabled',
        );
      }
      const eventId = randomUUID();
      const orderingKey = `test:${endpointId}`;
      const body = {
        eventId,
        eventType: TEST_EVENT_TYPE,
        eventTime: String(Date.now()),
        actor: actorObject(scope.actor),
        test: true,
        payload: { endpointId, message: "A test event from Shelf: if you can read this, your endpoint receives and can verify Shelf's webhooks." },
      };
      const event = await queryOne<{ id: string }>(
        tx,
        `insert into outbox_events (team_id, event_id, event_type, ordering_key, body, actor) values (?, ?::uuid, ?, ?, ?::json, ?) returning id::text`,
        [scope.teamId, eventId, TEST_EVENT_TYPE, orderingKey, JSON.stringify(body), actorLabel(scope.actor)],
      );
      const deliveryId = await appendToLine(tx, scope.teamId, endpointId, event!.id, orderingKey, false);
      return { eventId, deliveryId };
    });
  }

  /** A new secret; the previous one keeps signing for 24 hours so receivers can switch without losing a delivery. */
  async rotateSecret(scope: WebhookScope, endpointId: number): Promise<EndpointView> {
    await inTransaction(scope, async (tx) => {
      await this.endpoint({ ...scope, em: tx.em }, endpointId);
      await queryRows(
        tx,
        `update webhook_endpoints set previous_secret = secret, previous_secret_expires_at = now() + interval '${ROTATION_OVERLAP}', secret = ?, updated_at = now()
          where id = ? and team_id = ?`,
        [newSigningSecret(), endpointId, scope.teamId],
      );
    });
    return this.endpoint(scope, endpointId);
  }

  /** Re-enables a disabled endpoint: its pending deliveries resume, and its run of failures starts afresh. */
  async enable(scope: WebhookScope, endpointId: number): Promise<EndpointView> {
    await inTransaction(scope, async (tx) => {
      await this.endpoint({ ...scope, em: tx.em }, endpointId);
      await queryRows(
        tx,
        `update webhook_endpoints set state = 'active', disabled_reason = null, disabled_at = null, failing_since = null, updated_at = now() where id = ? and team_id = ?`,
        [endpointId, scope.teamId],
      );
    });
    return this.endpoint(scope, endpointId);
  }
}

/**
 * Appends a delivery of a stored event to an endpoint's line for its key, behind what is pending
 * there. A replay carries the sequence of the event's first delivery to this endpoint, so a
 * receiver sees a repeat and not a new event, and is counted so the next new event's sequence
 * follows the last one without a gap (outbox.ts gives new events `place - replayed`).
 */
async function appendToLine(tx: UnitOfWork, teamId: number, endpointId: number, eventRowId: string, orderingKey: string, replay: boolean): Promise<string> {
  const row = await queryOne<{ id: string }>(
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
  return row!.id;
}

/**
 * Event retention (docs/events.md): finished deliveries (with their attempts) and the events they
 * carried are kept for the replay window of 30 days, then deleted in batches by the maintenance
 * worker. Pending deliveries and their events are never deleted.
 */
export async function purgeExpiredEvents(op: UnitOfWork, batch = 10_000): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    op,
    `with old as (
       select id from webhook_deliveries where status in ('succeeded', 'failed') and finished_at < now() - interval '${REPLAY_WINDOW_DAYS} days' limit ?)
     -- their attempts go with them (foreign key on delete cascade)
     delete from webhook_deliveries d using old where d.id = old.id returning d.id`,
    [batch],
  );
  await queryRows(
    op,
    `delete from outbox_events o where o.id in (
       select o2.id from outbox_events o2 where o2.created_at < now() - interval '${REPLAY_WINDOW_DAYS} days'
          and not exists (select 1 from webhook_deliveries d where d.event_id = o2.id) limit ?)`,
    [batch],
  );
  return rows.length;
}
