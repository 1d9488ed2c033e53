import type { TeamScope } from '../../platform/ctx.ts';
import { int, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { IN_LIVE_SUBTREE } from '../folders/folders.queries.ts';
import { NARROW_NAME_MATCHES } from './file-names.queries.ts';

/*
 * Statements of asset lookup (asset-lookup.ts, docs/products.md "Asset lookup"): the team's live
 * files by name, folder, extension, content hash or ids. Every statement names the team.
 */

/** One file of a lookup page. */
export interface LookupRow {
  id: number;
  assetId: number;
  name: string;
  folderPath: string;
}

/** A lookup's folder filter: files directly in the root, in a folder, or in a folder's live subtree. */
export type LookupFolder = 'root' | { id: number; recursive: boolean };

/** What a lookup matches; null fields do not filter. */
export interface LookupFilter {
  /** A LIKE pattern on the lower-cased name (escaped with `\`). */
  namePattern: string | null;
  folder: LookupFolder | null;
  /** Lower-case, without the dot. */
  extension: string | null;
  /** Lower-case hex. */
  sha256: string | null;
  ids: readonly number[] | null;
}

/** A lookup's conditions on library files (`f`, with its folder `d`) and their parameters. */
export interface LookupMatches {
  readonly where: readonly string[];
  readonly params: readonly unknown[];
}

/** The team's live files a lookup filter matches. */
export function lookupMatches(scope: TeamScope, filter: LookupFilter): LookupMatches {
  const where: string[] = ['f.team_id = ?', 'f.deleted_at is null'];
  const params: unknown[] = [scope.teamId];
  if (filter.namePattern !== null) {
    where.push(`lower(f.name) like ? escape '\\'`);
    params.push(filter.namePattern);
  }
  if (filter.folder === 'root') where.push('f.folder_id is null');
  else if (filter.folder?.recursive) {
    where.push(IN_LIVE_SUBTREE);
    params.push(scope.teamId, filter.folder.id);
  } else if (filter.folder) {
    where.push('f.folder_id = ?');
    params.push(filter.folder.id);
  }
  if (filter.extension !== null) {
    where.push('f.extension = ?');
    params.push(filter.extension);
  }
  if (filter.sha256 !== null) {
    where.push('f.object_id = (select o.id from stored_objects o where o.team_id = f.team_id and o.sha256 = ?)');
    params.push(filter.sha256);
  }
  if (filter.ids !== null) {
    where.push('f.id = any(?::int[])');
    params.push(intArray(filter.ids));
  }
  return { where, params };
}

/** Names what a lookup matches, for memos of its count. */
export function lookupMatchesKey(matches: LookupMatches): string {
  return `asset-lookup|${JSON.stringify([matches.where, matches.params])}`;
}

/** The live files of the team matching conditions, with their folders. */
const filesWhere = (conditions: readonly string[]) =>
  `from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id where ${conditions.join(' and ')}`;

/** A page, in id order, of the files `from` (a filesWhere) gives; its last two parameters are the limit and offset. */
const pageSql = (from: string) => `select f.id, f.object_id as "assetId", f.name, coalesce(d.path, '/') as "folderPath" ${from} order by f.id limit ? offset ?`;

function lookupRowOf(row: Record<string, unknown>): LookupRow {
  return { id: int(row.id, 'id'), assetId: int(row.assetId, 'assetId'), name: text(row.name, 'name'), folderPath: text(row.folderPath, 'folderPath') };
}

async function lookupRows(scope: TeamScope, sql: string, params: unknown[]): Promise<LookupRow[]> {
  return (await queryRows<Record<string, unknown>>(scope, sql, params)).map(lookupRowOf);
}

/** How many files a lookup matches: an exact count, reading every match. */
export async function countLookupMatches(scope: TeamScope, matches: LookupMatches): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, `select count(*)::int as n ${filesWhere(matches.where)}`, [...matches.params]);
  return int(row!.n, 'n');
}

/** A page of a lookup's matches, in id order. */
export async function lookupPage(scope: TeamScope, matches: LookupMatches, limit: number, offset: number): Promise<LookupRow[]> {
  return lookupRows(scope, pageSql(filesWhere(matches.where)), [...matches.params, limit, offset]);
}

/** The lookup rows of the team's live files among `ids` (at most `limit`), in id order. */
export async function lookupRowsByIds(scope: TeamScope, ids: Int32Array, limit: number): Promise<LookupRow[]> {
  const from = filesWhere(['f.id = any(?::int[])', 'f.team_id = ?', 'f.deleted_at is null']);
  return lookupRows(scope, pageSql(from), [`{${ids.join(',')}}`, scope.teamId, limit, 0]);
}

/**
 * A page of the live files whose name is like a pattern, read by id from the narrow name table's
 * matches: for a name with few matches.
 */
export async function lookupPageByNameMatches(scope: TeamScope, namePattern: string, limit: number, offset: number): Promise<LookupRow[]> {
  const from = filesWhere([`f.id = any(array(select n.file_id ${NARROW_NAME_MATCHES}))`, 'f.team_id = ?', 'f.deleted_at is null']);
  return lookupRows(scope, pageSql(from), [scope.teamId, namePattern, scope.teamId, limit, offset]);
}

/**
 * A page of the live files whose name is like a pattern, walking the narrow name table in id
 * order: for a name with many matches, which fill a page within a few pages' rows.
 */
export async function lookupPageByNameWalk(scope: TeamScope, namePattern: string, limit: number, offset: number): Promise<LookupRow[]> {
  const from = filesWhere([
    `f.id = any(array(select n.file_id ${NARROW_NAME_MATCHES} order by n.file_id limit ? offset ?))`,
    'f.team_id = ?',
    'f.deleted_at is null',
  ]);
  return lookupRows(scope, pageSql(from), [scope.teamId, namePattern, limit, offset, scope.teamId, limit, 0]);
}
