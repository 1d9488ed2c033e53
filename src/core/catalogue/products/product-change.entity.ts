import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { Product } from './product.entity.ts';

/**
 * What the sync feed (docs/products.md "Sync feed") reports besides a product's own updates: the
 * product was deleted, unpublished, or changed through a linked entity (a media file, its version
 * line, its category's path). Written by triggers (product-change-triggers.ts) in the transaction
 * of the change, whoever makes it; read in (at, productId, kind) order like the sync scan's
 * (updatedAt, id). A product's own `updatedAt` is not touched: a client of the plain spec sees
 * exactly what it saw before.
 */
export const ProductChange = defineEntity({
  name: 'ProductChange',
  tableName: 'product_changes',
  indexes: [
    // the feed's keyset order within a team; also the key that makes a repeated change in one transaction one row
    {
      name: 'product_changes_feed_order',
      expression: 'create unique index "product_changes_feed_order" on "product_changes" ("team_id", "at", "product_id", "kind")',
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    product: () => p.manyToOne(Product),
    /** 1 deleted, 2 unpublished, 3 linked (PRODUCT_CHANGE_KINDS). */
    kind: p.smallint(),
    /** For a deletion: whether the product was published (so callers who see published products only are told). */
    wasPublished: p.boolean().default(false),
    /** The transaction's time: the product's updatedAt for a deletion or unpublish, now() for a linked change. */
    at: p.datetime().columnType('timestamptz'),
  },
});
