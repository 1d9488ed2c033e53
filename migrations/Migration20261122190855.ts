import { Migration } from '@mikro-orm/migrations';

export class Migration20261122190855 extends Migration {
  override name = 'Migration20261122190855';

  override up(): void | Promise<void> {
    this.addSql(`create index "library_files_live_folder_created" on "library_files" ("team_id", "folder_id", "created_at", "id") where "deleted_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "library_files_live_folder_created";`);
  }
}
