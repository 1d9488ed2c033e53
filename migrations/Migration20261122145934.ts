import { Migration } from '@mikro-orm/migrations';

export class Migration20261122145934 extends Migration {
  override name = 'Migration20261122145934';

  override up(): void | Promise<void> {
    this.addSql(`create table "settings" ("name" varchar(64) not null, "value" text not null, primary key ("name"));`);

    this.addSql(
      `create table "teams" ("id" serial primary key, "name" text not null, "subscriptions_enabled" boolean not null default false, "created_at" timestamptz not null default now());`,
    );

    this.addSql(
      `create table "members" ("id" serial primary key, "team_id" int not null, "name" text not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "members_team_id_index" on "members" ("team_id");`);

    this.addSql(
      `create table "brands" ("id" serial primary key, "team_id" int not null, "name" varchar(128) not null, "code" varchar(32) not null, "description" varchar(512) null, "website" varchar(512) null, "logo_url" varchar(512) null, "sort_order" int not null default 0, "is_enabled" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null);`,
    );
    this.addSql(`create index "brands_team_id_sort_order_id_index" on "brands" ("team_id", "sort_order", "id");`);
    this.addSql(`alter table "brands" add constraint "brands_team_id_code_unique" unique ("team_id", "code");`);

    this.addSql(
      `create table "api_keys" ("id" serial primary key, "team_id" int not null, "key_hash" varchar(64) not null, "role" varchar(16) not null default 'view_only', "active" boolean not null default true, "expires_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "api_keys_team_id_index" on "api_keys" ("team_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(
      `create table "idempotency_records" ("id" bigserial primary key, "team_id" int not null, "api_key_id" int not null, "operation" varchar(64) not null, "idempotency_key" varchar(255) not null, "request_hash" varchar(64) not null, "response_status" int not null, "response_body" jsonb not null, "etag" varchar(128) null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "idempotency_records_created_at_index" on "idempotency_records" ("created_at");`);
    this.addSql(
      `alter table "idempotency_records" add constraint "idempotency_records_team_id_api_key_id_operation__f3ecd_unique" unique ("team_id", "api_key_id", "operation", "idempotency_key");`,
    );

    this.addSql(`alter table "members" add constraint "members_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);

    this.addSql(`alter table "brands" add constraint "brands_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);

    this.addSql(`alter table "idempotency_records" add constraint "idempotency_records_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "idempotency_records" add constraint "idempotency_records_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id");`,
    );
  }
}
