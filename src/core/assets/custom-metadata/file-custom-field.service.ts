import { requirePermission } from '../../access/roles.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { notFound } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { lockLiveFile, markEdited } from '../files/edited-file.ts';
import { libraryEvents } from '../files/library-events.ts';
import {
  customValuesOfFiles,
  deleteFileCustomValues,
  fileTemplateValues,
  templateExists,
  templateFieldDefinitions,
  templateName,
  upsertFileCustomValues,
} from './custom-metadata.queries.ts';
import { type FileTemplateValuesView, SetFileCustomFieldsInput } from './custom-metadata.schemas.ts';
import type { FieldValue } from './field-types.ts';
import { checkValues, refuseRepeatedFields } from './value-input.ts';

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
      const templateId = body.templateId;
      if (!(await templateExists(tx, templateId))) throw notFound('Custom field template');
      await lockLiveFile(tx, tx.teamId, fileId);
      const definitions = await templateFieldDefinitions(tx, templateId);
      const wanted = checkValues(entries, definitions, 'customFieldId', `is not a custom field of template ${templateId}`);

      const before = await fileTemplateValues(tx, fileId, templateId);
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
      if (cleared.length > 0) await deleteFileCustomValues(tx, fileId, cleared);
      if (set.length > 0) await upsertFileCustomValues(tx, fileId, templateId, set);
      if (Object.keys(changed).length > 0) {
        await markEdited(tx, fileId);
        await libraryEvents.customFieldsChanged(tx, { materialId: fileId, customFields: [{ [String(templateId)]: changed }] });
      }
      return (await this.forFiles(tx, [fileId], templateId))[0] ?? (await this.emptyView(tx, fileId, templateId));
    });
  }

  /**
   * The custom field values of files of the caller's team among `ids` (GraphQL loader): per file,
   * one view per template it carries (by template name), or only `templateId`'s.
   */
  async forFiles(ctx: TeamScope, ids: readonly number[], templateId?: number): Promise<FileTemplateValuesView[]> {
    const rows = await customValuesOfFiles(ctx, ids, templateId ?? null);
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
    const name = (await templateName(ctx, templateId))!;
    return { materialId: fileId, templateId, templateName: name, values: [] };
  }
}
