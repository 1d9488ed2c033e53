import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { OutboxEvent } from '../outbox/outbox-event.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';
import { WebhookEndpoint } from './webhook-endpoint.entity.ts';

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
