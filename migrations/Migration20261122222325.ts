import { Migration } from '@mikro-orm/migrations';

/**
 * Tag postings (docs/search.md): one row per live file and tag, with the file's creation time and
 * tag ids, so an AND of tags in creation order walks its rarest tag's postings from one index
 * instead of every file. A trigger on library_files keeps them; existing files are backfilled.
 */
export class Migration20261122222325 extends Migration {
  override name = 'Migration20261122222325';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_tag_postings" ("file_id" int not null, "tag_id" int not null, "team_id" int not null, "created_at" timestamptz not null, "tag_ids" int[] not null, primary key ("file_id", "tag_id"));`,
    );
    this.addSql(
      `alter table "library_tag_postings" add constraint "library_tag_postings_file_id_foreign" foreign key ("file_id") references "library_files" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "library_tag_postings" add constraint "library_tag_postings_tag_id_foreign" foreign key ("tag_id") references "library_tags" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "library_tag_postings" add constraint "library_tag_postings_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);

    // an update that leaves the four columns as they were (a rename's SET lists them all) keeps the rows
    this.addSql(`create or replace function library_tag_postings_sync() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          if old.tag_ids = new.tag_ids and old.deleted_at is not distinct from new.deleted_at
             and old.team_id = new.team_id and old.created_at = new.created_at then
            return null;
          end if;
          delete from library_tag_postings where file_id = old.id;
        end if;
        if new.deleted_at is null and cardinality(new.tag_ids) > 0 then
          insert into library_tag_postings (file_id, tag_id, team_id, created_at, tag_ids)
          select new.id, t.id, new.team_id, new.created_at, new.tag_ids from unnest(new.tag_ids) t(id);
        end if;
        return null;
      end $$;`);
    this.addSql(`insert into library_tag_postings (file_id, tag_id, team_id, created_at, tag_ids)
      select f.id, t.id, f.team_id, f.created_at, f.tag_ids from library_files f cross join unnest(f.tag_ids) t(id) where f.deleted_at is null;`);
    // built after the backfill: one sort instead of 1,800,000 insertions (1,000,000 files)
    this.addSql(`create index "library_tag_postings_walk" on "library_tag_postings" ("team_id", "tag_id", "created_at", "file_id") include ("tag_ids");`);
    this.addSql(
      `create trigger "library_files_tag_postings_sync" after insert or update of "tag_ids", "deleted_at", "team_id", "created_at" on "library_files" for each row execute function library_tag_postings_sync();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "library_files_tag_postings_sync" on "library_files";`);
    this.addSql(`drop function if exists library_tag_postings_sync();`);
    this.addSql(`drop table if exists "library_tag_postings" cascade;`);
  }
}
