import { Migration } from '@mikro-orm/migrations';

/**
 * Custom metadata fields and custom field templates, and the values files carry (docs/library.md
 * "Custom metadata and custom fields"); search-assets' customFieldTemplateIds / customFieldId read
 * library_file_custom_values through its two indexes (docs/search.md).
 */
export class Migration20261125210000 extends Migration {
  override name = 'Migration20261125210000';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_metadata_fields" ("id" serial primary key, "team_id" int not null, "name" varchar(64) not null, "type" varchar(8) not null, "options" jsonb null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "library_metadata_fields" add constraint "library_metadata_fields_team_id_name_unique" unique ("team_id", "name");`);

    this.addSql(
      `create table "library_metadata_records" ("id" serial primary key, "team_id" int not null, "file_id" int not null, "values" jsonb not null default '{}', "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "library_metadata_records" add constraint "library_metadata_records_file_id_unique" unique ("file_id");`);

    this.addSql(
      `create table "library_custom_field_templates" ("id" serial primary key, "team_id" int not null, "name" varchar(64) not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "library_custom_field_templates" add constraint "library_custom_field_templates_team_id_name_unique" unique ("team_id", "name");`);

    this.addSql(
      `create table "library_custom_fields" ("id" serial primary key, "team_id" int not null, "template_id" int not null, "name" varchar(64) not null, "type" varchar(8) not null, "options" jsonb null, "position" smallint not null);`,
    );
    this.addSql(`create index "library_custom_fields_team_id_template_id_index" on "library_custom_fields" ("team_id", "template_id");`);
    this.addSql(`alter table "library_custom_fields" add constraint "library_custom_fields_template_id_name_unique" unique ("template_id", "name");`);

    this.addSql(
      `create table "library_file_custom_values" ("file_id" int not null, "field_id" int not null, "team_id" int not null, "template_id" int not null, "value" jsonb not null, "updated_at" timestamptz not null default now(), primary key ("file_id", "field_id"));`,
    );
    this.addSql(
      `create index "library_file_custom_values_team_id_template_id_file_id_index" on "library_file_custom_values" ("team_id", "template_id", "file_id");`,
    );
    this.addSql(`create index "library_file_custom_values_team_id_field_id_file_id_index" on "library_file_custom_values" ("team_id", "field_id", "file_id");`);
    this.addSql(
      `create constraint trigger "library_file_custom_values_version_bump" after insert or update or delete on "library_file_custom_values" deferrable initially deferred for each row execute function library_version_bump();`,
    );

    this.addSql(
      `alter table "library_metadata_fields" add constraint "library_metadata_fields_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_metadata_records" add constraint "library_metadata_records_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_metadata_records" add constraint "library_metadata_records_file_id_foreign" foreign key ("file_id") references "library_files" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "library_custom_field_templates" add constraint "library_custom_field_templates_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_custom_fields" add constraint "library_custom_fields_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_custom_fields" add constraint "library_custom_fields_template_id_foreign" foreign key ("template_id") references "library_custom_field_templates" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "library_file_custom_values" add constraint "library_file_custom_values_file_id_foreign" foreign key ("file_id") references "library_files" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "library_file_custom_values" add constraint "library_file_custom_values_field_id_foreign" foreign key ("field_id") references "library_custom_fields" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "library_file_custom_values" add constraint "library_file_custom_values_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_file_custom_values" add constraint "library_file_custom_values_template_id_foreign" foreign key ("template_id") references "library_custom_field_templates" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "library_file_custom_values" cascade;`);
    this.addSql(`drop table if exists "library_custom_fields" cascade;`);
    this.addSql(`drop table if exists "library_custom_field_templates" cascade;`);
    this.addSql(`drop table if exists "library_metadata_records" cascade;`);
    this.addSql(`drop table if exists "library_metadata_fields" cascade;`);
  }
}
