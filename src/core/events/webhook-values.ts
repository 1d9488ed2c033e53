import type { EventType, SubscriptionKind } from '../outbox/event-types.ts';

/**
 * The closed sets of values and the views of the integrator tools (docs/events.md), written once:
 * the queries modules map rows to them, the services return them, GraphQL builds its enums from them.
 */

/** Where a delivery stands: waiting or retrying, being sent, done, or given up. */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An endpoint's state as its owner reads it (subscriptions.queries.ts ENDPOINT_STATE). */
export const ENDPOINT_STATES = ['active', 'unsubscribed', 'disabled'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

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
