import { Migration } from '@mikro-orm/migrations';

/**
 * A replayed event repeats the sequence its receivers first saw (docs/events.md: "a repeat is a
 * retry or a replay"). The replay still needs its own place in the endpoint's line to be sent in
 * order, so the sequence written into the body becomes its own column (null: the place), and the
 * line counts its replays so the next new event's body sequence follows the last one without a gap.
 */
export class Migration20261126190000 extends Migration {
  override name = 'Migration20261126190000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "body_sequence" bigint null;`);
    this.addSql(`alter table "webhook_delivery_lines" add column "replayed" bigint not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop column "body_sequence";`);
    this.addSql(`alter table "webhook_delivery_lines" drop column "replayed";`);
  }
}
