import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { LibraryFile } from '../files/library-file.entity.ts';

/**
 * Each live file's lower-cased name, and nothing else (asset lookup, docs/products.md "Asset
 * lookup"): a trigram match of a name substring must recheck every candidate row, and on
 * library_files each recheck reads a wide row (237 MB for 1,000,000 files, more than shared
 * buffers), where this table is a quarter of that. Kept by a trigger on library_files; a deleted
 * file has no row. bench/RESULTS-catalogue-reads.md has the measurements.
 */
export const LibraryFileName = defineEntity({
  name: 'LibraryFileName',
  tableName: 'library_file_names',
  indexes: [
    {
      name: 'library_file_names_trgm',
      expression: 'create index "library_file_names_trgm" on "library_file_names" using gin ("lname" gin_trgm_ops)',
    },
  ],
  properties: {
    file: () => p.manyToOne(LibraryFile).primary().deleteRule('cascade'),
    team: () => p.manyToOne(Team),
    /** lower(name) */
    lname: p.text(),
  },
});
