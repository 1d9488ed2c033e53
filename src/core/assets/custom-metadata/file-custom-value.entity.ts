import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LibraryFile } from '../files/library-file.entity.ts';
import { LIBRARY_FILE_CUSTOM_VALUES_TRIGGERS } from '../search/search-triggers.ts';
import { LibraryCustomField } from './custom-field.entity.ts';
import { LibraryCustomFieldTemplate } from './custom-field-template.entity.ts';

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
