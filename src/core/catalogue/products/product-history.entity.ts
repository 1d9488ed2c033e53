import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { Product } from './product.entity.ts';

/**
 * One change of a product (docs/products.md "History"): what happened, who did it (the caller's
 * label, key id and role) and the changed fields with their values before and after. Written in
 * the transaction of the change, so a rolled-back write leaves no record.
 */
export const ProductHistoryEntry = defineEntity({
  name: 'ProductHistoryEntry',
  tableName: 'product_history',
  indexes: [{ name: 'product_history_product_index', properties: ['team', 'product', 'id'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    product: () => p.manyToOne(Product),
    /** `created`, `updated`, `published`, `unpublished`, `deleted` or `template_upgraded`. */
    action: p.string().length(32),
    actor: p.text(),
    actorKeyId: p.integer().nullable(),
    actorRole: p.string().length(16).nullable(),
    requestId: p.string().length(128).nullable(),
    changes: p.json().columnType('jsonb'),
    createdAt: dbTimestamp(),
  },
});
