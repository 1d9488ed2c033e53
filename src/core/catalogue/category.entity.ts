import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';
import { Brand } from './brand.entity.ts';

/**
 * A node of a brand's category tree (spec 2.3). `pathKey` holds the names from the root
 * ("/Shoes/Running") and `depth` the level (1 = root), both rewritten for a whole subtree on
 * rename or move; `sortOrder` is the zero-based position among live siblings.
 */
export const Category = defineEntity({
  name: 'Category',
  tableName: 'categories',
  indexes: [
    { properties: ['team', 'brand', 'parent', 'sortOrder', 'id'] },
    // sibling names are unique among live nodes only (spec 2.3); roots share the parent "0"
    {
      name: 'categories_live_sibling_name_unique',
      expression:
        'create unique index "categories_live_sibling_name_unique" on "categories" ("team_id", "brand_id", coalesce("parent_id", 0), "name") where "deleted_at" is null',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    brand: () => p.manyToOne(Brand),
    parent: () => p.manyToOne(Category).nullable(),
    name: p.string().length(64),
    pathKey: p.text(),
    depth: p.integer(),
    description: p.text().nullable(),
    iconEmoji: p.string().length(16).nullable(),
    iconAssetId: p.integer().nullable(),
    sortOrder: p.integer().default(0),
    isEnabled: p.boolean().default(true),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
  },
});
