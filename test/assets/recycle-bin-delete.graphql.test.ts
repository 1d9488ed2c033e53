import { beforeAll, describe, expect, it } from 'vitest';
import type { EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { BIN, DELETE_FILE, DELETE_FOLDER, PURGE, RESTORE, useRecycleBin } from './recycle-bin.support.ts';

/*
 * the recycle bin. Deleting files and folders into the bin and restoring them,
 * through GraphQL, with the spec 6.2 / 6.1 events received by a real HTTP receiver through a
 * material subscription and a folder subscription.
 */

const { bin, newFile, db, writtenAbout, waitFor, searchNames, gql, libraryState } = useRecycleBin();
let world: EventWorld;
let ann: number;
/** The subscribed folder `/bin`: every test works under it. */
let binFolder: number;

beforeAll(() => {
  ({ world, ann, binFolder } = bin);
});

describe('deleting into the recycle bin', () => {
  it('a deleted file goes to the bin: MATERIAL_DELETED deleteAction RECYCLE with the snapshot, folder DELETE with identifying fields, and it leaves search', async () => {
    const file = await newFile('/bin/one', 'recycled-one.png');
    expect(await searchNames('recycled-one')).toEqual(['recycled-one.png']);
    const res = await gql(DELETE_FILE, { id: file.id });
    expect(res.body.errors).toBeUndefined();
    const entryId = res.body.data.deleteLibraryFile.recycleEntryId;
    expect(res.body.data.deleteLibraryFile).toEqual({ id: file.id, recycleEntryId: expect.any(Number) });
    expect(await searchNames('recycled-one')).toEqual([]);

    const [deleted] = await waitFor('/m', [file.id], 1);
    expect(deleted!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_DELETED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'key', id: world.key.keyId },
      // the file's line: its import's MATERIAL_ADDED_TO_FOLDER was 1
      sequence: 2,
      payload: {
        materialIds: [file.id],
        deleteAction: 'RECYCLE',
        materials: [
          {
            materialId: file.id,
            name: 'recycled-one.png',
            materialType: 'IMAGE',
            extension: 'png',
            tagIds: [],
            tagNames: [],
            folderIds: file.folderIds,
            ownerUserId: String(ann),
            createUserId: String(ann),
          },
        ],
      },
    });
    const [folderUpdate] = await waitFor('/f', [file.id], 1);
    expect(folderUpdate!.body).toMatchObject({
      eventType: 'FOLDER_CONTENT_UPDATE',
      folderId: binFolder,
      type: 'DELETE',
      assets: [{ id: file.id, parentIds: file.folderIds, name: 'recycled-one.png' }],
    });

    const bin = await gql(BIN);
    expect(bin.body.data.recycleBin.items[0]).toEqual({
      id: entryId,
      kind: 'FILE',
      fileId: file.id,
      folderId: null,
      name: 'recycled-one.png',
      originalPath: '/bin/one',
      fileCount: 1,
      deletedBy: null,
      deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
  });

  it('a file in the bin answers not_found to edits, a second delete and its signed links', async () => {
    const file = await newFile('/bin/links', 'linked.png');
    const item = await gql('query($id: Int!) { libraryFile(id: $id) { downloadUrl } }', { id: file.id });
    const link = new URL(item.body.data.libraryFile.downloadUrl);
    expect((await send(world.env, { url: `${link.pathname}${link.search}` })).status).toBe(200);
    await gql(DELETE_FILE, { id: file.id });
    expect((await send(world.env, { url: `${link.pathname}${link.search}` })).status).toBe(404);
    expect((await gql(DELETE_FILE, { id: file.id })).body.errors[0].extensions.code).toBe('not_found');
    const edit = await gql('mutation($id: Int!) { updateLibraryFile(id: $id, input: { name: "x.png" }) { id } }', { id: file.id });
    expect(edit.body.errors[0].extensions.code).toBe('not_found');
  });

  it('a product that references a file in the bin shows it as unresolved media (spec 2.5), and as the file again after a restore', async () => {
    const file = await newFile('/bin/media', 'media.png');
    const editor = await given(world.env).key(world.team, 'editable');
    const created = await send(world.env, { method: 'POST', url: '/v1/products', key: editor.key, body: { name: 'Uses media', imageAssetIds: [file.id] } });
    expect(created.status).toBe(201);
    const images = async () =>
      (await send(world.env, { url: `/v1/products/${created.body.data.id}`, key: editor.key })).body.data.images.map((m: { id: number }) => m.id);
    expect(await images()).toEqual([file.id]);
    const entry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    expect(await images()).toEqual([null]);
    expect((await gql(RESTORE, { ids: [entry] })).body.errors).toBeUndefined();
    expect(await images()).toEqual([file.id]);
  });

  it("deleting a folder takes its live subtree as one entry: MATERIAL_DELETED RECYCLE per file with the batch's top-level folderIds, one folder DELETE", async () => {
    const a = await newFile('/bin/tree/sub', 'tree-a.png');
    const b = await newFile('/bin/tree', 'tree-b.png');
    const [, tree, sub] = a.folderIds as [number, number, number];
    const res = await gql(DELETE_FOLDER, { id: tree });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.deleteLibraryFolder).toEqual({
      id: tree,
      recycleEntryId: expect.any(Number),
      folderIds: [tree, sub],
      fileIds: [a.id, b.id].sort((x, y) => x - y),
    });
    const deleted = await waitFor('/m', [a.id, b.id], 2);
    expect(deleted.map((d) => (d.body as { payload: unknown }).payload)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          materialIds: [a.id],
          deleteAction: 'RECYCLE',
          folderIds: [tree, sub],
          materials: [expect.objectContaining({ materialId: a.id, folderIds: a.folderIds })],
        }),
        expect.objectContaining({
          materialIds: [b.id],
          deleteAction: 'RECYCLE',
          folderIds: [tree, sub],
          materials: [expect.objectContaining({ materialId: b.id, folderIds: b.folderIds })],
        }),
      ]),
    );
    const folderUpdates = await waitFor('/f', [a.id, b.id], 1);
    expect(folderUpdates).toHaveLength(1);
    expect((folderUpdates[0]!.body as { assets: { id: number }[] }).assets.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect(await searchNames('tree-')).toEqual([]);
    expect(await db('select id from library_folders where id = any(?::int[]) and deleted_at is null', [`{${tree},${sub}}`])).toEqual([]);
    const [entry] = (await gql(BIN, { first: 1 })).body.data.recycleBin.items;
    expect(entry).toMatchObject({ kind: 'FOLDER', folderId: tree, fileId: null, name: 'tree', originalPath: '/bin', fileCount: 2 });
  });
});

describe('restoring from the recycle bin', () => {
  it('a restored file returns to its folder and to search: MATERIAL_ADDED_TO_FOLDER and folder ADD', async () => {
    const file = await newFile('/bin/back', 'comes-back.png');
    const entry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    await waitFor('/m', [file.id], 1);
    const res = await gql(RESTORE, { ids: [entry] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.restoreRecycleBinEntries).toEqual({ fileIds: [file.id], folderIds: [] });
    expect(await searchNames('comes-back')).toEqual(['comes-back.png']);
    const material = await waitFor('/m', [file.id], 2);
    expect(material[1]!.body).toMatchObject({ eventType: 'MATERIAL_ADDED_TO_FOLDER', payload: { materialIds: [file.id], folderIds: [file.folderIds.at(-1)] } });
    const folder = await waitFor('/f', [file.id], 2);
    expect(folder[1]!.body).toMatchObject({ type: 'ADD', folderId: binFolder, assets: [{ id: file.id, name: 'comes-back.png', parentIds: file.folderIds }] });
    expect((await db('select 1 from library_recycle_entries where id = ?', [entry])).length).toBe(0);
  });

  it('a restored folder brings back what its deletion took, with paths rebuilt after an ancestor was renamed', async () => {
    const file = await newFile('/bin/old-name/kept/deeper', 'deep.png');
    const [, parent, kept, deeper] = file.folderIds as [number, number, number, number];
    const entry = (await gql(DELETE_FOLDER, { id: kept })).body.data.deleteLibraryFolder.recycleEntryId;
    expect((await gql('mutation($id: Int!) { renameLibraryFolder(id: $id, name: "new-name") { id } }', { id: parent })).body.errors).toBeUndefined();
    const res = await gql(RESTORE, { ids: [entry] });
    expect(res.body.data.restoreRecycleBinEntries).toEqual({ fileIds: [file.id], folderIds: [kept, deeper] });
    const rows = await db<{ id: number; path: string; path_ids: number[]; deleted_at: unknown }>(
      'select id, path, path_ids, deleted_at from library_folders where id = any(?::int[]) order by id',
      [`{${kept},${deeper}}`],
    );
    expect(rows).toEqual([
      { id: kept, path: '/bin/new-name/kept', path_ids: [binFolder, parent, kept], deleted_at: null },
      { id: deeper, path: '/bin/new-name/kept/deeper', path_ids: [binFolder, parent, kept, deeper], deleted_at: null },
    ]);
    expect(await searchNames('deep.png')).toEqual(['deep.png']);
  });

  it('a folder whose parent is gone returns to the top level, and a file deleted from it comes back into it when both are restored together', async () => {
    const file = await newFile('/bin/gone-parent/child', 'orphan.png');
    const [, gone, child] = file.folderIds as [number, number, number];
    const fileEntry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    const childEntry = (await gql(DELETE_FOLDER, { id: child })).body.data.deleteLibraryFolder.recycleEntryId;
    const goneEntry = (await gql(DELETE_FOLDER, { id: gone })).body.data.deleteLibraryFolder.recycleEntryId;
    expect((await gql(PURGE, { ids: [goneEntry] })).body.errors).toBeUndefined();
    const res = await gql(RESTORE, { ids: [fileEntry, childEntry] });
    expect(res.body.data.restoreRecycleBinEntries).toEqual({ fileIds: [file.id], folderIds: [child] });
    const [childRow] = await db('select parent_id, path, path_ids from library_folders where id = ?', [child]);
    expect(childRow).toEqual({ parent_id: null, path: '/child', path_ids: [child] });
    const [fileRow] = await db<{ folder_id: number | null }>('select folder_id from library_files where id = ?', [file.id]);
    expect(fileRow!.folder_id).toBe(child);
  });

  it('a file whose folder was deleted for good returns to the library root', async () => {
    const file = await newFile('/bin/purged-home', 'homeless.png');
    const home = file.folderIds.at(-1)!;
    const fileEntry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    const homeEntry = (await gql(DELETE_FOLDER, { id: home })).body.data.deleteLibraryFolder.recycleEntryId;
    expect((await gql(PURGE, { ids: [homeEntry] })).body.errors).toBeUndefined();
    expect((await gql(RESTORE, { ids: [fileEntry] })).body.errors).toBeUndefined();
    const [fileRow] = await db<{ folder_id: number | null; deleted_at: unknown }>('select folder_id, deleted_at from library_files where id = ?', [file.id]);
    expect(fileRow).toEqual({ folder_id: null, deleted_at: null });
  });

  it('restoring a folder tree deleted level by level in one call gives back the tree as it was', async () => {
    const file = await newFile('/bin/tree-p/tree-c', 'leaf.png');
    const [, parent, child] = file.folderIds as [number, number, number];
    const entries = [
      (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId,
      (await gql(DELETE_FOLDER, { id: child })).body.data.deleteLibraryFolder.recycleEntryId,
      (await gql(DELETE_FOLDER, { id: parent })).body.data.deleteLibraryFolder.recycleEntryId,
    ];
    const res = await gql(RESTORE, { ids: entries });
    expect(res.body.data.restoreRecycleBinEntries).toEqual({ fileIds: [file.id], folderIds: [parent, child] });
    expect(await db('select id, parent_id, path from library_folders where id = any(?::int[]) order by id', [`{${parent},${child}}`])).toEqual([
      { id: parent, parent_id: binFolder, path: '/bin/tree-p' },
      { id: child, parent_id: parent, path: '/bin/tree-p/tree-c' },
    ]);
    const [fileRow] = await db<{ folder_id: number }>('select folder_id from library_files where id = ?', [file.id]);
    expect(fileRow!.folder_id).toBe(child);
  });

  it('refuses a restore when a live folder of the same name is in the way: 409 name_in_use, nothing changed, no event', async () => {
    const file = await newFile('/bin/clash', 'clash.png');
    const clash = file.folderIds.at(-1)!;
    const entry = (await gql(DELETE_FOLDER, { id: clash })).body.data.deleteLibraryFolder.recycleEntryId;
    await waitFor('/m', [file.id], 1);
    const again = await newFile('/bin/clash', 'new-clash.png');
    const before = await libraryState();
    const res = await gql(RESTORE, { ids: [entry] });
    expect(res.body.errors[0].extensions.code).toBe('name_in_use');
    expect(await libraryState()).toEqual(before);
    expect(await writtenAbout('/m', [file.id])).toHaveLength(1);
    expect(again.folderIds.at(-1)).not.toBe(clash);
  });
});
