import { randomUUID } from 'node:crypto';
import { hasPermission } from '../access/roles.ts';
import { TEST_EVENT_TYPE } from '../outbox/event-types.ts';
import { eventsSentTo, insertEvent, purgeOldEventsWithoutDeliveries } from '../outbox/outbox.queries.ts';
import { actorObject } from '../outbox/outbox.ts';
import { actorLabel, type CallerScope, type Ctx, requireKey, type TeamScope, type UnitOfWork } from '../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../platform/errors.ts';
import { isUuid } from '../platform/ids.ts';
import { normalizePage, type Page, paginationOf } from '../platform/pagination.ts';
import { checkTimestamp } from '../platform/timestamps.ts';
import { inTransaction } from '../platform/tx.ts';
import { appendToLine, countDeliveries, endpointIdOfDelivery, listAttempts, listDeliveries, purgeFinishedDeliveries } from './deliveries-admin.queries.ts';
import { newSigningSecret } from './signing-secret.ts';
import { enableEndpoint, findEndpoint, listEndpoints, rotateEndpointSecret } from './subscriptions.queries.ts';
import { type AttemptView, DELIVERY_STATUSES, type DeliveryView, type EndpointView } from './webhook-values.ts';

export { TEST_EVENT_TYPE };

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

/** Replays go this far back (GitHub keeps 3 days; docs/events.md). */
export const REPLAY_WINDOW_DAYS = 30;
/** At most this many events in one replay. */
export const REPLAY_MAX_EVENTS = 10_000;
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
    return listEndpoints(scope, scope.keyId);
  }

  async endpoint(scope: WebhookScope, endpointId: number): Promise<EndpointView> {
    const row = await findEndpoint(scope, scope.keyId, endpointId);
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
    const which = { status: filter.status ?? null, from, to };
    const [count, items] = await Promise.all([
      countDeliveries(scope, endpointId, which),
      listDeliveries(scope, endpointId, which, page.pageSize, (page.page - 1) * page.pageSize),
    ]);
    return { items, pagination: paginationOf(page, count) };
  }

  /** Every attempt of one delivery, in order. */
  async listAttempts(scope: WebhookScope, deliveryId: string): Promise<AttemptView[]> {
    const endpointId = await endpointIdOfDelivery(scope, deliveryId);
    if (endpointId === null) throw notFound('Delivery');
    await this.endpoint(scope, endpointId);
    return listAttempts(scope, deliveryId);
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
      const events = await eventsSentTo(tx, endpointId, { eventId: input.eventId ?? null, from, to }, REPLAY_MAX_EVENTS + 1);
      if (input.eventId !== undefined && events.length === 0) throw notFound('Event');
      if (events.length > REPLAY_MAX_EVENTS)
        throw new DomainError('payload_too_large', `A replay may send at most ${REPLAY_MAX_EVENTS} events; narrow the range`);
      for (const event of events) await appendToLine(tx, endpointId, event.id, event.orderingKey, true);
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
      const eventRowId = await insertEvent(tx, {
        eventId,
        eventType: TEST_EVENT_TYPE,
        orderingKey,
        body: JSON.stringify(body),
        actor: actorLabel(scope.actor),
      });
      const deliveryId = await appendToLine(tx, endpointId, eventRowId, orderingKey, false);
      return { eventId, deliveryId };
    });
  }

  /** A new secret; the previous one keeps signing for 24 hours so receivers can switch without losing a delivery. */
  async rotateSecret(scope: WebhookScope, endpointId: number): Promise<EndpointView> {
    await inTransaction(scope, async (tx) => {
      await this.endpoint({ ...scope, em: tx.em }, endpointId);
      await rotateEndpointSecret(tx, endpointId, newSigningSecret());
    });
    return this.endpoint(scope, endpointId);
  }

  /** Re-enables a disabled endpoint: its pending deliveries resume, and its run of failures starts afresh. */
  async enable(scope: WebhookScope, endpointId: number): Promise<EndpointView> {
    await inTransaction(scope, async (tx) => {
      await this.endpoint({ ...scope, em: tx.em }, endpointId);
      await enableEndpoint(tx, endpointId);
    });
    return this.endpoint(scope, endpointId);
  }
}

/**
 * Event retention (docs/events.md): finished deliveries (with their attempts) and the events they
 * carried are kept for the replay window of 30 days, then deleted in batches by the maintenance
 * worker. Pending deliveries and their events are never deleted.
 */
export async function purgeExpiredEvents(op: UnitOfWork, batch = 10_000): Promise<number> {
  const purged = await purgeFinishedDeliveries(op, REPLAY_WINDOW_DAYS, batch);
  await purgeOldEventsWithoutDeliveries(op, REPLAY_WINDOW_DAYS, batch);
  return purged;
}
