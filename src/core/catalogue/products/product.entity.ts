import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';
import { Brand } from '../brands/brand.entity.ts';
import { Category } from '../categories/category.entity.ts';
import { ProductInfoTemplate } from '../templates/template.entity.ts';
import { TemplateVersion } from '../templates/template-version.entity.ts';
import { PRODUCTS_CHANGE_TRIGGER } from './product-change-triggers.ts';
import { PRODUCTS_VERSION_TRIGGER } from './product-version.entity.ts';

/**
 * A product of a team's catalogue (spec 2.5, 3.1, 4.5). Media references are file-path IDs of the
 * team's library: the explicit cover, the image and related lists (ordered arrays), and the values
 * of custom image/file fields (`mediaFields`, keyed by template field id). `mediaFileIds` is every
 * id referenced anywhere, kept by the service for search by file name and reverse lookups.
 * `templateFields` holds the other custom values. Soft-deleted rows keep their SKU (spu) reserved.
 */
export const Product = defineEntity({
  name: 'Product',
  tableName: 'products',
  indexes: [
    // ordinary list (updatedAt, id descending) and sync scans ((updatedAt, id) ascending) of live rows
    {
      name: 'products_live_updated',
      expression: 'create index "products_live_updated" on "products" ("team_id", "updated_at", "id") where "deleted_at" is null',
    },
    // the same for roles that see only published products (view_only, usable)
    {
      name: 'products_live_published_updated',
      expression:
        'create index "products_live_published_updated" on "products" ("team_id", "updated_at", "id") where "deleted_at" is null and "status" = \'published\'',
    },
    // brandId filter in list and sync order; the brand deletion guard (live products of a brand)
    {
      name: 'products_live_brand_updated',
      expression: 'create index "products_live_brand_updated" on "products" ("team_id", "brand_id", "updated_at", "id") where "deleted_at" is null',
    },
    // categoryId filter in list and sync order; the category deletion guard (category_id = any(subtree))
    {
      name: 'products_live_category_updated',
      expression: 'create index "products_live_category_updated" on "products" ("team_id", "category_id", "updated_at", "id") where "deleted_at" is null',
    },
    // spec 2.5: the SKU is unique in the library, soft-deleted products included (sku_in_use, also under a race)
    {
      name: 'products_team_spu_unique',
      expression: 'create unique index "products_team_spu_unique" on "products" ("team_id", "spu") where "spu" is not null',
    },
    // search by the library name of any media file: media_file_ids && (ids of matching files)
    {
      name: 'products_media_file_ids_gin',
      expression: 'create index "products_media_file_ids_gin" on "products" using gin ("media_file_ids") where "deleted_at" is null',
    },
    // the bulk template-upgrade preview: live products pinned to one version, by id (products.queries.ts readPinnedProductsPage)
    {
      name: 'products_live_template_version',
      expression: 'create index "products_live_template_version" on "products" ("team_id", "template_version_id", "id") where "deleted_at" is null',
    },
    // search: case-insensitive substring of name or spu (ILIKE '%...%' uses trigram indexes)
    {
      name: 'products_live_name_trgm',
      expression: 'create index "products_live_name_trgm" on "products" using gin ("name" gin_trgm_ops) where "deleted_at" is null',
    },
    {
      name: 'products_live_spu_trgm',
      expression: 'create index "products_live_spu_trgm" on "products" using gin ("spu" gin_trgm_ops) where "deleted_at" is null',
    },
  ],
  // raises product_versions at commit: the memo of exact list totals is keyed by it (product-totals.ts);
  // logs deletions and unpublishes for the sync feed (product-change-triggers.ts)
  triggers: [PRODUCTS_VERSION_TRIGGER, PRODUCTS_CHANGE_TRIGGER],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    name: p.string().length(255).default(''),
    spu: p.string().length(64).nullable(),
    description: p.text().nullable(),
    /** 'draft' or 'published' (spec 3.1). */
    status: p.string().length(16).default('draft'),
    brand: () => p.manyToOne(Brand).nullable(),
    category: () => p.manyToOne(Category).nullable(),
    owner: () => p.manyToOne(Member).nullable(),
    /** Why a draft could not be published as it stands (docs/products.md); null when complete or published. */
    draftReason: p.text().nullable(),
    template: () => p.manyToOne(ProductInfoTemplate).nullable(),
    templateVersion: () => p.manyToOne(TemplateVersion).nullable(),
    templateFields: p.json().defaultRaw(`'{}'`),
    mediaFields: p.json().defaultRaw(`'{}'`),
    coverFileId: p.integer().nullable(),
    imageFileIds: p.array().columnType('int[]').defaultRaw(`'{}'`),
    relatedFileIds: p.array().columnType('int[]').defaultRaw(`'{}'`),
    mediaFileIds: p.array().columnType('int[]').defaultRaw(`'{}'`),
    publishedAt: nullableTimestamp(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
  },
});
