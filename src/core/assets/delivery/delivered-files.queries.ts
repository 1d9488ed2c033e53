import type { UnitOfWork } from '../../platform/ctx.ts';
import { nullableInt, text } from '../../platform/row-checks.ts';
import { queryOne } from '../../platform/sql.ts';

/*
 * Statements of file delivery (file-delivery.ts): what a signed link's file is, with the stored
 * object whose bytes it sends.
 */

/** A live file as delivery sends it: its name, and its stored object's facts and key. */
export interface DeliveredFile {
  name: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  sha256: string;
  storageKey: string;
}

/** The live file `fileId` of team `teamId` (the link's, not a caller's scope: the signature is the credential); null when there is none. */
export async function deliveredFile(op: UnitOfWork, teamId: number, fileId: number): Promise<DeliveredFile | null> {
  const row = await queryOne<Record<string, unknown>>(
    op,
    `select f.name, o.mime_type as "mimeType", o.width, o.height, o.sha256, o.storage_key as "storageKey"
       from library_files f join stored_objects o on o.id = f.object_id and o.team_id = f.team_id
      where f.id = ? and f.team_id = ? and f.deleted_at is null`,
    [fileId, teamId],
  );
  return (
    row && {
      name: text(row.name, 'name'),
      mimeType: text(row.mimeType, 'mimeType'),
      width: nullableInt(row.width, 'width'),
      height: nullableInt(row.height, 'height'),
      sha256: text(row.sha256, 'sha256'),
      storageKey: text(row.storageKey, 'storageKey'),
    }
  );
}
