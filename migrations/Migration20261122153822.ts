import { Migration } from '@mikro-orm/migrations';

export class Migration20261122153822 extends Migration {
  override name = 'Migration20261122153822';

  override up(): void | Promise<void> {
    // trigram indexes below serve product search (ILIKE '%term%' on name and spu)
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(
      `create table "products" ("id" serial primary key, "team_id" int not null, "name" varchar(255) not null default '', "spu" varchar(64) null, "description" text null, "status" varchar(16) not null default 'draft', "brand_id" int null, "category_id" int null, "owner_id" int null, "draft_reason" text null, "template_id" varchar(128) null, "template_version_id" varchar(128) null, "template_fields" jsonb not null default '{}', "media_fields" jsonb not null default '{}', "cover_file_id" int null, "image_file_ids" int[] not null default '{}', "related_file_ids" int[] not null default '{}', "media_file_ids" int[] not null default '{}', "published_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null);`,
    );
    this.addSql(`create index "products_live_updated" on "products" ("team_id", "updated_at", "id") where "deleted_at" is null;`);
    this.addSql(
      `create index "products_live_published_updated" on "products" ("team_id", "updated_at", "id") where "deleted_at" is null and "status" = 'published';`,
    );
    this.addSql(`create index "products_live_brand_updated" on "products" ("team_id", "brand_id", "updated_at", "id") where "deleted_at" is null;`);
    this.addSql(`create index "products_live_category_updated" on "products" ("team_id", "category_id", "updated_at", "id") where "deleted_at" is null;`);
    this.addSql(`create unique index "products_team_spu_unique" on "products" ("team_id", "spu") where "spu" is not null;`);
    this.addSql(`create index "products_media_file_ids_gin" on "products" using gin ("media_file_ids") where "deleted_at" is null;`);
    this.addSql(`create index "products_live_name_trgm" on "products" using gin ("name" gin_trgm_ops) where "deleted_at" is null;`);
    this.addSql(`create index "products_live_spu_trgm" on "products" using gin ("spu" gin_trgm_ops) where "deleted_at" is null;`);

    this.addSql(`alter table "products" add constraint "products_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "products" add constraint "products_brand_id_foreign" foreign key ("brand_id") references "brands" ("id") on delete set null;`);
    this.addSql(
      `alter table "products" add constraint "products_category_id_foreign" foreign key ("category_id") references "categories" ("id") on delete set null;`,
    );
    this.addSql(`alter table "products" add constraint "products_owner_id_foreign" foreign key ("owner_id") references "members" ("id") on delete set null;`);
    this.addSql(
      `alter table "products" add constraint "products_template_id_foreign" foreign key ("template_id") references "product_info_templates" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "products" add constraint "products_template_version_id_foreign" foreign key ("template_version_id") references "template_versions" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "products" cascade;`);
  }
}
