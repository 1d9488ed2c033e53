import { Migration } from '@mikro-orm/migrations';

export class Migration20261122151006 extends Migration {
  override name = 'Migration20261122151006';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "template_versions" ("id" varchar(128) not null, "team_id" int not null, "template_id" varchar(128) not null, "number" int not null, "name" varchar(30) not null, "description" varchar(50) null, "definition" jsonb not null, "created_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(`alter table "template_versions" add constraint "template_versions_template_id_number_unique" unique ("template_id", "number");`);

    this.addSql(
      `create table "product_info_templates" ("id" varchar(128) not null, "team_id" int not null, "name" varchar(30) not null, "description" varchar(50) null, "enabled" boolean not null default true, "is_library_default" boolean not null default false, "current_version_id" varchar(128) not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "product_info_templates_live_list" on "product_info_templates" ("team_id", "created_at" desc, "id") where "deleted_at" is null;`);
    this.addSql(`create unique index "product_info_templates_live_name_unique" on "product_info_templates" ("team_id", "name") where "deleted_at" is null;`);
    this.addSql(
      `create unique index "product_info_templates_one_library_default" on "product_info_templates" ("team_id") where "is_library_default" and "deleted_at" is null;`,
    );

    this.addSql(
      `create table "template_category_bindings" ("category_id" int not null, "team_id" int not null, "template_id" varchar(128) not null, primary key ("category_id"));`,
    );
    this.addSql(`create index "template_category_bindings_template_id_index" on "template_category_bindings" ("template_id");`);

    this.addSql(
      `create table "template_brand_bindings" ("brand_id" int not null, "team_id" int not null, "template_id" varchar(128) not null, primary key ("brand_id"));`,
    );
    this.addSql(`create index "template_brand_bindings_template_id_index" on "template_brand_bindings" ("template_id");`);

    this.addSql(`alter table "template_versions" add constraint "template_versions_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "template_versions" add constraint "template_versions_template_id_foreign" foreign key ("template_id") references "product_info_templates" ("id");`,
    );

    this.addSql(
      `alter table "product_info_templates" add constraint "product_info_templates_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "product_info_templates" add constraint "product_info_templates_current_version_id_foreign" foreign key ("current_version_id") references "template_versions" ("id") deferrable initially deferred;`,
    );

    this.addSql(
      `alter table "template_category_bindings" add constraint "template_category_bindings_category_id_foreign" foreign key ("category_id") references "categories" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "template_category_bindings" add constraint "template_category_bindings_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "template_category_bindings" add constraint "template_category_bindings_template_id_foreign" foreign key ("template_id") references "product_info_templates" ("id");`,
    );

    this.addSql(
      `alter table "template_brand_bindings" add constraint "template_brand_bindings_brand_id_foreign" foreign key ("brand_id") references "brands" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "template_brand_bindings" add constraint "template_brand_bindings_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "template_brand_bindings" add constraint "template_brand_bindings_template_id_foreign" foreign key ("template_id") references "product_info_templates" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "product_info_templates" drop constraint "product_info_templates_current_version_id_foreign";`);
    this.addSql(`alter table "template_versions" drop constraint "template_versions_template_id_foreign";`);
    this.addSql(`alter table "template_category_bindings" drop constraint "template_category_bindings_template_id_foreign";`);
    this.addSql(`alter table "template_brand_bindings" drop constraint "template_brand_bindings_template_id_foreign";`);

    this.addSql(`drop table if exists "template_versions" cascade;`);
    this.addSql(`drop table if exists "product_info_templates" cascade;`);
    this.addSql(`drop table if exists "template_category_bindings" cascade;`);
    this.addSql(`drop table if exists "template_brand_bindings" cascade;`);
  }
}
