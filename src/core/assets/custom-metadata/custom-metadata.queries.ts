import type { SizedRow } from '../../platform/answer-budget.ts';
import type { TeamScope } from '../../platform/ctx.ts';
import { int, nullableInt, oneOf, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { CustomFieldTemplateView, CustomFieldView, MetadataFieldView, MetadataValueView } from './custom-metadata.schemas.ts';
import { FIELD_TYPES, type FieldDefinition, type FieldType, type FieldValue } from './field-types.ts';

/*
 * Statements on custom metadata (docs/library.md "Custom metadata and custom fields"): metadata
 * fields and files' metadata records (library_metadata_fields, library_metadata_records), custom
 * field templates with their fields and files' values of them (library_custom_field_templates,
 * library_custom_fields, library_file_custom_values). Every statement names the team.
 */

/** The columns of a definition (FieldDefinition) in `library_metadata_fields` and `library_custom_fields`. */
const DEFINITION_COLUMNS = 'id, name, type, options';

/** A definition's `options` (jsonb): a select's allowed values, null for the other types. */
function options(value: unknown, column: string): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw new Error(`column ${column}: expected a JSON array of strings or null, got ${JSON.stringify(value)}`);
  return value.map((option, i) => text(option, `${column}[${i}]`));
}

/** A stored value (jsonb): a string (text, select, date) or a number. */
function fieldValue(value: unknown, column: string): FieldValue {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
  throw new Error(`column ${column}: expected a JSON string or number, got ${JSON.stringify(value)}`);
}

function definitionOf(row: Record<string, unknown>): FieldDefinition {
  return { id: int(row.id, 'id'), name: text(row.name, 'name'), type: oneOf(FIELD_TYPES, row.type, 'type'), options: options(row.options, 'options') };
}

// metadata fields (library_metadata_fields)

const METADATA_FIELD_COLUMNS = `id, name, type, options, ${isoSql('created_at')} as "createdAt"`;

function metadataFieldOf(row: Record<string, unknown>): MetadataFieldView {
  return { ...definitionOf(row), createdAt: text(row.createdAt, 'createdAt') };
}

/** How many metadata fields the team has defined. */
export async function countMetadataFields(scope: TeamScope): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select count(*)::int as n from library_metadata_fields where team_id = ?', [scope.teamId]);
  return int(row!.n, 'n');
}

/** Defines a metadata field of the team; null when the team has one of that name. */
export async function insertMetadataField(tx: TeamScope, definition: Omit<FieldDefinition, 'id'>): Promise<MetadataFieldView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into library_metadata_fields (team_id, name, type, options) values (?, ?, ?, ?::jsonb)
     on conflict (team_id, name) do nothing returning ${METADATA_FIELD_COLUMNS}`,
    [tx.teamId, definition.name, definition.type, definition.options === null ? null : JSON.stringify(definition.options)],
  );
  return row && metadataFieldOf(row);
}

/** The team's metadata fields, by name. */
export async function listMetadataFields(scope: TeamScope): Promise<MetadataFieldView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${METADATA_FIELD_COLUMNS} from library_metadata_fields where team_id = ? order by name, id`,
    [scope.teamId],
  );
  return rows.map(metadataFieldOf);
}

/** The definitions of the team's metadata fields among `ids` (in no particular order). */
export async function metadataFieldDefinitions(scope: TeamScope, ids: readonly number[]): Promise<FieldDefinition[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${DEFINITION_COLUMNS} from library_metadata_fields where team_id = ? and id = any(?::int[])`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(definitionOf);
}

// files' metadata records (library_metadata_records)

/** A file's metadata record: its values by field id (as text). */
export interface MetadataRecord {
  id: number;
  values: Record<string, FieldValue>;
}

/** A record's `values` (jsonb): an object of stored values by field id. */
function recordValues(value: unknown, column: string): Record<string, FieldValue> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`column ${column}: expected a JSON object, got ${JSON.stringify(value)}`);
  const values: Record<string, FieldValue> = {};
  for (const [key, item] of Object.entries(value)) values[key] = fieldValue(item, `${column}.${key}`);
  return values;
}

/** A file's metadata record, or null before its first value. */
export async function metadataRecordOf(scope: TeamScope, fileId: number): Promise<MetadataRecord | null> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select id, values from library_metadata_records where team_id = ? and file_id = ?', [
    scope.teamId,
    fileId,
  ]);
  return row && { id: int(row.id, 'id'), values: recordValues(row.values, 'values') };
}

/** Replaces a metadata record's values; the record's id. */
export async function updateMetadataRecord(tx: TeamScope, recordId: number, values: Record<string, FieldValue>): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'update library_metadata_records set values = ?::jsonb, updated_at = now() where id = ? and team_id = ? returning id',
    [JSON.stringify(values), recordId, tx.teamId],
  );
  return int(row!.id, 'id');
}

/** Makes a file's metadata record with its first values; the record's id. */
export async function insertMetadataRecord(tx: TeamScope, fileId: number, values: Record<string, FieldValue>): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'insert into library_metadata_records (team_id, file_id, values) values (?, ?, ?::jsonb) returning id',
    [tx.teamId, fileId, JSON.stringify(values)],
  );
  return int(row!.id, 'id');
}

/** One value of a file's metadata record with its field; a record without values gives one row with `value` null. */
export interface FileMetadataRow {
  fileId: number;
  recordId: number;
  value: MetadataValueView | null;
}

/** The metadata records of the team's files among `ids`, one row per value, by file then field name. */
export async function metadataOfFiles(scope: TeamScope, ids: readonly number[]): Promise<FileMetadataRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select r.file_id as "fileId", r.id as "recordId", d.id as "fieldId", d.name, d.type, e.value
       from library_metadata_records r
       left join lateral jsonb_each(r.values) e on true
       left join library_metadata_fields d on d.team_id = r.team_id and d.id = e.key::int
      where r.team_id = ? and r.file_id = any(?::int[])
      order by r.file_id, d.name, d.id`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map((row) => {
    const fieldId = nullableInt(row.fieldId, 'fieldId');
    return {
      fileId: int(row.fileId, 'fileId'),
      recordId: int(row.recordId, 'recordId'),
      value:
        fieldId === null ? null : { fieldId, name: text(row.name, 'name'), type: oneOf(FIELD_TYPES, row.type, 'type'), value: fieldValue(row.value, 'value') },
    };
  });
}

// custom field templates and their fields (library_custom_field_templates, library_custom_fields)

const CUSTOM_FIELD_COLUMNS = 'id, template_id as "templateId", name, type, options, position';

/** How many custom field templates the team has defined. */
export async function countTemplates(scope: TeamScope): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select count(*)::int as n from library_custom_field_templates where team_id = ?', [scope.teamId]);
  return int(row!.n, 'n');
}

/** Defines a template of the team; its id, or null when the team has one of that name. */
export async function insertTemplate(tx: TeamScope, name: string): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'insert into library_custom_field_templates (team_id, name) values (?, ?) on conflict (team_id, name) do nothing returning id',
    [tx.teamId, name],
  );
  return row && int(row.id, 'id');
}

/** Stores a template's custom fields, positioned in the order given. */
export async function insertTemplateFields(tx: TeamScope, templateId: number, fields: readonly Omit<FieldDefinition, 'id'>[]): Promise<void> {
  await queryRows(
    tx,
    `insert into library_custom_fields (team_id, template_id, name, type, options, position)
     select ?, ?, f.name, f.type, f.options, f.position from jsonb_to_recordset(?::jsonb) as f(name text, type text, options jsonb, position int)`,
    [tx.teamId, templateId, JSON.stringify(fields.map((field, position) => ({ ...field, position })))],
  );
}

/**
 * The team's templates by name from `offset` (at most `limit`): their ids and the stored size of
 * their fields' names and options (read by templatesAmong and fieldsOfTemplates, batch by batch).
 */
export async function sizedTemplatesByName(scope: TeamScope, limit: number, offset: number): Promise<SizedRow<number>[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select t.id, octet_length(t.name) + coalesce((select sum(octet_length(f.name) + coalesce(octet_length(f.options::text), 0))
                                                   from library_custom_fields f where f.team_id = t.team_id and f.template_id = t.id), 0)::int as bytes
       from library_custom_field_templates t where t.team_id = ? order by t.name, t.id limit ? offset ?`,
    [scope.teamId, limit, offset],
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), storedBytes: int(row.bytes, 'bytes') }));
}

/** The stored size of the team's metadata fields' names and options (the list's heavy part). */
export async function metadataFieldsBytes(scope: TeamScope): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    'select coalesce(sum(octet_length(name) + coalesce(octet_length(options::text), 0)), 0)::int as bytes from library_metadata_fields where team_id = ?',
    [scope.teamId],
  );
  return int(row!.bytes, 'bytes');
}

/** The team's templates among `ids`, without their fields, in no particular order. */
export async function templatesAmong(scope: TeamScope, ids: readonly number[]): Promise<Omit<CustomFieldTemplateView, 'fields'>[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select id, name, ${isoSql('created_at')} as "createdAt" from library_custom_field_templates where team_id = ? and id = any(?::int[])`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), name: text(row.name, 'name'), createdAt: text(row.createdAt, 'createdAt') }));
}

/** The custom fields of the team's templates among `templateIds`, by template then position. */
export async function fieldsOfTemplates(scope: TeamScope, templateIds: readonly number[]): Promise<CustomFieldView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${CUSTOM_FIELD_COLUMNS} from library_custom_fields where team_id = ? and template_id = any(?::int[]) order by template_id, position`,
    [scope.teamId, intArray(templateIds)],
  );
  return rows.map((row) => ({
    id: int(row.id, 'id'),
    templateId: int(row.templateId, 'templateId'),
    name: text(row.name, 'name'),
    type: oneOf(FIELD_TYPES, row.type, 'type'),
    options: options(row.options, 'options'),
    position: int(row.position, 'position'),
  }));
}

/** The name of a template of the team, or null when the team has no such template. */
export async function templateName(scope: TeamScope, templateId: number): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select name from library_custom_field_templates where id = ? and team_id = ?', [
    templateId,
    scope.teamId,
  ]);
  return row && text(row.name, 'name');
}

/** Whether the team has a template with this id. */
export async function templateExists(scope: TeamScope, templateId: number): Promise<boolean> {
  const row = await queryOne(scope, 'select id from library_custom_field_templates where id = ? and team_id = ?', [templateId, scope.teamId]);
  return row !== null;
}

/** The definitions of a template's custom fields (in no particular order). */
export async function templateFieldDefinitions(scope: TeamScope, templateId: number): Promise<FieldDefinition[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${DEFINITION_COLUMNS} from library_custom_fields where team_id = ? and template_id = ?`,
    [scope.teamId, templateId],
  );
  return rows.map(definitionOf);
}

// files' values of custom fields (library_file_custom_values)

/** A file's values of one template's custom fields, by custom field id. */
export async function fileTemplateValues(scope: TeamScope, fileId: number, templateId: number): Promise<Map<number, FieldValue>> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    'select field_id as "fieldId", value from library_file_custom_values where team_id = ? and file_id = ? and template_id = ?',
    [scope.teamId, fileId, templateId],
  );
  return new Map(rows.map((row) => [int(row.fieldId, 'fieldId'), fieldValue(row.value, 'value')]));
}

/** Clears a file's values of these custom fields. */
export async function deleteFileCustomValues(tx: TeamScope, fileId: number, fieldIds: readonly number[]): Promise<void> {
  await queryRows(tx, 'delete from library_file_custom_values where team_id = ? and file_id = ? and field_id = any(?::int[])', [
    tx.teamId,
    fileId,
    intArray(fieldIds),
  ]);
}

/** Sets a file's values of custom fields of one template (replacing the values it had). */
export async function upsertFileCustomValues(
  tx: TeamScope,
  fileId: number,
  templateId: number,
  values: readonly { fieldId: number; value: FieldValue }[],
): Promise<void> {
  await queryRows(
    tx,
    `insert into library_file_custom_values (file_id, field_id, team_id, template_id, value)
     select ?, v.field_id, ?, ?, v.value from jsonb_to_recordset(?::jsonb) as v(field_id int, value jsonb)
     on conflict (file_id, field_id) do update set value = excluded.value, updated_at = now()`,
    [fileId, tx.teamId, templateId, JSON.stringify(values.map((s) => ({ field_id: s.fieldId, value: s.value })))],
  );
}

/** One custom field value of a file, with its template and custom field. */
export interface FileCustomValueRow {
  fileId: number;
  templateId: number;
  templateName: string;
  customFieldId: number;
  name: string;
  type: FieldType;
  value: FieldValue;
}

/** The custom field values of the team's files among `ids` (only `templateId`'s unless null), by file, template name and position. */
export async function customValuesOfFiles(scope: TeamScope, ids: readonly number[], templateId: number | null): Promise<FileCustomValueRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select v.file_id as "fileId", t.id as "templateId", t.name as "templateName", d.id as "customFieldId", d.name, d.type, v.value
       from library_file_custom_values v
       join library_custom_fields d on d.id = v.field_id and d.team_id = v.team_id
       join library_custom_field_templates t on t.id = v.template_id and t.team_id = v.team_id
      where v.team_id = ? and v.file_id = any(?::int[]) and (?::int is null or v.template_id = ?)
      order by v.file_id, t.name, t.id, d.position`,
    [scope.teamId, intArray(ids), templateId, templateId],
  );
  return rows.map((row) => ({
    fileId: int(row.fileId, 'fileId'),
    templateId: int(row.templateId, 'templateId'),
    templateName: text(row.templateName, 'templateName'),
    customFieldId: int(row.customFieldId, 'customFieldId'),
    name: text(row.name, 'name'),
    type: oneOf(FIELD_TYPES, row.type, 'type'),
    value: fieldValue(row.value, 'value'),
  }));
}
