import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { dbTimestamp } from '../platform/timestamps.ts';

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
