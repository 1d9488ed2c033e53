import { requirePermission } from '../../access/roles.ts';
import { libraryEvents } from '../../events/library-events.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { notFound } from '../../platform/errors.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { SetFileCustomFieldsInput, type CustomValueView, type FileTemplateValuesView } from './custom-metadata.schemas.ts';
import { lockLiveFile, markEdited } from '../files/edited-file.ts';
import { checkValues, refuseRepeatedFields } from './value-input.ts';
import { DEFINITION_COLUMNS, type FieldDefinition, type FieldValue } from './field-types.ts';

const checkInput = compileInput(SetFileCustomFieldsInput);

/**
 * A file's values of custom fields, per template (docs/library.md "Custom metadata and custom
 * fields"). A file carries a template while it has a value of one of its fields; search-assets'
 * customFieldTemplateIds and customFieldId find files by these rows. Setting values needs
 * `library:edit`; each value is checked against its custom field's type, and the whole call is
 * refused (422, nothing changed) when any is wrong.
 */
export class FileCustomFieldService {
  /**
   * Sets or clears (null) some of a live file's values of one template's custom fields; the others
   * stay. 404 not_found for a template or file that is not the team's. Writes a CUSTOM_FIELD event
   * with only the custom fields set or cleared now; a call that changes nothing writes nothing.
   */
  async set(ctx: Ctx, fileId: number, input: unknown): Promise<FileTemplateValuesView> {
    requirePermission(ctx, 'library:edit');
    const body = checkInput(input);
    const entries = body.values.map((entry) => ({ id: entry.customFieldId, value: entry.value }));
    refuseRepeatedFields(entries, 'customFieldId');
    return inTransaction(ctx, async (tx) => {
      const template = await queryOne<{ id: number }>(tx, 'select id from library_custom_field_templates where id = ? and team_id = ?', [
        body.templateId,
        tx.teamId,
      ]);
      if (!template) throw notFound('Custom field template');
      await lockLiveFile(tx, tx.teamId, fileId);
      const definitions = await queryRows<FieldDefinition>(
        tx,
        `select ${DEFINITION_COLUMNS} from library_custom_fields where team_id = ? and template_id = ?`,
        [tx.teamId, template.id],
      );
      const wanted = checkValues(entries, definitions, 'customFieldId', `is not a custom field of template ${template.id}`);

      const current = await queryRows<{ fieldId: number; value: FieldValue }>(
        tx,
        'select field_id as "fieldId", value from library_file_custom_values where team_id = ? and file_id = ? and template_id = ?',
        [tx.teamId, fileId, template.id],
      );
      const before = new Map(current.map((row) => [row.fieldId, row.value]));
      const changed: Record<string, FieldValue | null> = {};
      const cleared: number[] = [];
      const set: Array<{ fieldId: number; value: FieldValue }> = [];
      for (const { definition, value } of wanted) {
        if (value === null) {
          if (before.has(definition.id)) {
            cleared.push(definition.id);
            changed[String(definition.id)] = null;
          }
        } else if (before.get(definition.id) !== value) {
          set.push({ fieldId: definition.id, value });
          changed[String(definition.id)] = value;
        }
      }
      if (cleared.length > 0) {
        await queryRows(tx, 'delete from library_file_custom_values where team_id = ? and file_id = ? and field_id = any(?::int[])', [
          tx.teamId,
          fileId,
          intArray(cleared),
        ]);
      }
      if (set.length > 0) {
        await queryRows(
          tx,
          `insert into library_file_custom_values (file_id, field_id, team_id, template_id, value)
           select ?, v.field_id, ?, ?, v.value from jsonb_to_recordset(?::jsonb) as v(field_id int, value jsonb)
           on conflict (file_id, field_id) do update set value = excluded.value, updated_at = now()`,
          [fileId, tx.teamId, template.id, JSON.stringify(set.map((s) => ({ field_id: s.fieldId, value: s.value })))],
        );
      }
      if (Object.keys(changed).length > 0) {
        await markEdited(tx, fileId);
        await libraryEvents.customFieldsChanged(tx, { materialId: fileId, customFields: [{ [String(template.id)]: changed }] });
      }
      return (await this.forFiles(tx, [fileId], template.id))[0] ?? (await this.emptyView(tx, fileId, template.id));
    });
  }

  /**
   * The custom field values of files of the caller's team among `ids` (GraphQL loader): per file,
   * one view per template it carries (by template name), or only `templateId`'s.
   */
  async forFiles(ctx: TeamScope, ids: readonly number[], templateId?: number): Promise<FileTemplateValuesView[]> {
    const rows = await queryRows<{ fileId: number; templateId: number; templateName: string } & CustomValueView>(
      ctx,
      `select v.file_id as "fileId", t.id as "templateId", t.name as "templateName", d.id as "customFieldId", d.name, d.type, v.value
         from library_file_custom_values v
         join library_custom_fields d on d.id = v.field_id and d.team_id = v.team_id
         join library_custom_field_templates t on t.id = v.template_id and t.team_id = v.team_id
        where v.team_id = ? and v.file_id = any(?::int[]) and (?::int is null or v.template_id = ?)
        order by v.file_id, t.name, t.id, d.position`,
      [ctx.teamId, intArray(ids), templateId ?? null, templateId ?? null],
    );
    const views: FileTemplateValuesView[] = [];
    for (const row of rows) {
      let view = views.at(-1);
      if (!view || view.materialId !== row.fileId || view.templateId !== row.templateId) {
        view = { materialId: row.fileId, templateId: row.templateId, templateName: row.templateName, values: [] };
        views.push(view);
      }
      view.values.push({ customFieldId: row.customFieldId, name: row.name, type: row.type, value: row.value });
    }
    return views;
  }

  private async emptyView(ctx: TeamScope, fileId: number, templateId: number): Promise<FileTemplateValuesView> {
    const template = (await queryOne<{ name: string }>(ctx, 'select name from library_custom_field_templates where id = ? and team_id = ?', [
      templateId,
      ctx.teamId,
    ]))!;
    return { materialId: fileId, templateId, templateName: template.name, values: [] };
  }
}
