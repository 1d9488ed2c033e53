import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { WebhookEndpoint } from './webhook-endpoint.entity.ts';

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
