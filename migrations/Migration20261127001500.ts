import { Migration } from '@mikro-orm/migrations';

/**
 * Template upgrades (docs/products.md "Template upgrades"): the live products pinned to one template
 * version, by id, so the bulk preview pages through them and counts them without reading the
 * team's other products; and a history action long enough for `template_upgraded` (32, as the
 * activity records' action; widening a varchar rewrites nothing).
 */
export class Migration20261127001500 extends Migration {
  override name = 'Migration20261127001500';

  override up(): void | Promise<void> {
    this.addSql(`create index "products_live_template_version" on "products" ("team_id", "template_version_id", "id") where "deleted_at" is null;`);
    this.addSql(`alter table "product_history" alter column "action" type varchar(32);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "products_live_template_version";`);
    this.addSql(`alter table "product_history" alter column "action" type varchar(16);`);
  }
}
