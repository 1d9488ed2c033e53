import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';

/** A brand of a team's catalogue (spec 2.2). Soft-deleted rows keep their id and code. */
export const Brand = defineEntity({
  name: 'Brand',
  tableName: 'brands',
  uniques: [{ properties: ['team', 'code'] }],
  indexes: [{ properties: ['team', 'sortOrder', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    name: p.string().length(128),
    code: p.string().length(32),
    description: p.string().length(512).nullable(),
    website: p.string().length(512).nullable(),
    logoUrl: p.string().length(512).nullable(),
    sortOrder: p.integer().default(0),
    isEnabled: p.boolean().default(true),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
  },
});
