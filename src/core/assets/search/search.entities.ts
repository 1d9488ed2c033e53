import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LibraryFolder } from '../folders/folder.entity.ts';
import { StoredObject } from '../storage/stored-object.entity.ts';
import { LibraryFile } from '../files/library-file.entity.ts';
import { LibraryTag } from '../files/tag.entity.ts';
import { LIBRARY_FOLDER_MEMBERS_TRIGGERS, STORED_OBJECT_COLOURS_TRIGGERS } from './search-triggers.ts';

/**
 * One dominant colour of a stored object's image (colour search, docs/search.md): CIELAB
 * coordinates and the share of the image area it covers, in percent. Computed once at import;
 * the bytes never change, so neither does the palette. The GiST index on (team, L, a, b) as a cube
 * finds the colours near a requested one with a box query; the exact ΔE check follows.
 */
export const StoredObjectColour = defineEntity({
  name: 'StoredObjectColour',
  tableName: 'stored_object_colours',
  indexes: [
    {
      name: 'stored_object_colours_team_lab_gist',
      expression:
        'create index "stored_object_colours_team_lab_gist" on "stored_object_colours" using gist (cube(array["team_id", "l", "a", "b"]::float8[]))',
    },
  ],
  triggers: STORED_OBJECT_COLOURS_TRIGGERS,
  properties: {
    object: () => p.manyToOne(StoredObject).primary(),
    position: p.smallint().primary(),
    team: () => p.manyToOne(Team),
    l: p.float().columnType('real'),
    a: p.float().columnType('real'),
    b: p.float().columnType('real'),
    rgb: p.string().length(6),
    share: p.float().columnType('real'),
  },
});

/**
 * A share of a folder (search-share, spec 4.6): the token is stored only as its SHA-256 and the
 * optional password only as an scrypt hash. Whoever holds the token (and password) reaches that
 * folder's subtree and nothing else.
 */
export const LibraryShare = defineEntity({
  name: 'LibraryShare',
  tableName: 'library_shares',
  uniques: [{ name: 'library_shares_token_hash_unique', properties: ['tokenHash'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    // a share goes with its folder when the recycle bin purges it
    folder: () => p.manyToOne(LibraryFolder).deleteRule('cascade'),
    tokenHash: p.string().length(64),
    passwordHash: p.text().nullable(),
    createdAt: dbTimestamp(),
  },
});

/**
 * A member's access to a folder and its subtree (search-assets `currentUserId`, docs/search.md): a
 * member may access the files they own and the files under the folders they belong to.
 */
export const LibraryFolderMember = defineEntity({
  name: 'LibraryFolderMember',
  tableName: 'library_folder_members',
  indexes: [{ properties: ['team', 'member'] }],
  triggers: LIBRARY_FOLDER_MEMBERS_TRIGGERS,
  properties: {
    folder: () => p.manyToOne(LibraryFolder).primary(),
    member: () => p.manyToOne(Member).primary(),
    team: () => p.manyToOne(Team),
    createdAt: dbTimestamp(),
  },
});

/**
 * A counter per team that triggers raise on every change to the team's files, tags, folders,
 * palettes and folder members: search keys its memo of exact totals by it (docs/search.md).
 */
export const LibraryVersion = defineEntity({
  name: 'LibraryVersion',
  tableName: 'library_versions',
  properties: {
    team: () => p.manyToOne(Team).primary(),
    version: p.bigint().default(1),
  },
});

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

/**
 * A tag's postings (tags searches, docs/search.md): one row per live file and tag it carries, with
 * the file's creation time and all its tag ids, kept by a trigger on library_files (a deleted file
 * has none). An AND of tags in creation order walks the postings of its rarest tag, newest first,
 * and tests each entry's tag ids from the index itself: with two popular tags of 1,000,000 files a
 * page reads 205-3,578 index entries (0.1-0.7 ms), where walking every file newest first read
 * 10,000-45,000 (1.3-6 ms) and the GIN index decoded both tags' whole posting lists (2 ms).
 */
export const LibraryTagPosting = defineEntity({
  name: 'LibraryTagPosting',
  tableName: 'library_tag_postings',
  indexes: [
    {
      name: 'library_tag_postings_walk',
      expression:
        'create index "library_tag_postings_walk" on "library_tag_postings" ("team_id", "tag_id", "created_at", "file_id") include ("tag_ids")',
    },
  ],
  properties: {
    file: () => p.manyToOne(LibraryFile).primary().deleteRule('cascade'),
    tag: () => p.manyToOne(LibraryTag).primary().deleteRule('cascade'),
    team: () => p.manyToOne(Team),
    /** The file's creation time: the order a page walks. */
    createdAt: p.datetime().columnType('timestamptz'),
    /** All the file's tag ids, so the other tags of an AND are tested without reading the file. */
    tagIds: p.array().columnType('int[]'),
  },
});

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
