import { Migration } from '@mikro-orm/migrations';

/** File validity periods (docs/library.md "Validity"); adding columns with constant defaults rewrites no rows. */
export class Migration20261125172957 extends Migration {
  override name = 'Migration20261125172957';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "library_files" add "validity_start" timestamptz null, add "validity_end" timestamptz null, add "validity_status" smallint not null default 0;`,
    );
    this.addSql(
      `create index "library_files_validity_index" on "library_files" ("id") where "deleted_at" is null and ("validity_start" is not null or "validity_end" is not null);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "library_files_validity_index";`);
    this.addSql(`alter table "library_files" drop column "validity_start", drop column "validity_end", drop column "validity_status";`);
  }
}
