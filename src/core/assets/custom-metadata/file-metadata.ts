import { requirePermission } from '../../access/roles.ts';
import { libraryEvents } from '../../events/library-events.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { SetFileMetadataInput, type FileMetadataView, type MetadataValueView } from './custom-metadata.schemas.ts';
import { lockLiveFile, markEdited } from '../files/edited-file.ts';
import { checkValues, refuseRepeatedFields } from './value-input.ts';
import { DEFINITION_COLUMNS, type FieldDefinition, type FieldValue } from './field-types.ts';

const checkInput = compileInput(SetFileMetadataInput);

/**
 * A file's custom metadata values (docs/library.md "Custom metadata and custom fields"): its
 * metadata record (the METADATA event's `recordId`, made with the first value) maps the team's
 * metadata fields to values. Setting values needs `library:edit`; each value is checked against
 * its field's type, and the whole call is refused (422, nothing changed) when any is wrong.
 */
export class FileMetadataService {
  /**
   * Sets or clears (null) some of a live file's metadata values; the others stay. Writes a METADATA
   * event with only the fields created or updated now; a call that changes nothing writes nothing.
   */
  async set(ctx: Ctx, fileId: number, input: unknown): Promise<FileMetadataView> {
    requirePermission(ctx, 'library:edit');
    const body = checkInput(input);
    const entries = body.values.map((entry) => ({ id: entry.fieldId, value: entry.value }));
    refuseRepeatedFields(entries, 'fieldId');
    return inTransaction(ctx, async (tx) => {
      await lockLiveFile(tx, tx.teamId, fileId);
      const definitions = await queryRows<FieldDefinition>(
        tx,
        `select ${DEFINITION_COLUMNS} from library_metadata_fields where team_id = ? and id = any(?::int[])`,
        [tx.teamId, intArray(body.values.map((v) => v.fieldId))],
      );
      const wanted = checkValues(entries, definitions, 'fieldId', 'is not a metadata field of the team');

      const record = await queryOne<{ id: number; values: Record<string, FieldValue> }>(
        tx,
        'select id, values from library_metadata_records where team_id = ? and file_id = ?',
        [tx.teamId, fileId],
      );
      const values = { ...(record?.values ?? {}) };
      const changed: Record<string, FieldValue | null> = {};
      for (const { definition, value } of wanted) {
        const key = String(definition.id);
        if (value === null) {
          if (key in values) {
            delete values[key];
            changed[definition.name] = null;
          }
        } else if (values[key] !== value) {
          values[key] = value;
          changed[definition.name] = value;
        }
      }
      if (Object.keys(changed).length > 0) {
        const recordId = record
          ? (await queryOne<{ id: number }>(
              tx,
              'update library_metadata_records set values = ?::jsonb, updated_at = now() where id = ? and team_id = ? returning id',
              [JSON.stringify(values), record.id, tx.teamId],
            ))!.id
          : (await queryOne<{ id: number }>(tx, 'insert into library_metadata_records (team_id, file_id, values) values (?, ?, ?::jsonb) returning id', [
              tx.teamId,
              fileId,
              JSON.stringify(values),
            ]))!.id;
        await markEdited(tx, fileId);
        await libraryEvents.metadataChanged(tx, { materialId: fileId, recordId, metadata: changed });
      }
      return (await this.forFiles(tx, [fileId]))[0]!;
    });
  }

  /** The metadata of files of the caller's team among `ids` (GraphQL loader), one view per id, values by field name. */
  async forFiles(ctx: TeamScope, ids: readonly number[]): Promise<FileMetadataView[]> {
    const rows = await queryRows<{
      fileId: number;
      recordId: number;
      fieldId: number | null;
      name: string;
      type: MetadataValueView['type'];
      value: FieldValue;
    }>(
      ctx,
      `select r.file_id as "fileId", r.id as "recordId", d.id as "fieldId", d.name, d.type, e.value
         from library_metadata_records r
         left join lateral jsonb_each(r.values) e on true
         left join library_metadata_fields d on d.team_id = r.team_id and d.id = e.key::int
        where r.team_id = ? and r.file_id = any(?::int[])
        order by r.file_id, d.name, d.id`,
      [ctx.teamId, intArray(ids)],
    );
    const views = new Map<number, FileMetadataView>(ids.map((id) => [id, { materialId: id, recordId: null, values: [] }]));
    for (const row of rows) {
      const view = views.get(row.fileId)!;
      view.recordId = row.recordId;
      if (row.fieldId !== null) view.values.push({ fieldId: row.fieldId, name: row.name, type: row.type, value: row.value });
    }
    return [...views.values()];
  }
}
