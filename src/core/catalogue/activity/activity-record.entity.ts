import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/**
 * One catalogue write of a team (docs/products.md "Activity records"): which resource, what was
 * done, by whom and in which request. Written in the write's transaction; kept for the retention
 * period (ACTIVITY_RETENTION_DAYS, 400 by default).
 */
export const ActivityRecord = defineEntity({
  name: 'ActivityRecord',
  tableName: 'activity_records',
  indexes: [
    { name: 'activity_records_team_created_index', properties: ['team', 'createdAt', 'id'] },
    { name: 'activity_records_team_resource_index', properties: ['team', 'resourceType', 'resourceId'] },
  ],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    /** `brand`, `category`, `template`, `product` or `activity_records`. */
    resourceType: p.string().length(32),
    resourceId: p.string().length(128),
    action: p.string().length(32),
    actor: p.text(),
    actorKeyId: p.integer().nullable(),
    actorRole: p.string().length(16).nullable(),
    requestId: p.string().length(128).nullable(),
    createdAt: dbTimestamp(),
  },
});
