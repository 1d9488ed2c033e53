import { Migration } from '@mikro-orm/migrations';

/** Approvals (Area D, docs/approvals.md): templates, tasks with their frozen workflows, decisions and reviewed assets. */
export class Migration20261125040406 extends Migration {
  override name = 'Migration20261125040406';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "approval_templates" ("id" uuid not null, "team_id" int not null, "name" varchar(128) not null, "description" text not null default '', "enabled" boolean not null default true, "usage_count" int not null default 0, "auto_import_enabled" boolean not null default false, "target_folder" text not null default '', "workflow" jsonb not null, "created_by_id" int null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(`create index "approval_templates_team_index" on "approval_templates" ("team_id", "created_at");`);

    this.addSql(
      `create table "approval_tasks" ("id" uuid not null, "team_id" int not null, "template_id" uuid not null, "workflow" jsonb not null, "status" varchar(16) not null, "created_by_id" int not null, "reason" text null, "source_context" jsonb null, "node_index" int not null, "node_role" varchar(24) not null, "node_status" varchar(24) not null, "round" int not null default 1, "node_started_at" timestamptz not null default now(), "timeout_at" timestamptz null, "timer_queued_at" timestamptz null, "operator_id" int null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "finished_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "approval_tasks_team_index" on "approval_tasks" ("team_id", "created_at");`);
    this.addSql(
      `create index "approval_tasks_timer_due_index" on "approval_tasks" ("timeout_at") where "timeout_at" is not null and "timer_queued_at" is null;`,
    );

    this.addSql(
      `create table "approval_decisions" ("id" serial primary key, "team_id" int not null, "task_id" uuid not null, "node_key" varchar(128) not null, "member_id" int not null, "state" varchar(16) not null default 'pending', "comment" text null, "decided_at" timestamptz null);`,
    );
    this.addSql(`alter table "approval_decisions" add constraint "approval_decisions_node_member_unique" unique ("task_id", "node_key", "member_id");`);

    this.addSql(
      `create table "approval_assets" ("id" serial primary key, "team_id" int not null, "task_id" uuid not null, "position" int not null, "version" int not null, "name" text not null, "url" text null, "sha256" varchar(64) not null, "storage_key" text not null, "byte_size" bigint not null, "mime_type" varchar(255) null, "extension" varchar(32) null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "approval_assets" add constraint "approval_assets_task_position_version_unique" unique ("task_id", "position", "version");`);

    this.addSql(`alter table "approval_templates" add constraint "approval_templates_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "approval_templates" add constraint "approval_templates_created_by_id_foreign" foreign key ("created_by_id") references "members" ("id") on delete set null;`,
    );

    this.addSql(`alter table "approval_tasks" add constraint "approval_tasks_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "approval_tasks" add constraint "approval_tasks_template_id_foreign" foreign key ("template_id") references "approval_templates" ("id");`,
    );
    this.addSql(
      `alter table "approval_tasks" add constraint "approval_tasks_created_by_id_foreign" foreign key ("created_by_id") references "members" ("id");`,
    );
    this.addSql(
      `alter table "approval_tasks" add constraint "approval_tasks_operator_id_foreign" foreign key ("operator_id") references "members" ("id") on delete set null;`,
    );

    this.addSql(`alter table "approval_decisions" add constraint "approval_decisions_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "approval_decisions" add constraint "approval_decisions_task_id_foreign" foreign key ("task_id") references "approval_tasks" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "approval_decisions" add constraint "approval_decisions_member_id_foreign" foreign key ("member_id") references "members" ("id");`,
    );

    this.addSql(`alter table "approval_assets" add constraint "approval_assets_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "approval_assets" add constraint "approval_assets_task_id_foreign" foreign key ("task_id") references "approval_tasks" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "approval_tasks" drop constraint "approval_tasks_template_id_foreign";`);
    this.addSql(`alter table "approval_decisions" drop constraint "approval_decisions_task_id_foreign";`);
    this.addSql(`alter table "approval_assets" drop constraint "approval_assets_task_id_foreign";`);

    this.addSql(`drop table if exists "approval_templates" cascade;`);
    this.addSql(`drop table if exists "approval_tasks" cascade;`);
    this.addSql(`drop table if exists "approval_decisions" cascade;`);
    this.addSql(`drop table if exists "approval_assets" cascade;`);
  }
}
