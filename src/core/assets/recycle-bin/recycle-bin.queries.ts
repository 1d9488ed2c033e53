import type { TeamScope } from '../../platform/ctx.ts';
import { bool, int, intList, nullableInt, oneOf, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { RECYCLE_ENTRY_KINDS, type RecycleEntryKind, type RecycleEntryView } from './recycle-bin.schemas.ts';
import type { StoredBytes } from './stored-bytes.ts';

/*
 * Statements of the recycle bin (docs/library.md "Recycle bin"): its entries
 * (library_recycle_entries), and the files, folders, version lines and stored objects an entry
 * takes, gives back or removes for good. Every statement names the team.
 */

/** An entry as the bin's operations see it. */
export interface EntryRow {
  id: number;
  kind: RecycleEntryKind;
  fileId: number | null;
  folderId: number | null;
}

/** A folder as restoring one sees it. */
export interface FolderRow {
  id: number;
  name: string;
  parentId: number | null;
  path: string;
  pathIds: number[];
}

const ENTRY_COLUMNS = 'id, kind, file_id as "fileId", folder_id as "folderId"';

const ENTRY_VIEW = `e.id, e.kind, e.file_id as "fileId", e.folder_id as "folderId", e.name, e.original_path as "originalPath",
  (select count(*)::int from library_files f where f.team_id = e.team_id and f.recycle_entry_id = e.id) as "fileCount",
  e.deleted_by_id as "deletedBy", ${isoSql('e.deleted_at')} as "deletedAt"`;

function entryOf(row: Record<string, unknown>): EntryRow {
  return {
    id: int(row.id, 'id'),
    kind: oneOf(RECYCLE_ENTRY_KINDS, row.kind, 'kind'),
    fileId: nullableInt(row.fileId, 'fileId'),
    folderId: nullableInt(row.folderId, 'folderId'),
  };
}

function entryViewOf(row: Record<string, unknown>): RecycleEntryView {
  return {
    ...entryOf(row),
    name: text(row.name, 'name'),
    originalPath: text(row.originalPath, 'originalPath'),
    fileCount: int(row.fileCount, 'fileCount'),
    deletedBy: nullableInt(row.deletedBy, 'deletedBy'),
    deletedAt: text(row.deletedAt, 'deletedAt'),
  };
}

const ids = (rows: Record<string, unknown>[]): number[] => rows.map((row) => int(row.id, 'id'));

/**
 * The hidden versions of the version lines of `fileIds` (docs/library.md "Version lines"), locked:
 * a line goes into the bin, and comes back, with its cover.
 */
export async function lockHiddenVersionsOf(tx: TeamScope, fileIds: readonly number[]): Promise<number[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select id from library_files
      where team_id = ? and deleted_at is not null and recycle_entry_id is null
        and version_line_id in (select version_line_id from library_files where team_id = ? and id = any(?::int[]) and version_line_id is not null)
      order by id for update`,
    [tx.teamId, tx.teamId, intArray(fileIds)],
  );
  return ids(rows);
}

/** A file's name and the folder path it is in ("/" for the root), as its bin entry records them; `condition` narrows and locks. */
async function nameAndPlace(tx: TeamScope, fileId: number, condition: string): Promise<{ name: string; folderPath: string } | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select f.name, coalesce(d.path, '/') as "folderPath" from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
      where f.id = ? and f.team_id = ? ${condition}`,
    [fileId, tx.teamId],
  );
  return row && { name: text(row.name, 'name'), folderPath: text(row.folderPath, 'folderPath') };
}

/** A live file's name and folder path (nameAndPlace), the file locked; null when it is not a live file of the team. */
export function lockLiveFileNameAndPlace(tx: TeamScope, fileId: number): Promise<{ name: string; folderPath: string } | null> {
  return nameAndPlace(tx, fileId, 'and f.deleted_at is null for update of f');
}

/** A file's name and folder path (nameAndPlace), whatever its state; the caller holds its lock. */
export function fileNameAndPlace(tx: TeamScope, fileId: number): Promise<{ name: string; folderPath: string } | null> {
  return nameAndPlace(tx, fileId, '');
}

/** A live folder of the team, locked; null when there is none. */
export async function lockLiveFolder(tx: TeamScope, folderId: number): Promise<{ id: number; name: string; path: string } | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select id, name, path from library_folders where id = ? and team_id = ? and deleted_at is null for update`,
    [folderId, tx.teamId],
  );
  return row && { id: int(row.id, 'id'), name: text(row.name, 'name'), path: text(row.path, 'path') };
}

/** The live folders of the subtree under `folderId` (itself included), locked in id order. */
export async function lockLiveSubtreeFolderIds(tx: TeamScope, folderId: number): Promise<number[]> {
  return ids(
    await queryRows<Record<string, unknown>>(
      tx,
      'select id from library_folders where team_id = ? and path_ids @> array[?]::int[] and deleted_at is null order by id for update',
      [tx.teamId, folderId],
    ),
  );
}

/** The live files in `folderIds`, locked in id order. */
export async function lockLiveFileIdsIn(tx: TeamScope, folderIds: readonly number[]): Promise<number[]> {
  return ids(
    await queryRows<Record<string, unknown>>(
      tx,
      'select id from library_files where team_id = ? and folder_id = any(?::int[]) and deleted_at is null order by id for update',
      [tx.teamId, intArray(folderIds)],
    ),
  );
}

/** Marks folders as taken by an entry. */
export async function takeFolders(tx: TeamScope, entryId: number, folderIds: readonly number[]): Promise<void> {
  await queryRows(tx, 'update library_folders set deleted_at = now(), recycle_entry_id = ?, updated_at = now() where team_id = ? and id = any(?::int[])', [
    entryId,
    tx.teamId,
    intArray(folderIds),
  ]);
}

/** Marks files as taken by an entry, by the member `memberId` (null: the system); a hidden version keeps the time it was hidden. */
export async function takeFiles(tx: TeamScope, entryId: number, memberId: number | null, fileIds: readonly number[]): Promise<void> {
  await queryRows(
    tx,
    'update library_files set deleted_at = coalesce(deleted_at, now()), recycle_entry_id = ?, update_user_id = ?, updated_at = now() where team_id = ? and id = any(?::int[])',
    [entryId, memberId, tx.teamId, intArray(fileIds)],
  );
}

/** A new entry of the bin, deleted by `memberId` (null: the system); its id. */
export async function insertEntry(tx: TeamScope, entry: Omit<EntryRow, 'id'>, name: string, originalPath: string, memberId: number | null): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'insert into library_recycle_entries (team_id, kind, file_id, folder_id, name, original_path, deleted_by_id) values (?, ?, ?, ?, ?, ?, ?) returning id',
    [tx.teamId, entry.kind, entry.fileId, entry.folderId, name, originalPath, memberId],
  );
  return int(row!.id, 'id');
}

/** A page of the team's entries, newest deletion first: those before `after` (null: from the newest), at most `limit`. */
export async function entryPage(scope: TeamScope, after: number | null, limit: number): Promise<RecycleEntryView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${ENTRY_VIEW} from library_recycle_entries e where e.team_id = ? and (?::int is null or e.id < ?) order by e.id desc limit ?`,
    [scope.teamId, after, after, limit],
  );
  return rows.map(entryViewOf);
}

/** The team's entries among `entryIds`, locked in id order. */
export async function lockEntries(tx: TeamScope, entryIds: readonly number[]): Promise<EntryRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select ${ENTRY_COLUMNS} from library_recycle_entries where team_id = ? and id = any(?::int[]) order by id for update`,
    [tx.teamId, intArray(entryIds)],
  );
  return rows.map(entryOf);
}

/** Every entry of the team's bin, locked in id order. */
export async function lockAllEntries(tx: TeamScope): Promise<EntryRow[]> {
  const rows = await queryRows<Record<string, unknown>>(tx, `select ${ENTRY_COLUMNS} from library_recycle_entries where team_id = ? order by id for update`, [
    tx.teamId,
  ]);
  return rows.map(entryOf);
}

/** Removes entries (restored or purged). */
export async function deleteEntries(tx: TeamScope, entryIds: readonly number[]): Promise<void> {
  await queryRows(tx, 'delete from library_recycle_entries where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(entryIds)]);
}

/**
 * Gives back the files of entries, as the member `memberId` (null: the system): each returns to its
 * folder, or to the root when that folder is no longer live; a line's hidden versions come back
 * hidden (only its cover is live). Each file, and whether it is shown (live) again.
 */
export async function restoreEntryFiles(tx: TeamScope, entryIds: readonly number[], memberId: number | null): Promise<{ id: number; shown: boolean }[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `update library_files f set recycle_entry_id = null, update_user_id = ?, updated_at = now(),
            deleted_at = case when exists (select 1 from library_version_lines l where l.id = f.version_line_id and l.team_id = f.team_id and l.cover_file_id <> f.id) then f.deleted_at end,
            folder_id = case when exists (select 1 from library_folders d where d.id = f.folder_id and d.team_id = f.team_id and d.deleted_at is null) then f.folder_id end
      where f.team_id = ? and f.recycle_entry_id = any(?::int[]) returning f.id, f.deleted_at is null as shown`,
    [memberId, tx.teamId, intArray(entryIds)],
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), shown: bool(row.shown, 'shown') }));
}

/** A folder of the team, whatever its state (the top folder of an entry). */
export async function folderOf(tx: TeamScope, folderId: number): Promise<FolderRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'select id, name, parent_id as "parentId", path, path_ids as "pathIds" from library_folders where id = ? and team_id = ?',
    [folderId, tx.teamId],
  );
  return (
    row && {
      id: int(row.id, 'id'),
      name: text(row.name, 'name'),
      parentId: nullableInt(row.parentId, 'parentId'),
      path: text(row.path, 'path'),
      pathIds: intList(row.pathIds, 'pathIds'),
    }
  );
}

/** A live folder of the team, share-locked so it stays live while folders are restored under it; null when there is none. */
export async function shareLockLiveFolder(tx: TeamScope, folderId: number): Promise<Pick<FolderRow, 'id' | 'path' | 'pathIds'> | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'select id, path, path_ids as "pathIds" from library_folders where id = ? and team_id = ? and deleted_at is null for share',
    [folderId, tx.teamId],
  );
  return row && { id: int(row.id, 'id'), path: text(row.path, 'path'), pathIds: intList(row.pathIds, 'pathIds') };
}

/** Whether a live folder named `name` sits under `parentId` (null: at the top level). */
export async function liveFolderNamed(tx: TeamScope, parentId: number | null, name: string): Promise<boolean> {
  const row = await queryOne(tx, 'select 1 from library_folders where team_id = ? and coalesce(parent_id, 0) = ? and name = ? and deleted_at is null', [
    tx.teamId,
    parentId ?? 0,
    name,
  ]);
  return row !== null;
}

/**
 * Brings back the folders an entry took: the top one under `parent` (null: at the top level), each
 * path rebuilt from there (the top's old path prefix, `oldPrefixLength` characters and its first
 * `topDepth - 1` path ids, replaced by the parent's). Their ids.
 */
export async function restoreEntryFolders(
  tx: TeamScope,
  entryId: number,
  top: { id: number; depth: number; oldPrefixLength: number },
  parent: Pick<FolderRow, 'id' | 'path' | 'pathIds'> | null,
): Promise<number[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `update library_folders set deleted_at = null, recycle_entry_id = null, updated_at = now(),
            parent_id = case when id = ? then ?::int else parent_id end,
            path = ? || substr(path, ?),
            path_ids = ?::int[] || path_ids[(?::int):]
      where team_id = ? and recycle_entry_id = ? returning id`,
    [top.id, parent?.id ?? null, parent?.path ?? '', top.oldPrefixLength + 1, intArray(parent ? parent.pathIds : []), top.depth, tx.teamId, entryId],
  );
  return ids(rows);
}

/** The files the entries took, with their stored objects, locked in id order. */
export async function lockEntryFiles(tx: TeamScope, entryIds: readonly number[]): Promise<{ id: number; objectId: number }[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    'select id, object_id as "objectId" from library_files where team_id = ? and recycle_entry_id = any(?::int[]) order by id for update',
    [tx.teamId, intArray(entryIds)],
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), objectId: int(row.objectId, 'objectId') }));
}

/** The folders the entries took, locked in id order. */
export async function lockEntryFolderIds(tx: TeamScope, entryIds: readonly number[]): Promise<number[]> {
  return ids(
    await queryRows<Record<string, unknown>>(
      tx,
      'select id from library_folders where team_id = ? and recycle_entry_id = any(?::int[]) order by id for update',
      [tx.teamId, intArray(entryIds)],
    ),
  );
}

/** The storage keys of the team's stored objects among `objectIds`. */
export async function storageKeysOf(tx: TeamScope, objectIds: readonly number[]): Promise<string[]> {
  const rows = await queryRows<Record<string, unknown>>(tx, 'select storage_key as "storageKey" from stored_objects where team_id = ? and id = any(?::int[])', [
    tx.teamId,
    intArray(objectIds),
  ]);
  return rows.map((row) => text(row.storageKey, 'storageKey'));
}

/**
 * Removes files for good. What names them goes with them (foreign keys on delete cascade): search
 * texts, tag postings, custom field values, metadata records.
 */
export async function deleteFiles(tx: TeamScope, fileIds: readonly number[]): Promise<void> {
  await queryRows(tx, 'delete from library_files where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(fileIds)]);
}

/** Removes folders for good; their shares and folder subscriptions go with them (foreign keys on delete cascade). */
export async function deleteFolders(tx: TeamScope, folderIds: readonly number[]): Promise<void> {
  await queryRows(tx, 'delete from library_folders where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(folderIds)]);
}

/** Removes the team's version lines that no file is a version of any more. */
export async function deleteEmptyVersionLines(tx: TeamScope): Promise<void> {
  await queryRows(
    tx,
    'delete from library_version_lines l where l.team_id = ? and not exists (select 1 from library_files f where f.team_id = l.team_id and f.version_line_id = l.id)',
    [tx.teamId],
  );
}

/**
 * Removes the team's stored objects among `objectIds` that no file uses any more, with their
 * palettes (stored_object_colours, a foreign key on delete cascade); the contents they named.
 */
export async function deleteUnusedObjects(tx: TeamScope, objectIds: readonly number[]): Promise<StoredBytes[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    'delete from stored_objects o where o.team_id = ? and o.id = any(?::int[]) and not exists (select 1 from library_files f where f.team_id = o.team_id and f.object_id = o.id) returning o.sha256, o.storage_key as "storageKey"',
    [tx.teamId, intArray(objectIds)],
  );
  return rows.map((row) => ({ sha256: text(row.sha256, 'sha256'), storageKey: text(row.storageKey, 'storageKey') }));
}
