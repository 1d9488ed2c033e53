import { Migration } from '@mikro-orm/migrations';

/**
 * A narrow table of live files' lower-cased names for asset lookup's name substring (docs/products.md
 * "Asset lookup"): its trigram index's rechecks read small rows instead of library_files' wide ones
 * (bench/RESULTS-catalogue-reads.md). A trigger on library_files keeps it; existing files are
 * backfilled, and the index is built after the backfill (one sort instead of a million insertions).
 */
export class Migration20261126010000 extends Migration {
  override name = 'Migration20261126010000';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_file_names" ("file_id" int not null, "team_id" int not null, "lname" text not null, constraint "library_file_names_pkey" primary key ("file_id"));`,
    );
    this.addSql(
      `alter table "library_file_names" add constraint "library_file_names_file_id_foreign" foreign key ("file_id") references "library_files" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "library_file_names" add constraint "library_file_names_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    // an update that leaves name, deletion and team as they were keeps the row
    this.addSql(`create or replace function library_file_names_sync() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          if old.name = new.name and old.deleted_at is not distinct from new.deleted_at and old.team_id = new.team_id then
            return null;
          end if;
          delete from library_file_names where file_id = old.id;
        end if;
        if new.deleted_at is null then
          insert into library_file_names (file_id, team_id, lname) values (new.id, new.team_id, lower(new.name));
        end if;
        return null;
      end $$;`);
    this.addSql(`insert into library_file_names (file_id, team_id, lname) select id, team_id, lower(name) from library_files where deleted_at is null;`);
    this.addSql(`create index "library_file_names_trgm" on "library_file_names" using gin ("lname" gin_trgm_ops);`);
    this.addSql(
      `create trigger "library_files_name_sync" after insert or update of "name", "deleted_at", "team_id" on "library_files" for each row execute function library_file_names_sync();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "library_files_name_sync" on "library_files";`);
    this.addSql(`drop function if exists library_file_names_sync();`);
    this.addSql(`drop table if exists "library_file_names" cascade;`);
  }
}
