import { Migration } from '@mikro-orm/migrations';

/**
 * A folder's shares and folder subscriptions go with the folder when the recycle bin purges it: the
 * schema says so instead of the recycle bin deleting other areas' rows (a subscription's folder was
 * set to null before, which would have left a folder subscription without its folder).
 */
export class Migration20261126233305 extends Migration {
  override name = 'Migration20261126233305';

  override up(): void | Promise<void> {
    this.addSql(`alter table "library_shares" drop constraint "library_shares_folder_id_foreign";`);

    this.addSql(`alter table "event_subscriptions" drop constraint "event_subscriptions_folder_id_foreign";`);

    this.addSql(
      `alter table "library_shares" add constraint "library_shares_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "event_subscriptions" add constraint "event_subscriptions_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "event_subscriptions" drop constraint "event_subscriptions_folder_id_foreign";`);

    this.addSql(`alter table "library_shares" drop constraint "library_shares_folder_id_foreign";`);

    this.addSql(
      `alter table "event_subscriptions" add constraint "event_subscriptions_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on update no action on delete set null;`,
    );

    this.addSql(
      `alter table "library_shares" add constraint "library_shares_folder_id_foreign" foreign key ("folder_id") references "library_folders" ("id") on update no action on delete no action;`,
    );
  }
}
