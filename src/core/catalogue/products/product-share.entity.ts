import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';
import { Product } from './product.entity.ts';

/**
 * A share of a product (docs/products.md "Shares"): a link for people without an API key. The
 * link's token is derived from `nonce` with the service's secret and only its SHA-256 is kept,
 * so the database alone never yields a working link.
 */
export const ProductShare = defineEntity({
  name: 'ProductShare',
  tableName: 'product_shares',
  indexes: [{ name: 'product_shares_team_product_index', properties: ['team', 'product', 'id'] }],
  uniques: [{ name: 'product_shares_token_hash_unique', properties: ['tokenHash'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    product: () => p.manyToOne(Product),
    nonce: p.string().length(32),
    tokenHash: p.string().length(64),
    passwordHash: p.text().nullable(),
    /** The file-path IDs the share shows; null: every media file of the product. */
    fileIds: p.array().columnType('int[]').nullable(),
    allowDownload: p.boolean(),
    /** Whether the share may show the product while it is a draft (made by a role that sees drafts). */
    showsDrafts: p.boolean(),
    expiresAt: p.datetime().columnType('timestamptz'),
    revokedAt: nullableTimestamp(),
    actor: p.text(),
    actorKeyId: p.integer().nullable(),
    actorRole: p.string().length(16).nullable(),
    createdAt: dbTimestamp(),
  },
});
