import { Migration } from '@mikro-orm/migrations';

/** Activity records (docs/products.md): the team-wide log of catalogue writes. */
export class Migration20261125045934 extends Migration {
  override name = 'Migration20261125045934';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "activity_records" ("id" bigserial primary key, "team_id" int not null, "resource_type" varchar(32) not null, "resource_id" varchar(128) not null, "action" varchar(32) not null, "actor" text not null, "actor_key_id" int null, "actor_role" varchar(16) null, "request_id" varchar(128) null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "activity_records_team_created_index" on "activity_records" ("team_id", "created_at", "id");`);
    this.addSql(`create index "activity_records_team_resource_index" on "activity_records" ("team_id", "resource_type", "resource_id");`);

    this.addSql(`alter table "activity_records" add constraint "activity_records_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "activity_records" cascade;`);
  }
}
