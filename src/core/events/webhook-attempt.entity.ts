import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { WebhookDelivery } from './webhook-delivery.entity.ts';

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
