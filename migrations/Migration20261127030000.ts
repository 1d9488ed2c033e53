import { Migration } from '@mikro-orm/migrations';

/**
 * A stored object's palette goes with the object when the recycle bin purges it: the schema says
 * so instead of the recycle bin deleting the search area's rows (stored_object_colours) first.
 */
export class Migration20261127030000 extends Migration {
  override name = 'Migration20261127030000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "stored_object_colours" drop constraint "stored_object_colours_object_id_foreign";`);
    this.addSql(
      `alter table "stored_object_colours" add constraint "stored_object_colours_object_id_foreign" foreign key ("object_id") references "stored_objects" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "stored_object_colours" drop constraint "stored_object_colours_object_id_foreign";`);
    this.addSql(
      `alter table "stored_object_colours" add constraint "stored_object_colours_object_id_foreign" foreign key ("object_id") references "stored_objects" ("id") on update no action on delete no action;`,
    );
  }
}
