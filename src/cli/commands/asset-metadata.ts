import { CustomFieldTemplateService } from '../../core/assets/custom-metadata/custom-field-template.service.ts';
import { FileCustomFieldService } from '../../core/assets/custom-metadata/file-custom-field.service.ts';
import { FileMetadataService } from '../../core/assets/custom-metadata/file-metadata.service.ts';
import { MetadataFieldService } from '../../core/assets/custom-metadata/metadata-field.service.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import { invalid } from '../../core/platform/errors.ts';
import { asMember, asTeam, idFlag, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/**
 * Operator commands for custom metadata and custom fields (docs/library.md "Custom metadata and
 * custom fields"). Definitions are the team's administration: the operator names the team
 * (`--team`) and acts for it as the system. Values are file edits: the operator acts as the member
 * `--user`, as `asset validity` does. The four services take no collaborators.
 */

/** A JSON flag, or 422 naming it. */
function jsonFlag(value: string | boolean | undefined, field: string, what: string): unknown {
  if (typeof value !== 'string') throw invalid(field, `is required: ${what}`);
  try {
    return JSON.parse(value);
  } catch {
    throw invalid(field, `must be ${what}`);
  }
}

/** `--values '{"<id>": value, ...}'` as the core's list of `{<idKey>, value}` (a key that is not a number is passed on for the core to refuse). */
function valuesFlag(value: string | boolean | undefined, idKey: 'fieldId' | 'customFieldId'): Array<Record<string, unknown>> {
  const what = 'a JSON object mapping ids to values (null clears)';
  const parsed = jsonFlag(value, 'values', what);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('values', `must be ${what}`);
  return Object.entries(parsed).map(([key, v]) => ({ [idKey]: /^\d+$/.test(key) ? Number(key) : key, value: v }));
}

export const handlers: Handlers<'asset-metadata'> = {
  'asset metadata-field create': async (cli, flags) =>
    new MetadataFieldService().create(await asTeam(cli, flags), {
      name: flags.name,
      type: flags.type,
      ...(flags.options === undefined ? {} : { options: typeof flags.options === 'string' ? flags.options.split(',') : flags.options }),
    }),
  'asset metadata-field list': async (cli, flags) => ({ fields: await new MetadataFieldService().list(await asTeam(cli, flags)) }),
  'asset field-template create': async (cli, flags) =>
    new CustomFieldTemplateService().create(await asTeam(cli, flags), {
      name: flags.name,
      fields: jsonFlag(flags.fields, 'fields', 'a JSON array of {name, type, options?}'),
    }),
  'asset field-template list': async (cli, flags) => {
    const ctx = await asTeam(cli, flags);
    // a page of templates may carry about 1 MB of options each: admitted against the command's answer (docs/cli.md "Large answers")
    const page = await new CustomFieldTemplateService().list(ctx, {
      page: numberFlag(flags.page) as number | undefined,
      pageSize: numberFlag(flags['page-size']) as number | undefined,
    });
    return { templates: (await collectPage(ctx, page)).items };
  },
  'asset metadata set': async (cli, flags) =>
    new FileMetadataService().set(await asMember(cli, flags), idFlag(flags.file), { values: valuesFlag(flags.values, 'fieldId') }),
  'asset custom-fields set': async (cli, flags) =>
    new FileCustomFieldService().set(await asMember(cli, flags), idFlag(flags.file), {
      templateId: numberFlag(flags.template),
      values: valuesFlag(flags.values, 'customFieldId'),
    }),
};
