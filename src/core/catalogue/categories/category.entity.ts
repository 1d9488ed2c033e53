import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';
import { Brand } from '../brands/brand.entity.ts';
import { CATEGORIES_CHANGE_TRIGGER } from '../products/product-change-triggers.ts';
import { CategoryIcon } from './category-icon.entity.ts';

/**
 * A node of a brand's category tree (spec 2.3). `pathKey` holds the names from the root
 * ("/Shoes/Running") and `depth` the level (1 = root), both rewritten for a whole subtree on
 * rename or move; `sortOrder` is the zero-based position among live siblings.
 */
export const Category = defineEntity({
  name: 'Category',
  tableName: 'categories',
  indexes: [
    // listCategorys order (spec 4.3: brandId, parentId nulls first, sortOrder, id) and sibling
    // lookups by (brand, parent); live rows only, so deleted subtrees do not bloat it
    {
      name: 'categories_live_tree_order',
      expression:
        'create index "categories_live_tree_order" on "categories" ("team_id", "brand_id", "parent_id" nulls first, "sort_order", "id") where "deleted_at" is null',
    },
    // children of many parents at once (GraphQL Category.children, subtree walks of moves and deletes)
    {
      name: 'categories_live_children',
      expression: 'create index "categories_live_children" on "categories" ("parent_id", "sort_order", "id") where "deleted_at" is null',
    },
    // sibling names are unique among live nodes only (spec 2.3); roots share the parent "0"
    {
      name: 'categories_live_sibling_name_unique',
      expression:
        'create unique index "categories_live_sibling_name_unique" on "categories" ("team_id", "brand_id", coalesce("parent_id", 0), "name") where "deleted_at" is null',
    },
  ],
  // the products sync feed logs products whose category moved or was renamed (product-change-triggers.ts)
  triggers: [CATEGORIES_CHANGE_TRIGGER],
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
    iconAsset: () => p.manyToOne(CategoryIcon).nullable(),
    sortOrder: p.integer().default(0),
    isEnabled: p.boolean().default(true),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
  },
});
