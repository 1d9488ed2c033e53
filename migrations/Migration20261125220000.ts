import { Migration } from '@mikro-orm/migrations';

/**
 * Version lines (docs/library.md "Version lines"): the line and, on each file, its line and number.
 * Named after the migrations it follows, so databases that already ran those apply it too.
 */
export class Migration20261125220000 extends Migration {
  override name = 'Migration20261125220000';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "library_version_lines" ("id" serial primary key, "team_id" int not null, "cover_file_id" int not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(
      `alter table "library_version_lines" add constraint "library_version_lines_team_id_foreign" foreign key ("team_id") references "teams" ("id");`,
    );
    this.addSql(`alter table "library_files" add "version_line_id" int null, add "version_number" int null;`);
    this.addSql(`create index "library_files_version_line_index" on "library_files" ("version_line_id") where "version_line_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "library_files_version_line_index";`);
    this.addSql(`alter table "library_files" drop column "version_line_id", drop column "version_number";`);
    this.addSql(`drop table if exists "library_version_lines" cascade;`);
  }
}
