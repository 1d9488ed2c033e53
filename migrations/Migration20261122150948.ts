import { Migration } from '@mikro-orm/migrations';

export class Migration20261122150948 extends Migration {
  override name = 'Migration20261122150948';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "stored_objects" ("id" serial primary key, "team_id" int not null, "sha256" varchar(64) not null, "storage_key" varchar(255) not null, "mime_type" varchar(255) not null, "byte_size" bigint not null, "width" int null, "height" int null, "duration_ms" bigint null, "create_user_id" int null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "stored_objects_sha256_index" on "stored_objects" ("sha256");`);
    this.addSql(`alter table "stored_objects" add constraint "stored_objects_team_id_sha256_unique" unique ("team_id", "sha256");`);

    this.addSql(
      `create table "library_tags" ("id" serial primary key, "team_id" int not null, "name" varchar(64) not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "library_tags" add constraint "library_tags_team_id_name_unique" unique ("team_id", "name");`);

    this.addSql(
      `create table "library_folders" ("id" serial primary key, "team_id" int not null, "parent_id" int null, "name" varchar(255) not null, "path" text not null, "path_ids" int[] not null, "create_user_id" int null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null);`,
    );
    this.addSql(
      `create unique index "library_folders_live_sibling_name_unique" on "library_folders" ("team_id", coalesce("parent_id", 0), "name") where "deleted_at" is null;`,
    );
    this.addSql(`create index "library_folders_path_ids_gin" on "library_folders" using gin ("path_ids");`);

    this.addSql(
      `create table "library_files" ("id" serial primary key, "team_id" int not null, "folder_id" int null, "object_id" int not null, "name" varchar(255) not null, "extension" varchar(32) null, "mime_type" varchar(255) not null, "byte_size" bigint not null, "width" int null, "height" int null, "duration_ms" bigint null, "description" text null, "score" smallint null, "link" varchar(2048) null, "source" smallint not null default 2, "owner_id" int null, "creator_id" int null, "create_user_id" int null, "update_user_id" int null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null);`,
    );
    this.addSql(`create index "library_files_team_id_folder_id_id_index" on "library_files" ("team_id", "folder_id", "id");`);
    this.addSql(`create index "library_files_team_id_updated_at_id_index" on "library_files" ("team_id", "updated_at", "id");`);
    this.addSql(`create index "library_files_object_id_index" on "library_files" ("object_id");`);

    this.addSql(`create table "library_file_tags" ("file_id" int not null, "tag_id" int not null, "team_id" int not null, primary key ("file_id", "tag_id"));`);
    this.addSql(`create index "library_file_tags_team_id_tag_id_file_id_index" on "library_file_tags" ("team_id", "tag_id", "file_id");`);

    this.addSql(`alter table "stored_objects" add constraint "stored_objects_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "stored_objects" add constraint "stored_objects_create_user_id_foreign" foreign key ("create_user_id") references "members" ("id") on delete set null;`,
    );

    this.addSql(`alter table "library_tags" add constraint "library_tags_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);

    this.addSql(`alter table "library_folders" add constraint "library_folders_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "library_folders" add constraint "library_folders_parent_id_foreign" foreign key ("parent_id") references "library_folders" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "library_folders" add constraint "library_folders_create_user_id_foreign" foreign key ("create_user_id") references "members" ("id") on delete set null;`,
    );

    this.addSql(`alter table "library_files" add constraint "library_files_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "library_files" add constraint "library_files_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on delete set null;`,
    );
    this.addSql(`alter table "library_files" add constraint "library_files_object_id_foreign" foreign key ("object_id") references "stored_objects" ("id");`);
    this.addSql(
      `alter table "library_files" add constraint "library_files_owner_id_foreign" foreign key ("owner_id") references "members" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "library_files" add constraint "library_files_creator_id_foreign" foreign key ("creator_id") references "members" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "library_files" add constraint "library_files_create_user_id_foreign" foreign key ("create_user_id") references "members" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "library_files" add constraint "library_files_update_user_id_foreign" foreign key ("update_user_id") references "members" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "library_file_tags" add constraint "library_file_tags_file_id_foreign" foreign key ("file_id") references "library_files" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "library_file_tags" add constraint "library_file_tags_tag_id_foreign" foreign key ("tag_id") references "library_tags" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "library_file_tags" add constraint "library_file_tags_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "library_files" drop constraint "library_files_object_id_foreign";`);
    this.addSql(`alter table "library_file_tags" drop constraint "library_file_tags_tag_id_foreign";`);
    this.addSql(`alter table "library_folders" drop constraint "library_folders_parent_id_foreign";`);
    this.addSql(`alter table "library_files" drop constraint "library_files_folder_id_foreign";`);
    this.addSql(`alter table "library_file_tags" drop constraint "library_file_tags_file_id_foreign";`);

    this.addSql(`drop table if exists "stored_objects" cascade;`);
    this.addSql(`drop table if exists "library_tags" cascade;`);
    this.addSql(`drop table if exists "library_folders" cascade;`);
    this.addSql(`drop table if exists "library_files" cascade;`);
    this.addSql(`drop table if exists "library_file_tags" cascade;`);
  }
}
