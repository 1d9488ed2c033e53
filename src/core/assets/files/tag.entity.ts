import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LibraryFile } from './library-file.entity.ts';
import { LIBRARY_FILE_TAGS_TRIGGERS } from '../search/search-triggers.ts';

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

/** A tag on a library file; (team, tag, file) serves search by tag ids (spec 4.6 `tags`). */
export const LibraryFileTag = defineEntity({
  name: 'LibraryFileTag',
  tableName: 'library_file_tags',
  indexes: [{ properties: ['team', 'tag', 'file'] }],
  // keep library_files.tag_names (DEEP keywords) and the library version in step (docs/search.md)
  triggers: LIBRARY_FILE_TAGS_TRIGGERS,
  properties: {
    file: () => p.manyToOne(LibraryFile).primary(),
    tag: () => p.manyToOne(LibraryTag).primary(),
    team: () => p.manyToOne(Team),
  },
});
