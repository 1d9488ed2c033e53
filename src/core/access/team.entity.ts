import { defineEntity, p } from '@mikro-orm/core';
import { dbTimestamp } from '../platform/timestamps.ts';

/** A team owns one library; every team-owned row carries its id. */
export const Team = defineEntity({
  name: 'Team',
  tableName: 'teams',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.text(),
    subscriptionsEnabled: p.boolean().default(false),
    createdAt: dbTimestamp(),
  },
});
