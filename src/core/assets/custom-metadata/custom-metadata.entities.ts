import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LibraryFile } from '../files/library-file.entity.ts';
import { LIBRARY_FILE_CUSTOM_VALUES_TRIGGERS } from '../search/search-triggers.ts';

/**
 * A custom metadata field a team defines (docs/library.md "Custom metadata and custom fields"):
 * typed text, number, date or select (with its options); names unique per team.
 */
export const LibraryMetadataField = defineEntity({
  name: 'LibraryMetadataField',
  tableName: 'library_metadata_fields',
  uniques: [{ name: 'library_metadata_fields_team_id_name_unique', properties: ['team', 'name'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    name: p.string().length(64),
    /** text, number, date or select (field-types.ts). */
    type: p.string().length(8),
    /** The allowed values of a select field (a JSON array of strings); null for the other types. */
    options: p.json().columnType('jsonb').nullable(),
    createdAt: dbTimestamp(),
  },
});

/**
 * A file's metadata record (the METADATA event's `recordId`): one per file, made when the file gets
 * its first value; `values` maps metadata field ids (as strings) to values.
 */
export const LibraryMetadataRecord = defineEntity({
  name: 'LibraryMetadataRecord',
  tableName: 'library_metadata_records',
  uniques: [{ name: 'library_metadata_records_file_id_unique', properties: ['file'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    file: () => p.manyToOne(LibraryFile).deleteRule('cascade'),
    values: p.json().columnType('jsonb').defaultRaw(`'{}'`),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
  },
});

/** A custom field template of a team: a named set of custom fields; names unique per team. */
export const LibraryCustomFieldTemplate = defineEntity({
  name: 'LibraryCustomFieldTemplate',
  tableName: 'library_custom_field_templates',
  uniques: [{ name: 'library_custom_field_templates_team_id_name_unique', properties: ['team', 'name'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    name: p.string().length(64),
    createdAt: dbTimestamp(),
  },
});

/** One custom field of a template; its id is search-assets' `customFieldId`. Names unique within the template. */
export const LibraryCustomField = defineEntity({
  name: 'LibraryCustomField',
  tableName: 'library_custom_fields',
  uniques: [{ name: 'library_custom_fields_template_id_name_unique', properties: ['template', 'name'] }],
  indexes: [{ properties: ['team', 'template'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    template: () => p.manyToOne(LibraryCustomFieldTemplate).deleteRule('cascade'),
    name: p.string().length(64),
    type: p.string().length(8),
    options: p.json().columnType('jsonb').nullable(),
    /** The field's place in its template, from 0. */
    position: p.smallint(),
  },
});

/**
 * A file's value of one custom field (the template is copied from the field). search-assets finds
 * the files carrying any of some templates through (team, template, file), and those with a value
 * for a custom field through (team, field, file); a change raises the library version (search's
 * memo of totals).
 */
export const LibraryFileCustomValue = defineEntity({
  name: 'LibraryFileCustomValue',
  tableName: 'library_file_custom_values',
  indexes: [{ properties: ['team', 'template', 'file'] }, { properties: ['team', 'field', 'file'] }],
  triggers: LIBRARY_FILE_CUSTOM_VALUES_TRIGGERS,
  properties: {
    file: () => p.manyToOne(LibraryFile).primary().deleteRule('cascade'),
    field: () => p.manyToOne(LibraryCustomField).primary().deleteRule('cascade'),
    team: () => p.manyToOne(Team),
    template: () => p.manyToOne(LibraryCustomFieldTemplate).deleteRule('cascade'),
    value: p.json().columnType('jsonb'),
    updatedAt: dbTimestamp(),
  },
});

export const CUSTOM_METADATA_ENTITIES = [LibraryMetadataField, LibraryMetadataRecord, LibraryCustomFieldTemplate, LibraryCustomField, LibraryFileCustomValue];
