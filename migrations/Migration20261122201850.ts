import { Migration } from '@mikro-orm/migrations';

/**
 * Search layout for tags and DEEP keywords (docs/search.md): the file's tag ids on the file (GIN,
 * and carried by the creation-time index), so an AND of tags is one condition instead of one join
 * per tag; the file's creation time on
 * library_search_texts, so a DEEP-only page in creation order reads that narrow table alone.
 */
export class Migration20261122201850 extends Migration {
  override name = 'Migration20261122201850';

  override up(): void | Promise<void> {
    this.addSql(`alter table "library_files" add "tag_ids" int[] not null default '{}';`);
    this.addSql(`create or replace function library_files_refresh_tag_names() returns trigger language plpgsql as $$
      begin
        update library_files f
           set (tag_names, tag_ids) = (
                 select coalesce(string_agg(t.name, ' ' order by t.name), ''), coalesce(array_agg(t.id order by t.id), '{}')
                   from library_file_tags ft join library_tags t on t.id = ft.tag_id
                  where ft.file_id = f.id)
         where f.id in (select distinct file_id from changed_file_tags);
        return null;
      end $$;`);
    // files tagged before this migration; their deferred version-bump events fire at once, since an
    // index cannot be created on a table with pending trigger events
    this.addSql(`set constraints all immediate;`);
    this.addSql(`update library_files f set tag_ids = (select array_agg(ft.tag_id order by ft.tag_id) from library_file_tags ft where ft.file_id = f.id)
      where exists (select 1 from library_file_tags ft where ft.file_id = f.id);`);
    this.addSql(`create index "library_files_live_tag_ids" on "library_files" using gin ("tag_ids") where "deleted_at" is null;`);
    // the creation-time index carries the tag ids: a tags search in creation order walks it without reading files
    this.addSql(`drop index "library_files_live_created";`);
    this.addSql(`create index "library_files_live_created" on "library_files" ("team_id", "created_at", "id") include ("tag_ids") where "deleted_at" is null;`);

    this.addSql(`alter table "library_search_texts" add "created_at" timestamptz null;`);
    this.addSql(`update library_search_texts s set created_at = f.created_at from library_files f where f.id = s.file_id;`);
    this.addSql(`alter table "library_search_texts" alter column "created_at" set not null;`);
    this.addSql(`create or replace function library_search_text_sync() returns trigger language plpgsql as $$
      begin
        if new.deleted_at is not null then
          delete from library_search_texts where file_id = new.id;
        else
          insert into library_search_texts (file_id, team_id, created_at, search_text)
          values (new.id, new.team_id, new.created_at,
                  lower(new.name || ' ' || coalesce(new.description, '') || ' ' || new.tag_names || ' ' || coalesce(new.ai_tags, '') || ' ' ||
                        coalesce(new.ai_title, '') || ' ' || coalesce(new.ai_description, '') || ' ' || coalesce(new.ai_detailed_description::text, '')))
          on conflict (file_id) do update set team_id = excluded.team_id, created_at = excluded.created_at, search_text = excluded.search_text;
        end if;
        return null;
      end $$;`);
    this.addSql(`drop trigger if exists "library_files_search_text_sync" on "library_files";`);
    this.addSql(
      `create trigger "library_files_search_text_sync" after insert or update of "name", "description", "tag_names", "ai_tags", "ai_title", "ai_description", "ai_detailed_description", "deleted_at", "team_id", "created_at" on "library_files" for each row execute function library_search_text_sync();`,
    );
    // INCLUDE the text: the walk tests each row's text from the index alone (no heap read per row)
    this.addSql(`create index "library_search_texts_team_created" on "library_search_texts" ("team_id", "created_at", "file_id") include ("search_text");`);
  }

  override down(): void | Promise<void> {
    // the trigger functions as Migration20261122165647 created them
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
    this.addSql(`drop trigger if exists "library_files_search_text_sync" on "library_files";`);
    this.addSql(
      `create trigger "library_files_search_text_sync" after insert or update of "name", "description", "tag_names", "ai_tags", "ai_title", "ai_description", "ai_detailed_description", "deleted_at", "team_id" on "library_files" for each row execute function library_search_text_sync();`,
    );
    this.addSql(`drop index "library_files_live_tag_ids";`);
    this.addSql(`drop index "library_files_live_created";`);
    this.addSql(`alter table "library_files" drop column "tag_ids";`);
    this.addSql(`create index "library_files_live_created" on "library_files" ("team_id", "created_at", "id") where "deleted_at" is null;`);

    this.addSql(`drop index "library_search_texts_team_created";`);
    this.addSql(`alter table "library_search_texts" drop column "created_at";`);
  }
}
