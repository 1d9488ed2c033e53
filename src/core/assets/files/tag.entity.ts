import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/** A tag of a team's library (search returns TagDTO {id, name}, spec 2.6); names unique per team. */
export const LibraryTag = defineEntity({
  name: 'LibraryTag',
  tableName: 'library_tags',
  uniques: [{ name: 'library_tags_team_id_name_unique', properties: ['team', 'name'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    name: p.string().length(64),
    createdAt: dbTimestamp(),
  },
});
