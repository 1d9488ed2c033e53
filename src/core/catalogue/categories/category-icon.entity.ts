import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/**
 * A category icon asset (spec 2.1 "Category iconAssetId"): a small image of one team, stored under
 * STORAGE_DIR and referenced by `categories.icon_asset_id`. It is its own resource, not a
 * library file, so its id is never a file-path ID.
 */
export const CategoryIcon = defineEntity({
  name: 'CategoryIcon',
  tableName: 'category_icons',
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team).index(),
    storageKey: p.string().length(255).unique(),
    mimeType: p.string().length(64),
    byteSize: p.integer(),
    width: p.integer(),
    height: p.integer(),
    createdAt: dbTimestamp(),
  },
});
