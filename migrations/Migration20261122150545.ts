import { Migration } from '@mikro-orm/migrations';

export class Migration20261122150545 extends Migration {
  override name = 'Migration20261122150545';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "categories" ("id" serial primary key, "team_id" int not null, "brand_id" int not null, "parent_id" int null, "name" varchar(64) not null, "path_key" text not null, "depth" int not null, "description" text null, "icon_emoji" varchar(16) null, "icon_asset_id" int null, "sort_order" int not null default 0, "is_enabled" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null);`,
    );
    this.addSql(
      `create index "categories_team_id_brand_id_parent_id_sort_order_id_index" on "categories" ("team_id", "brand_id", "parent_id", "sort_order", "id");`,
    );
    this.addSql(
      `create unique index "categories_live_sibling_name_unique" on "categories" ("team_id", "brand_id", coalesce("parent_id", 0), "name") where "deleted_at" is null;`,
    );

    this.addSql(`alter table "categories" add constraint "categories_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "categories" add constraint "categories_brand_id_foreign" foreign key ("brand_id") references "brands" ("id");`);
    this.addSql(
      `alter table "categories" add constraint "categories_parent_id_foreign" foreign key ("parent_id") references "categories" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "categories" drop constraint "categories_parent_id_foreign";`);

    this.addSql(`drop table if exists "categories" cascade;`);
  }
}
