import { Migration } from '@mikro-orm/migrations';

/** Indexes for the permanent delete's question "does any row still name this storage key?", and the bin's listing order. */
export class Migration20261125230000 extends Migration {
  override name = 'Migration20261125230000';

  override up(): void | Promise<void> {
    this.addSql(`create index "stored_objects_storage_key_index" on "stored_objects" ("storage_key");`);

    this.addSql(`drop index "library_recycle_entries_team_id_deleted_at_id_index";`);
    this.addSql(`create index "library_recycle_entries_team_id_id_index" on "library_recycle_entries" ("team_id", "id");`);

    this.addSql(`create index "library_pending_inbounds_storage_key_index" on "library_pending_inbounds" ("storage_key");`);

    this.addSql(`create index "approval_assets_storage_key_index" on "approval_assets" ("storage_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "approval_assets_storage_key_index";`);

    this.addSql(`drop index "library_pending_inbounds_storage_key_index";`);

    this.addSql(`drop index "library_recycle_entries_team_id_id_index";`);
    this.addSql(`create index "library_recycle_entries_team_id_deleted_at_id_index" on "library_recycle_entries" ("team_id", "deleted_at", "id");`);

    this.addSql(`drop index "stored_objects_storage_key_index";`);
  }
}
