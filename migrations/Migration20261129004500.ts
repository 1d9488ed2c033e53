import { Migration } from '@mikro-orm/migrations';

/**
 * An upload's pieces are appended to one object (src/core/assets/uploads/upload-pieces.ts): what the
 * store needs to continue it (an S3 multipart upload's id and parts) is kept in its row.
 */
export class Migration20261129004500 extends Migration {
  override name = 'Migration20261129004500';

  override up(): void | Promise<void> {
    this.addSql(`alter table "library_uploads" add column "store_state" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "library_uploads" drop column "store_state";`);
  }
}
