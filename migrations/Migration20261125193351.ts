import { Migration } from '@mikro-orm/migrations';

/**
 * The recycle bin (docs/library.md "Recycle bin"): one entry per deletion, and on files and folders
 * the entry that took them. Files soft-deleted before the bin existed become entries of their own,
 * so they can be restored or deleted permanently like any other.
 */
export class Migration20261125193351 extends Migration {
  override name = 'Migration20261125193351';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_recycle_entries" ("id" serial primary key, "team_id" int not null, "kind" varchar(16) not null, "file_id" int null, "folder_id" int null, "name" varchar(255) not null, "original_path" text not null, "deleted_by_id" int null, "deleted_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "library_recycle_entries_team_id_deleted_at_id_index" on "library_recycle_entries" ("team_id", "deleted_at", "id");`);
    this.addSql(
      `alter table "library_recycle_entries" add constraint "library_recycle_entries_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(
      `alter table "library_recycle_entries" add constraint "library_recycle_entries_deleted_by_id_foreign" foreign key ("deleted_by_id") references "members" ("id") on delete set null;`,
    );

    this.addSql(`alter table "library_folders" add "recycle_entry_id" int null;`);
    this.addSql(`create index "library_folders_recycle_entry_index" on "library_folders" ("recycle_entry_id") where "recycle_entry_id" is not null;`);
    this.addSql(`alter table "library_files" add "recycle_entry_id" int null;`);
    this.addSql(`create index "library_files_recycle_entry_index" on "library_files" ("recycle_entry_id") where "recycle_entry_id" is not null;`);

    this.addSql(`insert into "library_recycle_entries" ("team_id", "kind", "file_id", "name", "original_path", "deleted_by_id", "deleted_at")
      select f."team_id", 'file', f."id", f."name", coalesce(d."path", '/'), f."update_user_id", f."deleted_at"
        from "library_files" f left join "library_folders" d on d."id" = f."folder_id" and d."team_id" = f."team_id"
       where f."deleted_at" is not null;`);
    this.addSql(`update "library_files" f set "recycle_entry_id" = e."id" from "library_recycle_entries" e
      where e."kind" = 'file' and e."file_id" = f."id" and e."team_id" = f."team_id" and f."deleted_at" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "library_files_recycle_entry_index";`);
    this.addSql(`alter table "library_files" drop column "recycle_entry_id";`);
    this.addSql(`drop index "library_folders_recycle_entry_index";`);
    this.addSql(`alter table "library_folders" drop column "recycle_entry_id";`);
    this.addSql(`drop table if exists "library_recycle_entries" cascade;`);
  }
}
