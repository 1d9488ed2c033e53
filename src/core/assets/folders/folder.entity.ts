import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';
import { LIBRARY_FOLDERS_TRIGGERS } from '../search/search-triggers.ts';

/**
 * A folder of a team's library (a tree per team). `path` holds the names from the root ("/a/b")
 * and `pathIds` the folder ids from the root down to this folder, so "everything under folder X"
 * (asset search `parentId`, spec 4.6) is one GIN-indexed `path_ids @> {X}` and `parentIds` of an
 * AssetItem (spec 2.6) needs no recursive query.
 */
export const LibraryFolder = defineEntity({
  name: 'LibraryFolder',
  tableName: 'library_folders',
  indexes: [
    // sibling names are unique among live folders; root folders share the parent "0"
    {
      name: 'library_folders_live_sibling_name_unique',
      expression:
        'create unique index "library_folders_live_sibling_name_unique" on "library_folders" ("team_id", coalesce("parent_id", 0), "name") where "deleted_at" is null',
    },
    {
      name: 'library_folders_recycle_entry_index',
      expression: 'create index "library_folders_recycle_entry_index" on "library_folders" ("recycle_entry_id") where "recycle_entry_id" is not null',
    },
    {
      name: 'library_folders_path_ids_gin',
      expression: 'create index "library_folders_path_ids_gin" on "library_folders" using gin ("path_ids")',
    },
  ],
  // search keys its memo of totals by the library version these raise (docs/search.md)
  triggers: LIBRARY_FOLDERS_TRIGGERS,
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    parent: () => p.manyToOne(LibraryFolder).nullable(),
    name: p.string().length(255),
    path: p.text(),
    pathIds: p.array().columnType('int[]'),
    createUser: () => p.manyToOne(Member).nullable(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
    /** The recycle-bin entry that took this folder (docs/library.md "Recycle bin"); null while live. */
    recycleEntryId: p.integer().nullable(),
  },
});
