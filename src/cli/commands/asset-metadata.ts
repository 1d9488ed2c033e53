import { invalid } from '../../core/platform/errors.ts';
import { asMember, asTeam, idFlag, numberFlag, type CliCommand } from '../command.ts';

/**
 * Operator commands for custom metadata and custom fields (docs/library.md "Custom metadata and
 * custom fields"). Definitions are the team's administration: the operator names the team
 * (`--team`) and acts for it as the system. Values are file edits: the operator acts as the member
 * `--user`, as `asset validity` does.
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

export const assetMetadataCommands: Record<string, CliCommand> = {
  /** `asset metadata-field create --team T --name N --type text|number|date|select [--options a,b]` → the field. */
  'asset metadata-field create': {
    flags: { team: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, options: { type: 'string' } },
    run: async (core, flags) =>
      core.assets.customMetadata.fields.create(await asTeam(core, flags), {
        name: flags.name,
        type: flags.type,
        ...(flags.options === undefined ? {} : { options: typeof flags.options === 'string' ? flags.options.split(',') : flags.options }),
      }),
  },
  /** `asset metadata-field list --team T` → `{"fields": [...]}`. */
  'asset metadata-field list': {
    flags: { team: { type: 'string' } },
    run: async (core, flags) => ({ fields: await core.assets.customMetadata.fields.list(await asTeam(core, flags)) }),
  },
  /** `asset field-template create --team T --name N --fields '[{"name","type","options"?}, ...]'` → the template with its fields. */
  'asset field-template create': {
    flags: { team: { type: 'string' }, name: { type: 'string' }, fields: { type: 'string' } },
    run: async (core, flags) =>
      core.assets.customMetadata.templates.create(await asTeam(core, flags), { name: flags.name, fields: jsonFlag(flags.fields, 'fields', 'a JSON array of {name, type, options?}') }),
  },
  /** `asset field-template list --team T` → `{"templates": [...]}`. */
  'asset field-template list': {
    flags: { team: { type: 'string' } },
    run: async (core, flags) => ({ templates: await core.assets.customMetadata.templates.list(await asTeam(core, flags)) }),
  },
  /** `asset metadata set --user U --file F --values '{"<fieldId>": value}'` → the file's metadata. */
  'asset metadata set': {
    flags: { user: { type: 'string' }, file: { type: 'string' }, values: { type: 'string' } },
    run: async (core, flags) => core.assets.customMetadata.fileMetadata.set(await asMember(core, flags), idFlag(flags.file), { values: valuesFlag(flags.values, 'fieldId') }),
  },
  /** `asset custom-fields set --user U --file F --template T --values '{"<customFieldId>": value}'` → the file's values of the template. */
  'asset custom-fields set': {
    flags: { user: { type: 'string' }, file: { type: 'string' }, template: { type: 'string' }, values: { type: 'string' } },
    run: async (core, flags) =>
      core.assets.customMetadata.fileCustomFields.set(await asMember(core, flags), idFlag(flags.file), { templateId: numberFlag(flags.template), values: valuesFlag(flags.values, 'customFieldId') }),
  },
};
