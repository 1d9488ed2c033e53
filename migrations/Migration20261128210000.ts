import { Migration } from '@mikro-orm/migrations';

/**
 * The live log (docs/graphql.md "Live updates"): every committed library event, approval callback
 * and product change of a team, written in the change's transaction, for GraphQL subscriptions.
 * A row is written without a position; the live relay of an API process gives committed rows their
 * positions in one serialized step (the counter row's lock), so a reader that has seen position P
 * has already been able to see every smaller position: no row commits "behind" a reader.
 */
export class Migration20261128210000 extends Migration {
  override name = 'Migration20261128210000';

  override up(): void | Promise<void> {
    this.addSql(`create table "live_events" (
      "id" bigserial primary key,
      "team_id" int not null references "teams" ("id") on delete cascade,
      "position" bigint null,
      "stream" varchar(16) not null,
      "event_type" varchar(64) not null,
      "subject_id" text not null,
      "folder_ids" int[] not null default '{}',
      "brand_id" int null,
      "category_id" int null,
      "drafts_only" boolean not null default false,
      "body" json not null,
      "created_at" timestamptz not null default clock_timestamp()
    );`);
    this.addSql(`create index "live_events_unpositioned_index" on "live_events" ("id") where "position" is null;`);
    this.addSql(`create unique index "live_events_team_position_index" on "live_events" ("team_id", "position") where "position" is not null;`);
    this.addSql(`create index "live_events_position_index" on "live_events" ("position") where "position" is not null;`);
    this.addSql(`create table "live_positions" ("id" int primary key check ("id" = 1), "last" bigint not null, "purged_below" bigint not null);`);
    this.addSql(`insert into "live_positions" ("id", "last", "purged_below") values (1, 0, 1);`);
    this.addSql(`create table "live_team_heads" ("team_id" int primary key references "teams" ("id") on delete cascade, "last_position" bigint not null);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "live_team_heads";`);
    this.addSql(`drop table if exists "live_positions";`);
    this.addSql(`drop table if exists "live_events";`);
  }
}
