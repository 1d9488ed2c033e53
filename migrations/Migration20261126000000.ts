import { Migration } from '@mikro-orm/migrations';

/**
 * An idempotent replay no longer keeps an HTTP status: the core returns none, and every create
 * answers 201 (the REST adapter decides the status). The column stays, with a default, because processes of the previous
 * release still insert and read it during a rolling deploy (new processes migrate at start while
 * old ones serve); it can be dropped in the release after this one.
 */
export class Migration20261126000000 extends Migration {
  override name = 'Migration20261126000000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_records" alter column "response_status" set default 201;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_records" alter column "response_status" drop default;`);
  }
}
