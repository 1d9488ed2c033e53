import { Migration } from '@mikro-orm/migrations';

/** An idempotent replay no longer keeps an HTTP status: the core returns none, and every create answers 201 (issue 12). */
export class Migration20261126000000 extends Migration {

  override name = 'Migration20261126000000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_records" drop column "response_status";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_records" add column "response_status" int not null default 201;`);
  }

}
