import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

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
