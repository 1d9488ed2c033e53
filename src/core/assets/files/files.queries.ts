import type { TeamScope } from '../../platform/ctx.ts';
import { jsonList, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { ASSET_ROW_COLUMNS, type AssetRow } from '../search/asset-items.ts';

/* Statements on library files (library_files) with their folder and tags. */

/**
 * A file as the events describe it, read in the write's transaction: the columns an AssetItem is
 * built from (one projection for both), with its folder and its tags as parallel arrays.
 */
export interface FileFacts extends Omit<AssetRow, 'tags'> {
  folderId: number | null;
  tagIds: number[];
  tagNames: string[];
}

const FACTS_SQL = `select ${ASSET_ROW_COLUMNS}, f.folder_id as "folderId",
    -- one order (the tag id) for both arrays: tagIds[i] names tagNames[i]
    coalesce((select array_agg(t.id order by t.id) from library_tags t where t.team_id = f.team_id and t.id = any(f.tag_ids)), '{}') as "tagIds",
    coalesce((select array_agg(t.name order by t.id) from library_tags t where t.team_id = f.team_id and t.id = any(f.tag_ids)), '{}') as "tagNames"
  from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
 where f.team_id = ? and f.id = ?`;

/** The id arrays as numbers (whatever the driver gave their items as), after checking they are arrays. */
function factsOf(row: FileFacts): FileFacts {
  return {
    ...row,
    parentIds: jsonList(row.parentIds, 'parentIds').map(Number),
    tagIds: jsonList(row.tagIds, 'tagIds').map(Number),
    tagNames: jsonList(row.tagNames, 'tagNames').map((name, i) => text(name, `tagNames[${i}]`)),
  };
}

/** Reads a file of the scope's team as the events describe it (null when it is not the team's). */
export async function fileFacts(scope: TeamScope, fileId: number): Promise<FileFacts | null> {
  const row = await queryOne<FileFacts>(scope, FACTS_SQL, [scope.teamId, fileId]);
  return row && factsOf(row);
}

/** Reads files of the scope's team as the events describe them, in id order (ids of other teams are left out). */
export async function filesFacts(scope: TeamScope, fileIds: readonly number[]): Promise<FileFacts[]> {
  const rows = await queryRows<FileFacts>(scope, `${FACTS_SQL.replace('f.id = ?', 'f.id = any(?::int[])')} order by f.id`, [scope.teamId, intArray(fileIds)]);
  return rows.map(factsOf);
}
