import { Migration } from '@mikro-orm/migrations';

/**
 * Event subscriptions and webhook delivery (docs/events.md): endpoints with their signing secrets,
 * subscriptions, the outbox, one delivery per event and endpoint in per-key lines, and attempts.
 */
export class Migration20261125033038 extends Migration {
  override name = 'Migration20261125033038';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "outbox_events" ("id" bigserial primary key, "team_id" int not null, "event_id" uuid not null, "event_type" varchar(64) not null, "ordering_key" text not null, "body" json not null, "actor" text not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "outbox_events_team_created_index" on "outbox_events" ("team_id", "created_at");`);

    this.addSql(
      `create table "webhook_endpoints" ("id" serial primary key, "team_id" int not null, "api_key_id" int not null, "url" varchar(2048) not null, "secret" text not null, "previous_secret" text null, "previous_secret_expires_at" timestamptz null, "state" varchar(16) not null default 'active', "disabled_reason" text null, "disabled_at" timestamptz null, "failing_since" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_team_key_url_unique" unique ("team_id", "api_key_id", "url");`);

    this.addSql(
      `create table "webhook_delivery_lines" ("endpoint_id" int not null, "ordering_key" text not null, "team_id" int not null, "last_sequence" bigint not null, "unfinished" int not null, primary key ("endpoint_id", "ordering_key"));`,
    );

    this.addSql(
      `create table "webhook_deliveries" ("id" bigserial primary key, "team_id" int not null, "endpoint_id" int not null, "event_id" bigint not null, "ordering_key" text not null, "sequence" bigint not null, "status" varchar(16) not null default 'pending', "ready" boolean not null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null default now(), "lease_until" timestamptz null, "queued_at" timestamptz null, "last_status" int null, "last_error" text null, "created_at" timestamptz not null default now(), "finished_at" timestamptz null);`,
    );
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending' and "ready";`);
    this.addSql(`create index "webhook_deliveries_lease_index" on "webhook_deliveries" ("lease_until") where "status" = 'delivering';`);
    this.addSql(
      `create index "webhook_deliveries_line_pending_index" on "webhook_deliveries" ("endpoint_id", "ordering_key", "sequence") where "status" = 'pending';`,
    );
    this.addSql(`create index "webhook_deliveries_endpoint_created_index" on "webhook_deliveries" ("endpoint_id", "created_at");`);
    this.addSql(`create index "webhook_deliveries_event_index" on "webhook_deliveries" ("event_id");`);
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_line_sequence_unique" unique ("endpoint_id", "ordering_key", "sequence");`,
    );

    this.addSql(
      `create table "webhook_attempts" ("id" bigserial primary key, "team_id" int not null, "delivery_id" bigint not null, "attempt" int not null, "started_at" timestamptz not null, "duration_ms" int not null, "status_code" int null, "error" text null, "response_excerpt" text null);`,
    );
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_attempt_unique" unique ("delivery_id", "attempt");`);

    this.addSql(
      `create table "event_subscriptions" ("id" serial primary key, "team_id" int not null, "endpoint_id" int not null, "kind" varchar(16) not null, "event_type" varchar(64) not null, "folder_id" int null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(
      `create unique index "event_subscriptions_endpoint_type_folder_unique" on "event_subscriptions" ("endpoint_id", "event_type", coalesce("folder_id", 0));`,
    );
    this.addSql(`create index "event_subscriptions_team_kind_index" on "event_subscriptions" ("team_id", "kind", "event_type");`);
    this.addSql(`create index "event_subscriptions_folder_index" on "event_subscriptions" ("folder_id");`);

    this.addSql(`alter table "outbox_events" add constraint "outbox_events_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id");`,
    );

    this.addSql(
      `alter table "webhook_delivery_lines" add constraint "webhook_delivery_lines_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_delivery_lines" add constraint "webhook_delivery_lines_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "outbox_events" ("id");`,
    );

    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on delete cascade;`,
    );

    this.addSql(`alter table "event_subscriptions" add constraint "event_subscriptions_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "event_subscriptions" add constraint "event_subscriptions_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "event_subscriptions" add constraint "event_subscriptions_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_id_foreign";`);
    this.addSql(`alter table "webhook_delivery_lines" drop constraint "webhook_delivery_lines_endpoint_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`);
    this.addSql(`alter table "event_subscriptions" drop constraint "event_subscriptions_endpoint_id_foreign";`);
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_id_foreign";`);

    this.addSql(`drop table if exists "outbox_events" cascade;`);
    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "webhook_delivery_lines" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
    this.addSql(`drop table if exists "event_subscriptions" cascade;`);
  }
}
