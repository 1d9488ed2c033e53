import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency-Key for slow creates (createApproval downloads its assets before it creates): the key
 * is claimed by a committed record that is pending until this time, so a concurrent request with
 * the key waits for it instead of downloading again. Nullable with no default: existing records and
 * those of the previous release during a rolling deploy have an outcome and stay replayable.
 */
export class Migration20261126024500 extends Migration {
  override name = 'Migration20261126024500';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_records" add column "pending_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_records" drop column "pending_until";`);
  }
}
