import { defineEntity, p } from '@mikro-orm/core';
import { dbTimestamp } from '../platform/timestamps.ts';
import { Team } from './team.entity.ts';

/** A person of a team: product owner, asset creator, approver. */
export const Member = defineEntity({
  name: 'Member',
  tableName: 'members',
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team).index(),
    name: p.text(),
    createdAt: dbTimestamp(),
  },
});
