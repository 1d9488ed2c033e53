import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';
import { LibraryFolder } from '../folders/folder.entity.ts';
import { SEARCH_INDEXES } from '../search/search-indexes.ts';
import { LIBRARY_FILES_TRIGGERS } from '../search/search-triggers.ts';
import { StoredObject } from '../storage/stored-object.entity.ts';

/**
 * A library file: one placement of a stored object in a folder (null = the library root). Its id
 * is the file-path ID (spec 2.1) that product media and search results carry.
 *
 * The object's immutable facts (MIME type, byte size, width, height, duration) are copied here so
 * asset search (spec 4.6) filters and sorts one table; they cannot drift because objects never
 * change.
 */
export const LibraryFile = defineEntity({
  name: 'LibraryFile',
  tableName: 'library_files',
  indexes: [
    { properties: ['team', 'folder', 'id'] },
    { properties: ['team', 'updatedAt', 'id'] },
    { properties: ['object'] },
    // asset search (spec 4.6): one index per filter and sort, chosen by measurement (docs/search.md)
    ...SEARCH_INDEXES,
    {
      name: 'library_files_version_line_index',
      expression: 'create index "library_files_version_line_index" on "library_files" ("version_line_id") where "version_line_id" is not null',
    },
    {
      name: 'library_files_recycle_entry_index',
      expression: 'create index "library_files_recycle_entry_index" on "library_files" ("recycle_entry_id") where "recycle_entry_id" is not null',
    },
    // the daily validity check (file-validity.service.ts) visits only files that have a validity period
    {
      name: 'library_files_validity_index',
      expression:
        'create index "library_files_validity_index" on "library_files" ("id") where "deleted_at" is null and ("validity_start" is not null or "validity_end" is not null)',
    },
  ],
  // the products sync feed's trigger, logging products whose media changed, is declared by its
  // owner (catalogue/products/product-change-triggers.ts), after these
  triggers: [...LIBRARY_FILES_TRIGGERS],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    folder: () => p.manyToOne(LibraryFolder).nullable(),
    object: () => p.manyToOne(StoredObject),
    name: p.string().length(255),
    /** Lower-case, without the dot: from the name, or from the content when the name has none. */
    extension: p.string().length(32).nullable(),
    mimeType: p.string().length(255),
    byteSize: p.bigint(),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    durationMs: p.bigint().nullable(),
    description: p.text().nullable(),
    score: p.smallint().nullable(),
    link: p.string().length(2048).nullable(),
    /** 1 web, 2 upload, 3 copy (spec 2.6). */
    source: p.smallint().default(2),
    owner: () => p.manyToOne(Member).nullable(),
    creator: () => p.manyToOne(Member).nullable(),
    createUser: () => p.manyToOne(Member).nullable(),
    updateUser: () => p.manyToOne(Member).nullable(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
    /** The recycle-bin entry that took this file (docs/library.md "Recycle bin"); null while live. */
    recycleEntryId: p.integer().nullable(),
    /** The version line this file is a version of (docs/library.md "Version lines"), and its number there (1, 2, ...). */
    versionLineId: p.integer().nullable(),
    versionNumber: p.integer().nullable(),
    /** Image analysis (AssetItem imageContentAnalysis, spec 2.6): set by operators and GraphQL, never by a model here. */
    aiTags: p.text().nullable(),
    aiTitle: p.text().nullable(),
    aiDescription: p.text().nullable(),
    /** A JSON array. */
    aiDetailedDescription: p.json().columnType('jsonb').nullable(),
    /** The file's tag names, space-separated; kept by a trigger on library_file_tags (docs/search.md). */
    tagNames: p.text().default(''),
    /** The file's tag ids, ascending; kept by the same trigger, so a tags search is one GIN-indexed array condition (docs/search.md). */
    tagIds: p.array().columnType('int[]').defaultRaw("'{}'"),
    /** Validity period (docs/library.md "Validity"): valid from `validityStart` (null: always) until `validityEnd` (null: permanent). */
    validityStart: p.datetime().columnType('timestamptz').nullable(),
    validityEnd: p.datetime().columnType('timestamptz').nullable(),
    /** The status as of the last change or daily check: 0 valid, 1 not yet valid, 2 expired; a change of it is a VALIDITY event. */
    validityStatus: p.smallint().default(0),
  },
});
