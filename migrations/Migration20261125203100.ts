import { Migration } from '@mikro-orm/migrations';

/** Pending inbound (docs/library.md "Pending inbound"): imports held until they are confirmed or discarded. */
export class Migration20261125203100 extends Migration {
  override name = 'Migration20261125203100';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_pending_inbounds" ("id" serial primary key, "team_id" int not null, "folder_path" text not null, "name" varchar(255) not null, "extension" varchar(32) null, "tags" text[] not null default '{}', "description" text null, "score" smallint null, "link" varchar(2048) null, "user_id" int null, "sha256" varchar(64) not null, "storage_key" varchar(255) not null, "mime_type" varchar(255) not null, "byte_size" bigint not null, "width" int null, "height" int null, "duration_ms" bigint null, "palette" jsonb not null default '[]', "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "library_pending_inbounds_team_id_id_index" on "library_pending_inbounds" ("team_id", "id");`);

    this.addSql(
      `alter table "library_pending_inbounds" add constraint "library_pending_inbounds_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_pending_inbounds" add constraint "library_pending_inbounds_user_id_foreign" foreign key ("user_id") references "members" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "library_pending_inbounds" cascade;`);
  }
}
