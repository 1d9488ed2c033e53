import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

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
