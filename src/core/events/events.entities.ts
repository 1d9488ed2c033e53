import { defineEntity, p } from '@mikro-orm/core';
import { ApiKey } from '../access/api-key.entity.ts';
import { Team } from '../access/team.entity.ts';
import { LibraryFolder } from '../assets/folders/folder.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';

/**
 * Where a key's callbacks go (docs/events.md): one per team, subscribing key and callback URL.
 * It holds the signing secret (Standard Webhooks `whsec_...`), so every event type and folder a
 * key subscribes at one URL is verified with one secret; during a rotation the previous secret
 * also signs until `previousSecretExpiresAt`. A disabled endpoint keeps its pending deliveries
 * until it is enabled again.
 */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  uniques: [{ name: 'webhook_endpoints_team_key_url_unique', properties: ['team', 'apiKey', 'url'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    apiKey: () => p.manyToOne(ApiKey),
    url: p.string().length(2048),
    secret: p.text(),
    previousSecret: p.text().nullable(),
    previousSecretExpiresAt: nullableTimestamp(),
    /** `active` or `disabled`. */
    state: p.string().length(16).default('active'),
    disabledReason: p.text().nullable(),
    disabledAt: nullableTimestamp(),
    /** Start of the current run of failed deliveries; null after a success. Five days of it disables the endpoint. */
    failingSince: nullableTimestamp(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
  },
});

/**
 * One subscription of an endpoint (spec 4.7, 4.8): `kind` `folder` (6.1, with the folder whose
 * subtree it covers), `material` (6.2, one event type) or `approval` (6.3).
 */
export const EventSubscription = defineEntity({
  name: 'EventSubscription',
  tableName: 'event_subscriptions',
  indexes: [
    {
      name: 'event_subscriptions_endpoint_type_folder_unique',
      expression:
        'create unique index "event_subscriptions_endpoint_type_folder_unique" on "event_subscriptions" ("endpoint_id", "event_type", coalesce("folder_id", 0))',
    },
    { name: 'event_subscriptions_team_kind_index', properties: ['team', 'kind', 'eventType'] },
    { name: 'event_subscriptions_folder_index', properties: ['folder'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    kind: p.string().length(16),
    eventType: p.string().length(64),
    // a folder subscription goes with its folder when the recycle bin purges it (never left folderless)
    folder: () => p.manyToOne(LibraryFolder).nullable().deleteRule('cascade'),
    createdAt: dbTimestamp(),
  },
});

/**
 * The outbox (DESIGN.md Events): one row per event, written in the transaction of the change that
 * caused it, with the body every receiver gets (less its per-line `sequence`). The source of truth
 * for delivery: Redis may be lost without losing an event.
 */
export const OutboxEvent = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_events',
  indexes: [{ name: 'outbox_events_team_created_index', properties: ['team', 'createdAt'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    eventId: p.uuid().unique(),
    eventType: p.string().length(64),
    orderingKey: p.text(),
    /** json, not jsonb: the body keeps the key order it was built with. */
    body: p.json().columnType('json'),
    actor: p.text(),
    createdAt: dbTimestamp(),
  },
});

/**
 * One event for one endpoint (docs/events.md): its place (`sequence`) in the endpoint's line for
 * the event's ordering key, and its state. Only the head of a line (`ready`) is sent, so a retry
 * holds back later events of the same key and nothing else.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  uniques: [{ name: 'webhook_deliveries_line_sequence_unique', properties: ['endpoint', 'orderingKey', 'sequence'] }],
  indexes: [
    {
      name: 'webhook_deliveries_due_index',
      expression: `create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending' and "ready"`,
    },
    {
      name: 'webhook_deliveries_lease_index',
      expression: `create index "webhook_deliveries_lease_index" on "webhook_deliveries" ("lease_until") where "status" = 'delivering'`,
    },
    {
      name: 'webhook_deliveries_line_pending_index',
      expression: `create index "webhook_deliveries_line_pending_index" on "webhook_deliveries" ("endpoint_id", "ordering_key", "sequence") where "status" = 'pending'`,
    },
    { name: 'webhook_deliveries_endpoint_created_index', properties: ['endpoint', 'createdAt'] },
    { name: 'webhook_deliveries_event_index', properties: ['event'] },
  ],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    event: () => p.manyToOne(OutboxEvent),
    orderingKey: p.text(),
    sequence: p.bigint(),
    /** The sequence the body carries when it is not `sequence`: a replay repeats the event's first sequence. */
    bodySequence: p.bigint().nullable(),
    /** `pending`, `delivering`, `succeeded` or `failed`. */
    status: p.string().length(16).default('pending'),
    ready: p.boolean(),
    attempts: p.integer().default(0),
    nextAttemptAt: dbTimestamp(),
    leaseUntil: nullableTimestamp(),
    queuedAt: nullableTimestamp(),
    lastStatus: p.integer().nullable(),
    lastError: p.text().nullable(),
    createdAt: dbTimestamp(),
    finishedAt: nullableTimestamp(),
  },
});

/**
 * The counter of one endpoint's line for one ordering key: the last place given, how many of them
 * are unfinished, and how many were replays (a new event's body sequence is last place - replayed).
 */
export const WebhookDeliveryLine = defineEntity({
  name: 'WebhookDeliveryLine',
  tableName: 'webhook_delivery_lines',
  properties: {
    endpoint: () => p.manyToOne(WebhookEndpoint).primary().deleteRule('cascade'),
    orderingKey: p.text().primary(),
    team: () => p.manyToOne(Team),
    lastSequence: p.bigint(),
    unfinished: p.integer(),
    replayed: p.bigint().default(0),
  },
});

/** Every attempt of a delivery: time, status, duration, error and the first 1 KiB of the answer. */
export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  uniques: [{ name: 'webhook_attempts_delivery_attempt_unique', properties: ['delivery', 'attempt'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    delivery: () => p.manyToOne(WebhookDelivery).deleteRule('cascade'),
    attempt: p.integer(),
    startedAt: p.datetime().columnType('timestamptz'),
    durationMs: p.integer(),
    statusCode: p.integer().nullable(),
    error: p.text().nullable(),
    responseExcerpt: p.text().nullable(),
  },
});
