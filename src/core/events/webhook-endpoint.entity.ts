import { defineEntity, p } from '@mikro-orm/core';
import { ApiKey } from '../access/api-key.entity.ts';
import { Team } from '../access/team.entity.ts';
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
