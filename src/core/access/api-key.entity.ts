import { defineEntity, p } from '@mikro-orm/core';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';
import { Team } from './team.entity.ts';

/** An API key of a team. Only the SHA-256 of the key is stored; the key itself is shown once. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  // role changes are logged for the products sync feed (api-key-role-change.entity.ts) by a trigger
  // its owner declares (catalogue/products/product-change-triggers.ts)
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team).index(),
    keyHash: p.string().length(64).unique(),
    role: p.string().length(16).default('view_only'),
    active: p.boolean().default(true),
    expiresAt: nullableTimestamp(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
  },
});
