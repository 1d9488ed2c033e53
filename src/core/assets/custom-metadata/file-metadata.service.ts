import { requirePermission } from '../../access/roles.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { lockLiveFile, markEdited } from '../files/edited-file.ts';
import { libraryEvents } from '../files/library-events.ts';
import { insertMetadataRecord, metadataFieldDefinitions, metadataOfFiles, metadataRecordOf, updateMetadataRecord } from './custom-metadata.queries.ts';
import { type FileMetadataView, SetFileMetadataInput } from './custom-metadata.schemas.ts';
import type { FieldValue } from './field-types.ts';
import { checkValues, refuseRepeatedFields } from './value-input.ts';

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
      const definitions = await metadataFieldDefinitions(
        tx,
        body.values.map((v) => v.fieldId),
      );
      const wanted = checkValues(entries, definitions, 'fieldId', 'is not a metadata field of the team');

      const record = await metadataRecordOf(tx, fileId);
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
        const recordId = record ? await updateMetadataRecord(tx, record.id, values) : await insertMetadataRecord(tx, fileId, values);
        await markEdited(tx, fileId);
        await libraryEvents.metadataChanged(tx, { materialId: fileId, recordId, metadata: changed });
      }
      return (await this.forFiles(tx, [fileId]))[0]!;
    });
  }

  /** The metadata of files of the caller's team among `ids` (GraphQL loader), one view per id, values by field name. */
  async forFiles(ctx: TeamScope, ids: readonly number[]): Promise<FileMetadataView[]> {
    const rows = await metadataOfFiles(ctx, ids);
    const views = new Map<number, FileMetadataView>(ids.map((id) => [id, { materialId: id, recordId: null, values: [] }]));
    for (const row of rows) {
      const view = views.get(row.fileId)!;
      view.recordId = row.recordId;
      if (row.value !== null) view.values.push(row.value);
    }
    return [...views.values()];
  }
}
