import { Migration } from '@mikro-orm/migrations';

/** Product shares (docs/products.md "Shares"), and which share a download was made through. */
export class Migration20261125170252 extends Migration {
  override name = 'Migration20261125170252';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "product_shares" ("id" serial primary key, "team_id" int not null, "product_id" int not null, "nonce" varchar(32) not null, "token_hash" varchar(64) not null, "password_hash" text null, "file_ids" int[] null, "allow_download" boolean not null, "shows_drafts" boolean not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "actor" text not null, "actor_key_id" int null, "actor_role" varchar(16) null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "product_shares_team_product_index" on "product_shares" ("team_id", "product_id", "id");`);
    this.addSql(`alter table "product_shares" add constraint "product_shares_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "download_records" add "share_id" int null;`);
    this.addSql(
      `alter table "download_records" add constraint "download_records_share_id_foreign" foreign key ("share_id") references "product_shares" ("id") on delete set null;`,
    );

    this.addSql(`alter table "product_shares" add constraint "product_shares_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "product_shares" add constraint "product_shares_product_id_foreign" foreign key ("product_id") references "products" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "download_records" drop constraint "download_records_share_id_foreign";`);

    this.addSql(`drop table if exists "product_shares" cascade;`);

    this.addSql(`alter table "download_records" drop column "share_id";`);
  }
}
