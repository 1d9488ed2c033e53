import { Migration } from '@mikro-orm/migrations';

export class Migration20261122150824 extends Migration {
  override name = 'Migration20261122150824';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "category_icons" ("id" serial primary key, "team_id" int not null, "storage_key" varchar(255) not null, "mime_type" varchar(64) not null, "byte_size" int not null, "width" int not null, "height" int not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "category_icons_team_id_index" on "category_icons" ("team_id");`);
    this.addSql(`alter table "category_icons" add constraint "category_icons_storage_key_unique" unique ("storage_key");`);

    this.addSql(`drop index "categories_team_id_brand_id_parent_id_sort_order_id_index";`);
    this.addSql(
      `alter table "categories" add constraint "categories_icon_asset_id_foreign" foreign key ("icon_asset_id") references "category_icons" ("id") on delete set null;`,
    );
    this.addSql(
      `create index "categories_live_tree_order" on "categories" ("team_id", "brand_id", "parent_id" nulls first, "sort_order", "id") where "deleted_at" is null;`,
    );
    this.addSql(`create index "categories_live_children" on "categories" ("parent_id", "sort_order", "id") where "deleted_at" is null;`);

    this.addSql(`alter table "category_icons" add constraint "category_icons_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "categories" drop constraint "categories_icon_asset_id_foreign";`);

    this.addSql(`drop table if exists "category_icons" cascade;`);

    this.addSql(`drop index "categories_live_tree_order";`);
    this.addSql(`drop index "categories_live_children";`);
    this.addSql(
      `create index "categories_team_id_brand_id_parent_id_sort_order_id_index" on "categories" ("team_id", "brand_id", "parent_id", "sort_order", "id");`,
    );
  }
}
