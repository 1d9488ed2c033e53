import { Migration } from '@mikro-orm/migrations';

/** Uploads over HTTP in progress (src/core/assets/uploads/upload.entity.ts; docs/library.md "Uploads"). */
export class Migration20261128210310 extends Migration {
  override name = 'Migration20261128210310';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_uploads" ("id" uuid not null, "team_id" int not null, "user_id" int null, "byte_length" bigint not null, "byte_offset" bigint not null default 0, "parts" jsonb not null default '[]', "placement" jsonb not null, "metadata_header" text null, "status" varchar(16) not null default 'receiving', "result" jsonb null, "expires_at" timestamptz not null, "lease_token" uuid null, "lease_until" timestamptz null, "created_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "library_uploads_expires_at_index" on "library_uploads" ("expires_at");`);
    this.addSql(`create index "library_uploads_team_id_status_index" on "library_uploads" ("team_id", "status");`);

    this.addSql(`alter table "library_uploads" add constraint "library_uploads_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "library_uploads" add constraint "library_uploads_user_id_foreign" foreign key ("user_id") references "members" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "library_uploads" cascade;`);
  }
}
