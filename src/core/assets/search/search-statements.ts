import { ASSET_ROW_COLUMNS, ASSET_TAGS_COLUMN } from './asset-items.ts';
import type { AssetSearchPlan } from './search-filter.ts';
import { deepOnlyCount, orderByOf, whereOf, type ResolvedFilter, type SqlFragment } from './search-sql.ts';

/** Above this many extensions a SIZE search is one scan, not one branch per extension. */
const MAX_EXTENSION_BRANCHES = 20;
/**
 * Up to this many folders, a parentId search in creation order is one branch per folder. A larger
 * subtree holds a large share of the files, so walking the creation-time index finds a page soon.
 */
export const MAX_FOLDER_BRANCHES = 32;

/**
 * A parentId search in creation order over a small subtree: one branch per folder, each reading
 * the (team, folder, created_at, id) index in order and stopping after offset + limit rows,
 * merged by creation time. As one scan the planner walks the creation-time index and tests the
 * folder of every file: for a second-level folder of the benchmark (0.5 % of 1,000,000 files)
 * 10,500 files for a page at startPoint 40, 25 ms; the branches read at most 50 index entries each.
 */
function folderBranchPage(teamId: number, plan: AssetSearchPlan, resolved: ResolvedFilter): SqlFragment | null {
  const folders = resolved.subtreeFolderIds;
  if (plan.order.name !== 'CREATE_TIME' || !folders || folders.length === 0 || folders.length > MAX_FOLDER_BRANCHES) return null;
  const rest = whereOf(teamId, { ...plan.filter, parentId: undefined }, resolved);
  const orderBy = orderByOf(plan.order);
  const reach = plan.page.offset + plan.page.limit;
  const branch = `(select f.id, f.created_at from library_files f where ${rest.sql} and f.folder_id = ? order by ${orderBy} limit ?)`;
  const dir = plan.order.direction === 'ASC' ? 'asc' : 'desc';
  return {
    sql: `select u.id from (${folders.map(() => branch).join(' union all ')}) u order by u.created_at ${dir}, u.id ${dir} limit ? offset ?`,
    params: [...folders.flatMap((folder) => [...rest.params, folder, reach]), plan.page.limit, plan.page.offset],
  };
}

/**
 * The ids of the page. Usually one statement the planner may serve by walking a sort index. A
 * search by extensions sorted by SIZE is one branch per extension instead, each reading the
 * (team, extension, byte_size, id) index in order and stopping after offset + limit rows, merged by
 * size: a single scan could only walk the size index and filter extensions row by row, which read
 * 150,000 rows (7 s under load) for an extension with no file in the size range (docs/search.md).
 */
function pageIds(teamId: number, plan: AssetSearchPlan, resolved: ResolvedFilter): SqlFragment {
  const orderBy = orderByOf(plan.order);
  const byFolder = folderBranchPage(teamId, plan, resolved);
  if (byFolder) return byFolder;
  const extensions = plan.filter.extensions;
  if (plan.order.name !== 'SIZE' || !extensions || extensions.length > MAX_EXTENSION_BRANCHES) {
    const where = whereOf(teamId, plan.filter, resolved);
    return { sql: `select f.id from library_files f where ${where.sql} order by ${orderBy} limit ? offset ?`, params: [...where.params, plan.page.limit, plan.page.offset] };
  }
  const rest = whereOf(teamId, { ...plan.filter, extensions: undefined }, resolved);
  const reach = plan.page.offset + plan.page.limit;
  const branch = `(select f.id, f.byte_size from library_files f where ${rest.sql} and f.extension = ? order by ${orderBy} limit ?)`;
  const dir = plan.order.direction === 'ASC' ? 'asc' : 'desc';
  return {
    sql: `select u.id from (${extensions.map(() => branch).join(' union all ')}) u order by u.byte_size ${dir}, u.id ${dir} limit ? offset ?`,
    params: [...extensions.flatMap((extension) => [...rest.params, extension, reach]), plan.page.limit, plan.page.offset],
  };
}

/** The page and count statements of a planned search; the benchmark runs the very same SQL bare. */
export function searchStatements(teamId: number, plan: AssetSearchPlan, resolved: ResolvedFilter = {}, includeTags = true): { page: SqlFragment; count: SqlFragment } {
  const ids = pageIds(teamId, plan, resolved);
  const where = whereOf(teamId, plan.filter, resolved);
  return {
    page: {
      sql: `with page as materialized (${ids.sql})
       select ${ASSET_ROW_COLUMNS}${includeTags ? `, ${ASSET_TAGS_COLUMN}` : ''}
         from page join library_files f on f.id = page.id
         left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
        order by ${orderByOf(plan.order)}`,
      params: ids.params,
    },
    count: deepOnlyCount(teamId, plan.filter) ?? { sql: `select count(*)::float8 as n from library_files f where ${where.sql}`, params: where.params },
  };
}
