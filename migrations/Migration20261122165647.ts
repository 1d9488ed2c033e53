import { Migration } from '@mikro-orm/migrations';

export class Migration20261122165647 extends Migration {
  override name = 'Migration20261122165647';

  override up(): void | Promise<void> {
    // contrib extensions of the search indexes (part of Debian's postgresql-15 package)
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists cube;`);
    // trigger functions (docs/search.md): tag names for DEEP keywords, the library version for the memo of totals
    this.addSql(`create or replace function library_files_refresh_tag_names() returns trigger language plpgsql as $$
      begin
        update library_files f
           set tag_names = coalesce((select string_agg(t.name, ' ' order by t.name)
                                       from library_file_tags ft join library_tags t on t.id = ft.tag_id
                                      where ft.file_id = f.id), '')
         where f.id in (select distinct file_id from changed_file_tags);
        return null;
      end $$;`);
    this.addSql(`create or replace function library_search_text_sync() returns trigger language plpgsql as $$
      begin
        if new.deleted_at is not null then
          delete from library_search_texts where file_id = new.id;
        else
          insert into library_search_texts (file_id, team_id, search_text)
          values (new.id, new.team_id, lower(new.name || ' ' || coalesce(new.description, '') || ' ' || new.tag_names || ' ' || coalesce(new.ai_tags, '') || ' ' ||
                                             coalesce(new.ai_title, '') || ' ' || coalesce(new.ai_description, '') || ' ' || coalesce(new.ai_detailed_description::text, '')))
          on conflict (file_id) do update set team_id = excluded.team_id, search_text = excluded.search_text;
        end if;
        return null;
      end $$;`);
    this.addSql(`create or replace function library_version_bump() returns trigger language plpgsql as $$
      declare
        team int := case when tg_op = 'DELETE' then old.team_id else new.team_id end;
      begin
        if current_setting('shelf.library_bumped_' || team, true) is distinct from '1' then
          insert into library_versions (team_id, version) values (team, 1)
            on conflict (team_id) do update set version = library_versions.version + 1;
          perform set_config('shelf.library_bumped_' || team, '1', true);
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create table "stored_object_colours" ("object_id" int not null, "position" smallint not null, "team_id" int not null, "l" real not null, "a" real not null, "b" real not null, "rgb" varchar(6) not null, "share" real not null, primary key ("object_id", "position"));`,
    );
    this.addSql(`create index "stored_object_colours_team_lab_gist" on "stored_object_colours" using gist (cube(array["team_id", "l", "a", "b"]::float8[]));`);

    this.addSql(`create table "library_versions" ("team_id" int not null, "version" bigint not null default '1', primary key ("team_id"));`);

    this.addSql(
      `create table "library_shares" ("id" serial primary key, "team_id" int not null, "folder_id" int not null, "token_hash" varchar(64) not null, "password_hash" text null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "library_shares" add constraint "library_shares_token_hash_unique" unique ("token_hash");`);

    this.addSql(
      `create table "library_folder_members" ("folder_id" int not null, "member_id" int not null, "team_id" int not null, "created_at" timestamptz not null default now(), primary key ("folder_id", "member_id"));`,
    );
    this.addSql(`create index "library_folder_members_team_id_member_id_index" on "library_folder_members" ("team_id", "member_id");`);

    this.addSql(`create table "library_search_texts" ("file_id" int not null, "team_id" int not null, "search_text" text not null, primary key ("file_id"));`);
    this.addSql(`create index "library_search_texts_trgm" on "library_search_texts" using gin ("search_text" gin_trgm_ops);`);

    this.addSql(
      `create constraint trigger "library_folders_version_bump" after insert or update or delete on "library_folders" deferrable initially deferred for each row execute function library_version_bump();`,
    );

    this.addSql(
      `alter table "library_files" add "ai_tags" text null, add "ai_title" text null, add "ai_description" text null, add "ai_detailed_description" jsonb null, add "tag_names" text not null default '';`,
    );
    this.addSql(`create index "library_files_live_id" on "library_files" ("team_id", "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_name_trgm" on "library_files" using gin (lower("name") gin_trgm_ops) where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_name" on "library_files" ("team_id", lower("name"), "id") where "deleted_at" is null;`);
    this.addSql(
      `create index "library_files_live_stem" on "library_files" ("team_id", lower(regexp_replace("name", '\\.[^.]*$', ''))) where "deleted_at" is null;`,
    );
    this.addSql(`create index "library_files_live_created" on "library_files" ("team_id", "created_at", "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_updated" on "library_files" ("team_id", "updated_at", "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_size" on "library_files" ("team_id", "byte_size", "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_extension_size" on "library_files" ("team_id", "extension", "byte_size", "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_duration" on "library_files" ("team_id", "duration_ms" nulls first, "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_score" on "library_files" ("team_id", "score" nulls first, "id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_width_height" on "library_files" ("team_id", "width", "height") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_create_user" on "library_files" ("team_id", "create_user_id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_owner" on "library_files" ("team_id", "owner_id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_folder" on "library_files" ("team_id", "folder_id") where "deleted_at" is null;`);
    this.addSql(`create index "library_files_live_object" on "library_files" ("team_id", "object_id") where "deleted_at" is null;`);
    // files imported before this migration: tag names, then the search texts of the live ones
    this.addSql(`update library_files f set tag_names = (select string_agg(t.name, ' ' order by t.name) from library_file_tags ft join library_tags t on t.id = ft.tag_id where ft.file_id = f.id)
      where exists (select 1 from library_file_tags ft where ft.file_id = f.id);`);
    this.addSql(`insert into library_search_texts (file_id, team_id, search_text)
      select id, team_id, lower(name || ' ' || coalesce(description, '') || ' ' || tag_names || ' ' || coalesce(ai_tags, '') || ' ' || coalesce(ai_title, '') || ' ' ||
                                coalesce(ai_description, '') || ' ' || coalesce(ai_detailed_description::text, ''))
        from library_files where deleted_at is null
      on conflict (file_id) do nothing;`);
    this.addSql(
      `create constraint trigger "library_files_version_bump" after insert or update or delete on "library_files" deferrable initially deferred for each row execute function library_version_bump();`,
    );
    this.addSql(
      `create trigger "library_files_search_text_sync" after insert or update of "name", "description", "tag_names", "ai_tags", "ai_title", "ai_description", "ai_detailed_description", "deleted_at", "team_id" on "library_files" for each row execute function library_search_text_sync();`,
    );

    this.addSql(
      `create constraint trigger "library_file_tags_version_bump" after insert or update or delete on "library_file_tags" deferrable initially deferred for each row execute function library_version_bump();`,
    );
    this.addSql(
      `create trigger "library_file_tags_inserted" after insert on "library_file_tags" referencing new table as changed_file_tags for each statement execute function library_files_refresh_tag_names();`,
    );
    this.addSql(
      `create trigger "library_file_tags_deleted" after delete on "library_file_tags" referencing old table as changed_file_tags for each statement execute function library_files_refresh_tag_names();`,
    );

    this.addSql(
      `alter table "stored_object_colours" add constraint "stored_object_colours_object_id_foreign" foreign key ("object_id") references "stored_objects" ("id");`,
    );
    this.addSql(
      `alter table "stored_object_colours" add constraint "stored_object_colours_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `create constraint trigger "stored_object_colours_version_bump" after insert or update or delete on "stored_object_colours" deferrable initially deferred for each row execute function library_version_bump();`,
    );

    this.addSql(
      `alter table "library_versions" add constraint "library_versions_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "library_shares" add constraint "library_shares_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(
      `alter table "library_shares" add constraint "library_shares_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id");`,
    );

    this.addSql(
      `alter table "library_folder_members" add constraint "library_folder_members_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "library_folder_members" add constraint "library_folder_members_member_id_foreign" foreign key ("member_id") references "members" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "library_folder_members" add constraint "library_folder_members_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `create constraint trigger "library_folder_members_version_bump" after insert or update or delete on "library_folder_members" deferrable initially deferred for each row execute function library_version_bump();`,
    );

    this.addSql(
      `alter table "library_search_texts" add constraint "library_search_texts_file_id_foreign" foreign key ("file_id") references "library_files" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "library_search_texts" add constraint "library_search_texts_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    // expression statistics: without them PRECISE keywords were estimated at 1 % of the files, and the
    // planner walked a sort index through a million rows looking for one name (docs/search.md)
    this.addSql(`create statistics if not exists library_files_name_stats on (lower(name)) from library_files;`);
    this.addSql(`create statistics if not exists library_files_stem_stats on (lower(regexp_replace(name, '\\.[^.]*$', ''))) from library_files;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "stored_object_colours_version_bump" on "stored_object_colours";`);
    this.addSql(`drop function if exists "stored_object_colours_stored_object_colours_version_bump_fn"();`);
    this.addSql(`drop table if exists "stored_object_colours" cascade;`);
    this.addSql(`drop table if exists "library_versions" cascade;`);
    this.addSql(`drop table if exists "library_shares" cascade;`);
    this.addSql(`drop trigger if exists "library_folder_members_version_bump" on "library_folder_members";`);
    this.addSql(`drop function if exists "library_folder_members_library_folder_members_version_bump_fn"();`);
    this.addSql(`drop table if exists "library_folder_members" cascade;`);
    this.addSql(`drop table if exists "library_search_texts" cascade;`);

    this.addSql(`drop trigger if exists "library_file_tags_version_bump" on "library_file_tags";`);
    this.addSql(`drop function if exists "library_file_tags_library_file_tags_version_bump_fn"();`);
    this.addSql(`drop trigger if exists "library_file_tags_inserted" on "library_file_tags";`);
    this.addSql(`drop function if exists "library_file_tags_library_file_tags_inserted_fn"();`);
    this.addSql(`drop trigger if exists "library_file_tags_deleted" on "library_file_tags";`);
    this.addSql(`drop function if exists "library_file_tags_library_file_tags_deleted_fn"();`);

    this.addSql(`drop index "library_files_live_id";`);
    this.addSql(`drop index "library_files_name_trgm";`);
    this.addSql(`drop index "library_files_live_name";`);
    this.addSql(`drop index "library_files_live_stem";`);
    this.addSql(`drop index "library_files_live_created";`);
    this.addSql(`drop index "library_files_live_updated";`);
    this.addSql(`drop index "library_files_live_size";`);
    this.addSql(`drop index "library_files_live_extension_size";`);
    this.addSql(`drop index "library_files_live_duration";`);
    this.addSql(`drop index "library_files_live_score";`);
    this.addSql(`drop index "library_files_live_width_height";`);
    this.addSql(`drop index "library_files_live_create_user";`);
    this.addSql(`drop index "library_files_live_owner";`);
    this.addSql(`drop index "library_files_live_folder";`);
    this.addSql(`drop index "library_files_live_object";`);
    this.addSql(`drop trigger if exists "library_files_version_bump" on "library_files";`);
    this.addSql(`drop function if exists "library_files_library_files_version_bump_fn"();`);
    this.addSql(`drop trigger if exists "library_files_search_text_sync" on "library_files";`);
    this.addSql(`drop function if exists "library_files_library_files_search_text_sync_fn"();`);
    this.addSql(
      `alter table "library_files" drop column "ai_tags", drop column "ai_title", drop column "ai_description", drop column "ai_detailed_description", drop column "tag_names";`,
    );

    this.addSql(`drop trigger if exists "library_folders_version_bump" on "library_folders";`);
    this.addSql(`drop function if exists "library_folders_library_folders_version_bump_fn"();`);
    this.addSql(`drop function if exists library_version_bump();`);
    this.addSql(`drop function if exists library_search_text_sync();`);
    this.addSql(`drop function if exists library_files_refresh_tag_names();`);
    this.addSql(`drop statistics if exists library_files_name_stats, library_files_stem_stats;`);
  }
}
