import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { LIBRARY_FILE_TAGS_TRIGGERS } from '../search/search-triggers.ts';
import { LibraryFile } from './library-file.entity.ts';
import { LibraryTag } from './tag.entity.ts';

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
