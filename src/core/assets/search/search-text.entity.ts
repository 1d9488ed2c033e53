import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { LibraryFile } from '../files/library-file.entity.ts';

/**
 * What DEEP keywords search (docs/search.md): for each live file, its name, description, tag
 * names and analysis fields, lower-cased, in a narrow table of its own. A trigger on library_files
 * keeps it (a row per live file; a deleted file has none), so whoever writes a file cannot forget
 * it. Being narrow (about 120 bytes a row against about 290 for library_files) makes the trigram
 * recheck of an exact count read less than half the pages, and a keyword-only count needs no
 * other table.
 */
export const LibrarySearchText = defineEntity({
  name: 'LibrarySearchText',
  tableName: 'library_search_texts',
  indexes: [
    {
      name: 'library_search_texts_trgm',
      expression: 'create index "library_search_texts_trgm" on "library_search_texts" using gin ("search_text" gin_trgm_ops)',
    },
    // a DEEP-only keyword search in creation order (the default) walks this and tests each row's
    // text from the index itself: no other table, and no heap read per row (docs/search.md)
    {
      name: 'library_search_texts_team_created',
      expression: 'create index "library_search_texts_team_created" on "library_search_texts" ("team_id", "created_at", "file_id") include ("search_text")',
    },
  ],
  properties: {
    file: () => p.manyToOne(LibraryFile).primary().deleteRule('cascade'),
    team: () => p.manyToOne(Team),
    searchText: p.text(),
    /** The file's creation time, copied by the trigger: the default sort of a DEEP-only search. */
    createdAt: p.datetime().columnType('timestamptz'),
  },
});
