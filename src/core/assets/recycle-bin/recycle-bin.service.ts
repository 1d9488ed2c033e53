import { requirePermission } from '../../access/roles.ts';
import { type Ctx, memberIdOf } from '../../platform/ctx.ts';
import { DomainError, notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { filesFacts } from '../files/files.queries.ts';
import { libraryEvents } from '../files/library-events.ts';
import type { Storage } from '../storage/storage.ts';
import {
  deleteEmptyVersionLines,
  deleteEntries,
  deleteFiles,
  deleteFolders,
  deleteUnusedObjects,
  type EntryRow,
  entryPage,
  fileNameAndPlace,
  folderOf,
  insertEntry,
  liveFolderNamed,
  lockAllEntries,
  lockEntries,
  lockEntryFiles,
  lockEntryFolderIds,
  lockHiddenVersionsOf,
  lockLiveFileIdsIn,
  lockLiveFileNameAndPlace,
  lockLiveFolder,
  lockLiveSubtreeFolderIds,
  restoreEntryFiles,
  restoreEntryFolders,
  shareLockLiveFolder,
  storageKeysOf,
  takeFiles,
  takeFolders,
} from './recycle-bin.queries.ts';
import {
  type PurgedEntries,
  RECYCLE_BIN_LIMITS,
  RecycleBinPageInput,
  RecycleEntryIdsInput,
  type RecycleEntryView,
  type RestoredEntries,
} from './recycle-bin.schemas.ts';
import { lockStorageKeys, releaseBytes, type StoredBytes } from './stored-bytes.ts';

const checkIds = compileInput(RecycleEntryIdsInput);
const checkPage = compileInput(RecycleBinPageInput);

/** The folder path a folder sits in: "/a/b" for "/a/b/c", "/" for a top-level folder. */
function parentPathOf(folder: { path: string; name: string }): string {
  return folder.path.slice(0, folder.path.length - folder.name.length - 1) || '/';
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
      const file = await lockLiveFileNameAndPlace(tx, fileId);
      if (!file) throw notFound('File');
      const hidden = await lockHiddenVersionsOf(tx, [fileId]);
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
      const folder = await lockLiveFolder(tx, folderId);
      if (!folder) throw notFound('Folder');
      const folderIds = await lockLiveSubtreeFolderIds(tx, folderId);
      const fileIds = await lockLiveFileIdsIn(tx, folderIds);
      const hidden = await lockHiddenVersionsOf(tx, fileIds);
      const befores = await filesFacts(tx, [...fileIds, ...hidden]);
      const entryId = await this.newEntry(tx, { kind: 'folder', fileId: null, folderId }, folder.name, parentPathOf(folder));
      await takeFolders(tx, entryId, folderIds);
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
    const rows = await entryPage(ctx, page.after ?? null, first + 1);
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
      const files = await restoreEntryFiles(tx, ids, memberIdOf(tx.actor));
      restored.fileIds.push(...files.map((row) => row.id));
      shown.push(...files.filter((row) => row.shown).map((row) => row.id));
      await deleteEntries(tx, ids);
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
    return this.purgeThenRelease(ctx, (tx) => lockAllEntries(tx));
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
    const file = await fileNameAndPlace(tx, fileId);
    const entryId = await this.newEntry(tx, { kind: 'file', fileId, folderId: null }, file!.name, file!.folderPath);
    await this.takeFiles(tx, entryId, [fileId]);
    return entryId;
  }

  /** Marks files as taken by an entry; a hidden version keeps the time it was hidden. */
  private async takeFiles(tx: Ctx, entryId: number, fileIds: readonly number[]): Promise<void> {
    await takeFiles(tx, entryId, memberIdOf(tx.actor), fileIds);
  }

  private async newEntry(tx: Ctx, entry: Omit<EntryRow, 'id'>, name: string, originalPath: string): Promise<number> {
    return insertEntry(tx, entry, name, originalPath, memberIdOf(tx.actor));
  }

  /** The team's entries among `ids`, locked; 404 (and nothing changed) when any is missing or another team's. */
  private async lockEntries(tx: Ctx, ids: number[]): Promise<EntryRow[]> {
    const entries = await lockEntries(tx, ids);
    if (entries.length !== ids.length) throw notFound('Recycle bin entry');
    return entries;
  }

  /**
   * Brings back the folders an entry took, under the top folder's parent when it is live, else at
   * the top level. Paths are rebuilt from where the folder lands, so renames of its ancestors
   * while it was in the bin are followed.
   */
  private async restoreFolders(tx: Ctx, entry: EntryRow): Promise<number[]> {
    const top = (await folderOf(tx, entry.folderId!))!;
    const parent = top.parentId === null ? null : await shareLockLiveFolder(tx, top.parentId);
    if (await liveFolderNamed(tx, parent?.id ?? null, top.name)) throw restoreNameInUse(top.name);
    const oldPrefixLength = top.path.length - top.name.length - 1;
    const ids = await restoreEntryFolders(tx, entry.id, { id: top.id, depth: top.pathIds.length, oldPrefixLength }, parent);
    return ids.sort((a, b) => a - b);
  }

  private async purgeEntries(tx: Ctx, entries: EntryRow[]): Promise<{ purged: Omit<PurgedEntries, 'releasedObjects'>; objects: StoredBytes[] }> {
    const entryIds = entries.map((e) => e.id);
    const files = await lockEntryFiles(tx, entryIds);
    const fileIds = files.map((f) => f.id);
    const objectIds = [...new Set(files.map((f) => f.objectId))];
    // the storage keys' locks before any row goes, in the order every writer takes them (stored-bytes.ts)
    await lockStorageKeys(tx, await storageKeysOf(tx, objectIds));
    const befores = await filesFacts(tx, fileIds);
    const folderIds = await lockEntryFolderIds(tx, entryIds);
    await deleteFiles(tx, fileIds);
    await deleteFolders(tx, folderIds);
    await deleteEntries(tx, entryIds);
    await deleteEmptyVersionLines(tx);
    const objects = await deleteUnusedObjects(tx, objectIds);
    await libraryEvents.deleted(tx, befores, 'PERMANENT');
    return { purged: { entries: entries.length, fileIds, folderIds }, objects };
  }
}
