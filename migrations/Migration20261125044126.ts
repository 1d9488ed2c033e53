import { Migration } from '@mikro-orm/migrations';

/** Product history (docs/products.md): one row per product change, written with the change. */
export class Migration20261125044126 extends Migration {
  override name = 'Migration20261125044126';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "product_history" ("id" bigserial primary key, "team_id" int not null, "product_id" int not null, "action" varchar(16) not null, "actor" text not null, "actor_key_id" int null, "actor_role" varchar(16) null, "request_id" varchar(128) null, "changes" jsonb not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "product_history_product_index" on "product_history" ("team_id", "product_id", "id");`);

    this.addSql(`alter table "product_history" add constraint "product_history_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "product_history" add constraint "product_history_product_id_foreign" foreign key ("product_id") references "products" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "product_history" cascade;`);
  }
}
