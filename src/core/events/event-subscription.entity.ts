import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { LibraryFolder } from '../assets/folders/folder.entity.ts';
import { dbTimestamp } from '../platform/timestamps.ts';
import { WebhookEndpoint } from './webhook-endpoint.entity.ts';

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
