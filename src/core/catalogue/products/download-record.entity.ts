import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { Product } from './product.entity.ts';
import { ProductShare } from './product-share.entity.ts';

/** A download of a product's media (docs/products.md "Downloads"): who, when, which files, how many bytes. */
export const DownloadRecord = defineEntity({
  name: 'DownloadRecord',
  tableName: 'download_records',
  indexes: [
    { name: 'download_records_team_product_index', properties: ['team', 'product', 'id'] },
    { name: 'download_records_team_created_index', properties: ['team', 'createdAt'] },
  ],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    product: () => p.manyToOne(Product),
    /** The share the download was made through; null for a download with an API key. */
    share: () => p.manyToOne(ProductShare).nullable(),
    fileIds: p.array().columnType('int[]'),
    fileCount: p.integer(),
    totalBytes: p.bigint(),
    actor: p.text(),
    actorKeyId: p.integer().nullable(),
    actorRole: p.string().length(16).nullable(),
    requestId: p.string().length(128).nullable(),
    createdAt: dbTimestamp(),
  },
});
