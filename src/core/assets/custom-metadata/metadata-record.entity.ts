import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LibraryFile } from '../files/library-file.entity.ts';

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
