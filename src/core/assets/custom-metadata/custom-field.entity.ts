import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { LibraryCustomFieldTemplate } from './custom-field-template.entity.ts';

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
