import { Migration } from '@mikro-orm/migrations';

/** Download records (docs/products.md "Downloads"): who downloaded which files of a product, and when. */
export class Migration20261125060447 extends Migration {
  override name = 'Migration20261125060447';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "download_records" ("id" bigserial primary key, "team_id" int not null, "product_id" int not null, "file_ids" int[] not null, "file_count" int not null, "total_bytes" bigint not null, "actor" text not null, "actor_key_id" int null, "actor_role" varchar(16) null, "request_id" varchar(128) null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "download_records_team_product_index" on "download_records" ("team_id", "product_id", "id");`);
    this.addSql(`create index "download_records_team_created_index" on "download_records" ("team_id", "created_at");`);

    this.addSql(`alter table "download_records" add constraint "download_records_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "download_records" add constraint "download_records_product_id_foreign" foreign key ("product_id") references "products" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "download_records" cascade;`);
  }
}
