import { requirePermission } from '../../access/roles.ts';
import { libraryEvents } from '../../events/library-events.ts';
import { filesFacts } from '../files/files.queries.ts';
import { memberIdOf, type Ctx } from '../../platform/ctx.ts';
import { DomainError, notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import type { Storage } from '../storage/storage.ts';
import {
  RECYCLE_BIN_LIMITS,
  RecycleBinPageInput,
  RecycleEntryIdsInput,
  type PurgedEntries,
  type RecycleEntryView,
  type RestoredEntries,
} from './recycle-bin.schemas.ts';
import { lockStorageKeys, releaseBytes, type StoredBytes } from './stored-bytes.ts';

const checkIds = compileInput(RecycleEntryIdsInput);
const checkPage = compileInput(RecycleBinPageInput);

interface EntryRow {
  id: number;
  kind: 'file' | 'folder';
  fileId: number | null;
  folderId: number | null;
}

interface FolderRow {
  id: number;
  name: string;
  parentId: number | null;
  path: string;
  pathIds: number[];
}

const ENTRY_VIEW = `e.id, e.kind, e.file_id as "fileId", e.folder_id as "folderId", e.name, e.original_path as "originalPath",
  (select count(*)::int from library_files f where f.team_id = e.team_id and f.recycle_entry_id = e.id) as "fileCount",
  e.deleted_by_id as "deletedBy", ${isoSql('e.deleted_at')} as "deletedAt"`;

/** The folder path a folder sits in: "/a/b" for "/a/b/c", "/" for a top-level folder. */
function parentPathOf(folder: { path: string; name: string }): string {
  return folder.path.slice(0, folder.path.length - folder.name.length - 1) || '/';
}

/**
 * The hidden versions of the version lines of `fileIds` (docs/library.md "Version lines"), locked:
 * a line goes into the bin, and comes back, with its cover.
 */
async function hiddenVersionsOf(tx: Ctx, fileIds: readonly number[]): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    tx,
    `select id from library_files
      where team_id = ? and deleted_at is not null and recycle_entry_id is null
        and version_line_id in (select version_line_id from library_files where team_id = ? and id = any(?::int[]) and version_line_id is not null)
      order by id for update`,
    [tx.teamId, tx.teamId, intArray(fileIds)],
  );
  return rows.map((row) => row.id);
}

/** A file's name and the folder path it is in ("/" for the root), as its bin entry records them; `condition` narrows and locks. */
function nameAndPlace(tx: Ctx, fileId: number, condition: string): Promise<{ name: string; folderPath: string } | null> {
  return queryOne<{ name: string; folderPath: string }>(
    tx,
    `select f.name, coalesce(d.path, '/') as "folderPath" from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
      where f.id = ? and f.team_id = ? ${condition}`,
    [fileId, tx.teamId],
  );
}

function restoreNameInUse(name: string): DomainError {
  return new DomainError('name_in_use', `A live folder named "${name}" already exists where the folder would be restored; rename one of them first`);
}

/**
 * The team's recycle bin (docs/library.md "Recycle bin"). Deleting a file or a
 * folder moves it into the bin as one entry; an entry can be restored (with its folder relations)
 * or deleted permanently, which also removes stored bytes nothing else uses. Everything needs the
 * editable role (`library:edit`), as other library edits do.
 */
export class RecycleBinService {
  private readonly storage: Storage;

  constructor(storage: Storage) {
    this.storage = storage;
  }

  /** Moves a live file of the team into the bin: it leaves search, shares, product media and signed links. */
  async deleteFile(ctx: Ctx, fileId: number): Promise<{ id: number; recycleEntryId: number }> {
    requirePermission(ctx, 'library:edit');
    if (!isResourceId(fileId)) throw notFound('File');
    return inTransaction(ctx, async (tx) => {
      const file = await nameAndPlace(tx, fileId, 'and f.deleted_at is null for update of f');
      if (!file) throw notFound('File');
      const hidden = await hiddenVersionsOf(tx, [fileId]);
      const befores = await filesFacts(tx, [fileId, ...hidden]);
      const entryId = await this.newEntry(tx, { kind: 'file', fileId, folderId: null }, file.name, file.folderPath);
      await this.takeFiles(tx, entryId, [fileId, ...hidden]);
      await libraryEvents.deleted(
        tx,
        befores,
        'RECYCLE',
        [],
        befores.filter((f) => f.id === fileId),
      );
      return { id: fileId, recycleEntryId: entryId };
    });
  }

  /** Moves a live folder with its live subfolders and files into the bin as one entry. */
  async deleteFolder(ctx: Ctx, folderId: number): Promise<{ id: number; recycleEntryId: number; folderIds: number[]; fileIds: number[] }> {
    requirePermission(ctx, 'library:edit');
    if (!isResourceId(folderId)) throw notFound('Folder');
    return inTransaction(ctx, async (tx) => {
      const folder = await queryOne<FolderRow>(
        tx,
        `select id, name, path from library_folders where id = ? and team_id = ? and deleted_at is null for update`,
        [folderId, tx.teamId],
      );
      if (!folder) throw notFound('Folder');
      const folderIds = (
        await queryRows<{ id: number }>(
          tx,
          'select id from library_folders where team_id = ? and path_ids @> array[?]::int[] and deleted_at is null order by id for update',
          [tx.teamId, folderId],
        )
      ).map((row) => row.id);
      const fileIds = (
        await queryRows<{ id: number }>(
          tx,
          'select id from library_files where team_id = ? and folder_id = any(?::int[]) and deleted_at is null order by id for update',
          [tx.teamId, intArray(folderIds)],
        )
      ).map((row) => row.id);
      const hidden = await hiddenVersionsOf(tx, fileIds);
      const befores = await filesFacts(tx, [...fileIds, ...hidden]);
      const entryId = await this.newEntry(tx, { kind: 'folder', fileId: null, folderId }, folder.name, parentPathOf(folder));
      await queryRows(tx, 'update library_folders set deleted_at = now(), recycle_entry_id = ?, updated_at = now() where team_id = ? and id = any(?::int[])', [
        entryId,
        tx.teamId,
        intArray(folderIds),
      ]);
      await this.takeFiles(tx, entryId, [...fileIds, ...hidden]);
      const shown = new Set(fileIds);
      await libraryEvents.deleted(
        tx,
        befores,
        'RECYCLE',
        folderIds,
        befores.filter((f) => shown.has(f.id)),
      );
      return { id: folderId, recycleEntryId: entryId, folderIds, fileIds };
    });
  }

  /** A page of the team's bin, newest deletion first. */
  async list(ctx: Ctx, input: unknown = {}): Promise<{ items: RecycleEntryView[]; nextAfter: number | null }> {
    requirePermission(ctx, 'library:edit');
    const page = checkPage(input);
    const first = page.first ?? RECYCLE_BIN_LIMITS.defaultPageSize;
    const rows = await queryRows<RecycleEntryView>(
      ctx,
      `select ${ENTRY_VIEW} from library_recycle_entries e where e.team_id = ? and (?::int is null or e.id < ?) order by e.id desc limit ?`,
      [ctx.teamId, page.after ?? null, page.after ?? null, first + 1],
    );
    const items = rows.slice(0, first);
    return { items, nextAfter: rows.length > first ? items[items.length - 1]!.id : null };
  }

  /**
   * Restores entries, all or none: each file returns to its folder, or to the root when that
   * folder is no longer live; a folder returns under its parent (or to the top level) with what
   * its deletion took. 409 name_in_use when a live folder of the same name is in the way.
   */
  async restore(ctx: Ctx, input: unknown): Promise<RestoredEntries> {
    requirePermission(ctx, 'library:edit');
    const { ids } = checkIds(input);
    return inTransaction(ctx, async (tx) => {
      const entries = await this.lockEntries(tx, ids);
      const restored: RestoredEntries = { fileIds: [], folderIds: [] };
      const shown: number[] = [];
      // folders first, newest deletion first: a folder deleted after its subfolder was lands before it, so the subfolder finds its parent live
      for (const entry of entries.filter((e) => e.kind === 'folder').reverse()) restored.folderIds.push(...(await this.restoreFolders(tx, entry)));
      // a line's hidden versions come back hidden: only its cover is live
      const files = await queryRows<{ id: number; shown: boolean }>(
        tx,
        `update library_files f set recycle_entry_id = null, update_user_id = ?, updated_at = now(),
                deleted_at = case when exists (select 1 from library_version_lines l where l.id = f.version_line_id and l.team_id = f.team_id and l.cover_file_id <> f.id) then f.deleted_at end,
                folder_id = case when exists (select 1 from library_folders d where d.id = f.folder_id and d.team_id = f.team_id and d.deleted_at is null) then f.folder_id end
          where f.team_id = ? and f.recycle_entry_id = any(?::int[]) returning f.id, f.deleted_at is null as shown`,
        [memberIdOf(tx.actor), tx.teamId, intArray(ids)],
      );
      restored.fileIds.push(...files.map((row) => row.id));
      shown.push(...files.filter((row) => row.shown).map((row) => row.id));
      await queryRows(tx, 'delete from library_recycle_entries where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(ids)]);
      restored.fileIds.sort((a, b) => a - b);
      restored.folderIds.sort((a, b) => a - b);
      await libraryEvents.restored(
        tx,
        shown.sort((a, b) => a - b),
      );
      return restored;
    });
  }

  /** Deletes entries permanently, all or none (MATERIAL_DELETED PERMANENT for each file). */
  async purge(ctx: Ctx, input: unknown): Promise<PurgedEntries> {
    requirePermission(ctx, 'library:edit');
    const { ids } = checkIds(input);
    return this.purgeThenRelease(ctx, async (tx) => this.lockEntries(tx, ids));
  }

  /** Empties the team's bin: every entry deleted permanently. */
  async empty(ctx: Ctx): Promise<PurgedEntries> {
    requirePermission(ctx, 'library:edit');
    return this.purgeThenRelease(ctx, (tx) =>
      queryRows<EntryRow>(
        tx,
        'select id, kind, file_id as "fileId", folder_id as "folderId" from library_recycle_entries where team_id = ? order by id for update',
        [tx.teamId],
      ),
    );
  }

  /**
   * The rows go in one transaction; the bytes of the stored objects it removed go after it commits,
   * in a second one that locks and checks each key again (stored-bytes.ts), so a purge that rolls
   * back never leaves rows whose bytes are gone. A crash in between leaves unreferenced bytes,
   * which are harmless.
   */
  private async purgeThenRelease(ctx: Ctx, entriesOf: (tx: Ctx) => Promise<EntryRow[]>): Promise<PurgedEntries> {
    const { purged, objects } = await inTransaction(ctx, async (tx) => this.purgeEntries(tx, await entriesOf(tx)));
    return { ...purged, releasedObjects: await releaseBytes(ctx, this.storage, objects) };
  }

  /**
   * In the caller's transaction, for an operation that sends a file to the bin as part of its own
   * change (a version removed with removeType DELETE): the file becomes an entry of its own. Writes
   * no event; the caller writes its own.
   */
  async takeFileInTransaction(tx: Ctx, fileId: number): Promise<number> {
    const file = await nameAndPlace(tx, fileId, '');
    const entryId = await this.newEntry(tx, { kind: 'file', fileId, folderId: null }, file!.name, file!.folderPath);
    await this.takeFiles(tx, entryId, [fileId]);
    return entryId;
  }

  /** Marks files as taken by an entry; a hidden version keeps the time it was hidden. */
  private async takeFiles(tx: Ctx, entryId: number, fileIds: readonly number[]): Promise<void> {
    await queryRows(
      tx,
      'update library_files set deleted_at = coalesce(deleted_at, now()), recycle_entry_id = ?, update_user_id = ?, updated_at = now() where team_id = ? and id = any(?::int[])',
      [entryId, memberIdOf(tx.actor), tx.teamId, intArray(fileIds)],
    );
  }

  private async newEntry(tx: Ctx, entry: Omit<EntryRow, 'id'>, name: string, originalPath: string): Promise<number> {
    const row = await queryOne<{ id: number }>(
      tx,
      'insert into library_recycle_entries (team_id, kind, file_id, folder_id, name, original_path, deleted_by_id) values (?, ?, ?, ?, ?, ?, ?) returning id',
      [tx.teamId, entry.kind, entry.fileId, entry.folderId, name, originalPath, memberIdOf(tx.actor)],
    );
    return row!.id;
  }

  /** The team's entries among `ids`, locked; 404 (and nothing changed) when any is missing or another team's. */
  private async lockEntries(tx: Ctx, ids: number[]): Promise<EntryRow[]> {
    const entries = await queryRows<EntryRow>(
      tx,
      'select id, kind, file_id as "fileId", folder_id as "folderId" from library_recycle_entries where team_id = ? and id = any(?::int[]) order by id for update',
      [tx.teamId, intArray(ids)],
    );
    if (entries.length !== ids.length) throw notFound('Recycle bin entry');
    return entries;
  }

  /**
   * Brings back the folders an entry took, under the top folder's parent when it is live, else at
   * the top level. Paths are rebuilt from where the folder lands, so renames of its ancestors
   * while it was in the bin are followed.
   */
  private async restoreFolders(tx: Ctx, entry: EntryRow): Promise<number[]> {
    const top = await queryOne<FolderRow>(
      tx,
      'select id, name, parent_id as "parentId", path, path_ids as "pathIds" from library_folders where id = ? and team_id = ?',
      [entry.folderId, tx.teamId],
    );
    const parent =
      top!.parentId === null
        ? null
        : await queryOne<FolderRow>(
            tx,
            'select id, path, path_ids as "pathIds" from library_folders where id = ? and team_id = ? and deleted_at is null for share',
            [top!.parentId, tx.teamId],
          );
    const clash = await queryOne(tx, 'select 1 from library_folders where team_id = ? and coalesce(parent_id, 0) = ? and name = ? and deleted_at is null', [
      tx.teamId,
      parent?.id ?? 0,
      top!.name,
    ]);
    if (clash) throw restoreNameInUse(top!.name);
    const oldPrefixLength = top!.path.length - top!.name.length - 1;
    const rows = await queryRows<{ id: number }>(
      tx,
      `update library_folders set deleted_at = null, recycle_entry_id = null, updated_at = now(),
              parent_id = case when id = ? then ?::int else parent_id end,
              path = ? || substr(path, ?),
              path_ids = ?::int[] || path_ids[(?::int):]
        where team_id = ? and recycle_entry_id = ? returning id`,
      [
        top!.id,
        parent?.id ?? null,
        parent?.path ?? '',
        oldPrefixLength + 1,
        intArray(parent ? parent.pathIds.map(Number) : []),
        top!.pathIds.length,
        tx.teamId,
        entry.id,
      ],
    );
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  private async purgeEntries(tx: Ctx, entries: EntryRow[]): Promise<{ purged: Omit<PurgedEntries, 'releasedObjects'>; objects: StoredBytes[] }> {
    const entryIds = intArray(entries.map((e) => e.id));
    const files = await queryRows<{ id: number; objectId: number }>(
      tx,
      'select id, object_id as "objectId" from library_files where team_id = ? and recycle_entry_id = any(?::int[]) order by id for update',
      [tx.teamId, entryIds],
    );
    const fileIds = files.map((f) => f.id);
    const objectIds = intArray([...new Set(files.map((f) => f.objectId))]);
    // the storage keys' locks before any row goes, in the order every writer takes them (stored-bytes.ts)
    const keys = await queryRows<{ storageKey: string }>(
      tx,
      'select storage_key as "storageKey" from stored_objects where team_id = ? and id = any(?::int[])',
      [tx.teamId, objectIds],
    );
    await lockStorageKeys(
      tx,
      keys.map((k) => k.storageKey),
    );
    const befores = await filesFacts(tx, fileIds);
    const folderIds = (
      await queryRows<{ id: number }>(tx, 'select id from library_folders where team_id = ? and recycle_entry_id = any(?::int[]) order by id for update', [
        tx.teamId,
        entryIds,
      ])
    ).map((row) => row.id);
    await queryRows(tx, 'delete from library_files where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(fileIds)]);
    // a purged folder's shares and folder subscriptions go with it (foreign keys on delete cascade)
    await queryRows(tx, 'delete from library_folders where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(folderIds)]);
    await queryRows(tx, 'delete from library_recycle_entries where team_id = ? and id = any(?::int[])', [tx.teamId, entryIds]);
    await queryRows(
      tx,
      'delete from library_version_lines l where l.team_id = ? and not exists (select 1 from library_files f where f.team_id = l.team_id and f.version_line_id = l.id)',
      [tx.teamId],
    );
    const unused = 'o.team_id = ? and o.id = any(?::int[]) and not exists (select 1 from library_files f where f.team_id = o.team_id and f.object_id = o.id)';
    await queryRows(tx, `delete from stored_object_colours c using stored_objects o where c.object_id = o.id and ${unused}`, [tx.teamId, objectIds]);
    const objects = await queryRows<StoredBytes>(tx, `delete from stored_objects o where ${unused} returning o.sha256, o.storage_key as "storageKey"`, [
      tx.teamId,
      objectIds,
    ]);
    await libraryEvents.deleted(tx, befores, 'PERMANENT');
    return { purged: { entries: entries.length, fileIds, folderIds }, objects };
  }
}
