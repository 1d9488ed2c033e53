import { Migration } from '@mikro-orm/migrations';

/**
 * Room on each page of a delivery's and a line's rows for their next versions. The relay's queued
 * mark on a delivery and a line's unfinished count change no indexed column, so PostgreSQL can
 * update them in place on the same page (a HOT update: no new entry in any index), but only where
 * the page has room; filled to the brim as they were, every such update wrote a new entry into six
 * of the deliveries' seven indexes. bench/RESULTS-webhooks.md: all 20,000 queued marks of a round
 * became HOT (10,900-14,000 before) and PostgreSQL's CPU per delivery fell from 111-139 to 98-125 us.
 */
export class Migration20261127053000 extends Migration {
  override name = 'Migration20261127053000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" set (fillfactor = 70);`);
    this.addSql(`alter table "webhook_delivery_lines" set (fillfactor = 70);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" reset (fillfactor);`);
    this.addSql(`alter table "webhook_delivery_lines" reset (fillfactor);`);
  }
}
