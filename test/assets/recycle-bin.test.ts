import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectKey } from '../../src/core/assets/import.ts';
import { previewKey } from '../../src/core/assets/previews.ts';
import { runCli } from '../support/cli.ts';
import type { EventWorld } from '../support/event-world.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { given, type GivenKey } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { writeImage } from '../support/media-files.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * Issue 14 item 2: the recycle bin. Deleting files and folders, restoring, deleting permanently
 * and emptying, through GraphQL and the CLI, with the spec 6.2 / 6.1 events received by a real
 * HTTP receiver through a material subscription and a folder subscription.
 */

let lib: LibraryEventWorld;
let world: EventWorld;
let files: LibraryEventWorld['files'];
let storage: LibraryEventWorld['storage'];
let viewer: GivenKey;
let ann: number;
let cliEnv: Record<string, string>;
/** The subscribed folder `/bin`: every test works under it. */
let binFolder: number;
let image = 0;

beforeAll(async () => {
  lib = await createLibraryEventWorld({ name: 'bin', folder: '/bin', materialEvents: ['MATERIAL_DELETED', 'MATERIAL_ADDED_TO_FOLDER'] });
  ({ world, files, storage, cliEnv, folderId: binFolder } = lib);
  viewer = await given(world.env).key(world.team, 'view_only');
  ann = (await given(world.env).member(world.team, 'Ann')).userId;
});
afterAll(() => lib.close());

/** A new image with its own bytes (so its stored object is its own unless a test shares it). */
async function newImage(): Promise<string> {
  image++;
  const path = join(files.path, `img-${image}.png`);
  await writeImage(path, { width: 10 + image, height: 10, colour: '#3366ff', format: 'png' });
  return path;
}

/** The events of setting a test up (an import's MATERIAL_ADDED_TO_FOLDER and folder ADD), which the tests leave out. */
const setUpEvents = new Set<Received>();

/** Imports a file and waits until the events of its import have arrived, so they are not taken for the test's own. */
async function newFile(folder: string, name: string, file?: string): Promise<{ id: number; folderIds: number[] }> {
  const made = await given(world.env).libraryFile(world.team, { file: file ?? (await newImage()), folder, name, user: ann });
  const mine = () => world.receiver.received.filter((r) => JSON.stringify(r.body).includes(`"name":"${name}"`) || (r.body as { payload?: { materialIds?: number[] } }).payload?.materialIds?.includes(made.id));
  const deadline = Date.now() + 10_000;
  while (mine().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  for (const event of mine()) setUpEvents.add(event);
  return made;
}

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);

/**
 * Events received on a path that concern one of `fileIds` (material events) or list them among
 * assets (folder events), leaving out what the imports that set a test up caused.
 */
function eventsAbout(path: string, fileIds: number[]): Received[] {
  return world.receiver.received.filter((r) => {
    if (r.path !== path) return false;
    const body = r.body as { payload?: { materialIds: number[] }; assets?: { id: number }[] };
    if (setUpEvents.has(r)) return false;
    const ids = body.payload ? body.payload.materialIds : (body.assets ?? []).map((a) => a.id);
    return ids.some((id) => fileIds.includes(id));
  });
}

async function waitFor(path: string, fileIds: number[], count: number): Promise<Received[]> {
  const deadline = Date.now() + 10_000;
  while (eventsAbout(path, fileIds).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return eventsAbout(path, fileIds);
}

/** Gives the relay time to deliver anything that would (wrongly) have been written. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 600));
}

async function searchNames(keyword: string): Promise<string[]> {
  const res = await send(world.env, { method: 'POST', url: '/open/search-assets', key: world.key.key, body: { keywords: [keyword], endPoint: 100 } });
  expect(res.status).toBe(200);
  return res.body.result.assets.map((a: { name: string }) => a.name).sort();
}

async function gql(query: string, variables: Record<string, unknown> = {}, key = world.key.key) {
  return graphql(world.env, key, query, variables);
}

const DELETE_FILE = 'mutation($id: Int!) { deleteLibraryFile(id: $id) { id recycleEntryId } }';
const DELETE_FOLDER = 'mutation($id: Int!) { deleteLibraryFolder(id: $id) { id recycleEntryId folderIds fileIds } }';
const RESTORE = 'mutation($ids: [Int!]!) { restoreRecycleBinEntries(ids: $ids) { fileIds folderIds } }';
const PURGE = 'mutation($ids: [Int!]!) { purgeRecycleBinEntries(ids: $ids) { entries fileIds folderIds releasedObjects } }';
const BIN = 'query($first: Int, $after: Int) { recycleBin(first: $first, after: $after) { items { id kind fileId folderId name originalPath fileCount deletedBy deletedAt } nextAfter } }';

/** The rows a bin operation touches, to show that a refused one changed nothing. */
async function libraryState(): Promise<unknown> {
  return {
    files: await db('select id, folder_id, deleted_at, recycle_entry_id from library_files where team_id = ? order by id', [world.team.teamId]),
    folders: await db('select id, parent_id, path, path_ids, deleted_at, recycle_entry_id from library_folders where team_id = ? order by id', [world.team.teamId]),
    entries: await db('select id from library_recycle_entries where team_id = ? order by id', [world.team.teamId]),
  };
}

describe('deleting into the recycle bin (issue 14 item 2)', () => {
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
          { materialId: file.id, name: 'recycled-one.png', materialType: 'IMAGE', extension: 'png', tagIds: [], tagNames: [], folderIds: file.folderIds, ownerUserId: String(ann), createUserId: String(ann) },
        ],
      },
    });
    const [folderUpdate] = await waitFor('/f', [file.id], 1);
    expect(folderUpdate!.body).toMatchObject({ eventType: 'FOLDER_CONTENT_UPDATE', folderId: binFolder, type: 'DELETE', assets: [{ id: file.id, parentIds: file.folderIds, name: 'recycled-one.png' }] });

    const bin = await gql(BIN);
    expect(bin.body.data.recycleBin.items[0]).toEqual({
      id: entryId,
      kind: 'file',
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
    const images = async () => (await send(world.env, { url: `/v1/products/${created.body.data.id}`, key: editor.key })).body.data.images.map((m: { id: number }) => m.id);
    expect(await images()).toEqual([file.id]);
    const entry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    expect(await images()).toEqual([null]);
    expect((await gql(RESTORE, { ids: [entry] })).body.errors).toBeUndefined();
    expect(await images()).toEqual([file.id]);
  });

  it('deleting a folder takes its live subtree as one entry: MATERIAL_DELETED RECYCLE per file with the batch\'s top-level folderIds, one folder DELETE', async () => {
    const a = await newFile('/bin/tree/sub', 'tree-a.png');
    const b = await newFile('/bin/tree', 'tree-b.png');
    const [, tree, sub] = a.folderIds as [number, number, number];
    const res = await gql(DELETE_FOLDER, { id: tree });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.deleteLibraryFolder).toEqual({ id: tree, recycleEntryId: expect.any(Number), folderIds: [tree, sub], fileIds: [a.id, b.id].sort((x, y) => x - y) });
    const deleted = await waitFor('/m', [a.id, b.id], 2);
    expect(deleted.map((d) => (d.body as { payload: unknown }).payload)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ materialIds: [a.id], deleteAction: 'RECYCLE', folderIds: [tree, sub], materials: [expect.objectContaining({ materialId: a.id, folderIds: a.folderIds })] }),
        expect.objectContaining({ materialIds: [b.id], deleteAction: 'RECYCLE', folderIds: [tree, sub], materials: [expect.objectContaining({ materialId: b.id, folderIds: b.folderIds })] }),
      ]),
    );
    const folderUpdates = await waitFor('/f', [a.id, b.id], 1);
    expect(folderUpdates).toHaveLength(1);
    expect((folderUpdates[0]!.body as { assets: { id: number }[] }).assets.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect(await searchNames('tree-')).toEqual([]);
    expect(await db('select id from library_folders where id = any(?::int[]) and deleted_at is null', [`{${tree},${sub}}`])).toEqual([]);
    const [entry] = (await gql(BIN, { first: 1 })).body.data.recycleBin.items;
    expect(entry).toMatchObject({ kind: 'folder', folderId: tree, fileId: null, name: 'tree', originalPath: '/bin', fileCount: 2 });
  });
});

describe('restoring from the recycle bin (issue 14 item 2)', () => {
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
    const rows = await db<{ id: number; path: string; path_ids: number[]; deleted_at: unknown }>('select id, path, path_ids, deleted_at from library_folders where id = any(?::int[]) order by id', [`{${kept},${deeper}}`]);
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
    await settle();
    expect(eventsAbout('/m', [file.id])).toHaveLength(1);
    expect(again.folderIds.at(-1)).not.toBe(clash);
  });
});

describe('deleting permanently (issue 14 item 2)', () => {
  it('purging an entry removes the rows, sends MATERIAL_DELETED deleteAction PERMANENT, and removes bytes no other file uses', async () => {
    const path = await newImage();
    const file = await newFile('/bin/purge', 'purged.png', path);
    const [object] = await db<{ sha256: string }>('select o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?', [file.id]);
    const item = await gql('query($id: Int!) { libraryFile(id: $id) { thumbnailAccessUrl } }', { id: file.id });
    const preview = new URL(item.body.data.libraryFile.thumbnailAccessUrl);
    expect((await send(world.env, { url: `${preview.pathname}${preview.search}` })).status).toBe(200);
    expect(existsSync(join(storage.path, objectKey(object!.sha256)))).toBe(true);
    expect(existsSync(join(storage.path, previewKey(object!.sha256)))).toBe(true);

    const entry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    expect(existsSync(join(storage.path, objectKey(object!.sha256)))).toBe(true);
    const res = await gql(PURGE, { ids: [entry] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.purgeRecycleBinEntries).toEqual({ entries: 1, fileIds: [file.id], folderIds: [], releasedObjects: 1 });
    expect(await db('select id from library_files where id = ?', [file.id])).toEqual([]);
    expect(await db('select id from stored_objects where sha256 = ?', [object!.sha256])).toEqual([]);
    expect(existsSync(join(storage.path, objectKey(object!.sha256)))).toBe(false);
    expect(existsSync(join(storage.path, previewKey(object!.sha256)))).toBe(false);

    const events = await waitFor('/m', [file.id], 2);
    expect(events.map((e) => (e.body as { payload: { deleteAction: string } }).payload.deleteAction)).toEqual(['RECYCLE', 'PERMANENT']);
    expect((events[1]!.body as { payload: unknown }).payload).toEqual({
      materialIds: [file.id],
      deleteAction: 'PERMANENT',
      materials: [expect.objectContaining({ materialId: file.id, name: 'purged.png', folderIds: file.folderIds })],
    });
    await settle();
    // the files left their folders at RECYCLE: PERMANENT tells no folder again
    expect(eventsAbout('/f', [file.id]).map((e) => (e.body as { type: string }).type)).toEqual(['DELETE']);
  });

  it('keeps bytes another file uses: a second placement of this team, or a file of another team', async () => {
    const path = await newImage();
    const first = await newFile('/bin/shared-bytes', 'first.png', path);
    const second = await newFile('/bin/shared-bytes', 'second.png', path);
    const other = await given(world.env).team('Other bytes');
    await given(world.env).libraryFile(other, { file: path, folder: '/x', name: 'theirs.png' });
    const [object] = await db<{ sha256: string }>('select o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?', [first.id]);
    const key = join(storage.path, objectKey(object!.sha256));

    const firstEntry = (await gql(DELETE_FILE, { id: first.id })).body.data.deleteLibraryFile.recycleEntryId;
    expect((await gql(PURGE, { ids: [firstEntry] })).body.data.purgeRecycleBinEntries.releasedObjects).toBe(0);
    expect(existsSync(key)).toBe(true);
    const secondEntry = (await gql(DELETE_FILE, { id: second.id })).body.data.deleteLibraryFile.recycleEntryId;
    expect((await gql(PURGE, { ids: [secondEntry] })).body.data.purgeRecycleBinEntries.releasedObjects).toBe(0);
    expect(existsSync(key)).toBe(true);
    expect(await db('select 1 from stored_objects where sha256 = ? and team_id = ?', [object!.sha256, world.team.teamId])).toEqual([]);
  });

  it('keeps bytes a pending inbound holds, and a discard of that pending inbound then removes them', async () => {
    const path = await newImage();
    const file = await newFile('/bin/pending-bytes', 'pending-bytes.png', path);
    const [object] = await db<{ sha256: string }>('select o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?', [file.id]);
    const key = join(storage.path, objectKey(object!.sha256));
    const held = await world.env.core.assets.pendingInbound.holdFile(world.env.core.operatorCtx(), { team: world.team.teamId, file: path });
    const entry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    expect((await gql(PURGE, { ids: [entry] })).body.data.purgeRecycleBinEntries.releasedObjects).toBe(0);
    expect(existsSync(key)).toBe(true);
    const discarded = await gql('mutation($ids: [Int!]!) { discardPendingInbounds(ids: $ids) { discarded } }', { ids: held.pendingIds });
    expect(discarded.body.errors).toBeUndefined();
    expect(existsSync(key)).toBe(false);
  });

  it('purging a folder removes its folders with their shares and folder subscriptions', async () => {
    const file = await newFile('/bin/shared-folder', 'in-share.png');
    const folderId = file.folderIds.at(-1)!;
    const share = await runCli(['share', 'create', '--team', String(world.team.teamId), '--folder', '/bin/shared-folder'], cliEnv);
    expect(share.code, share.stdout).toBe(0);
    const sub = await send(world.env, { method: 'POST', url: '/open/folder-subscribe', key: world.key.key, body: { folderIds: [folderId], callbackUrl: `${world.receiver.url}/g` } });
    expect(sub.body.code).toBe('0');
    const entry = (await gql(DELETE_FOLDER, { id: folderId })).body.data.deleteLibraryFolder.recycleEntryId;
    const res = await gql(PURGE, { ids: [entry] });
    expect(res.body.data.purgeRecycleBinEntries).toMatchObject({ entries: 1, fileIds: [file.id], folderIds: [folderId] });
    expect(await db('select id from library_folders where id = ?', [folderId])).toEqual([]);
    expect(await db('select id from library_shares where folder_id = ?', [folderId])).toEqual([]);
    expect(await db('select id from event_subscriptions where folder_id = ?', [folderId])).toEqual([]);
  });

  it('emptying the bin deletes every entry of the team, and only the team\'s', async () => {
    const other = await given(world.env).team('Other bin');
    const otherKey = await given(world.env).key(other, 'editable');
    const theirs = await given(world.env).libraryFile(other, { file: await newImage(), folder: '/t', name: 'theirs.png' });
    expect((await gql(DELETE_FILE, { id: theirs.id }, otherKey.key)).body.errors).toBeUndefined();
    const mine = await newFile('/bin/empty', 'emptied.png');
    await gql(DELETE_FILE, { id: mine.id });
    const res = await gql('mutation { emptyRecycleBin { entries fileIds } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.emptyRecycleBin.fileIds).toContain(mine.id);
    expect((await gql(BIN)).body.data.recycleBin).toEqual({ items: [], nextAfter: null });
    expect((await gql(BIN, {}, otherKey.key)).body.data.recycleBin.items.map((e: { fileId: number }) => e.fileId)).toEqual([theirs.id]);
  });
});

describe('recycle bin refusals (issue 14 item 2)', () => {
  it('refuses unknown ids, another team\'s entries, an empty, repeated or too long list: a clear error, nothing changed, no event', async () => {
    const file = await newFile('/bin/refused', 'refused.png');
    const entry = (await gql(DELETE_FILE, { id: file.id })).body.data.deleteLibraryFile.recycleEntryId;
    await waitFor('/m', [file.id], 1);
    const other = await given(world.env).team('Other refusals');
    const otherKey = await given(world.env).key(other, 'manage');
    const before = await libraryState();
    for (const mutation of [RESTORE, PURGE]) {
      expect((await gql(mutation, { ids: [entry, 2_000_000] })).body.errors[0].extensions.code).toBe('not_found');
      expect((await gql(mutation, { ids: [entry] }, otherKey.key)).body.errors[0].extensions.code).toBe('not_found');
      expect((await gql(mutation, { ids: [] })).body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'ids' }] });
      expect((await gql(mutation, { ids: [entry, entry] })).body.errors[0].extensions.code).toBe('validation_failed');
      expect((await gql(mutation, { ids: Array.from({ length: 101 }, (_, i) => i + 1) })).body.errors[0].extensions.code).toBe('validation_failed');
      expect((await gql(mutation, { ids: [entry] }, viewer.key)).body.errors[0].extensions.code).toBe('forbidden');
    }
    expect((await gql(DELETE_FILE, { id: 2_000_000 })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(DELETE_FOLDER, { id: file.folderIds.at(-1)! }, otherKey.key)).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(DELETE_FOLDER, { id: file.folderIds.at(-1)! }, viewer.key)).body.errors[0].extensions.code).toBe('forbidden');
    expect((await gql(BIN, { first: 0 })).body.errors[0].extensions.code).toBe('validation_failed');
    expect((await gql(BIN, {}, otherKey.key)).body.data.recycleBin.items).toEqual([]);
    expect(await libraryState()).toEqual(before);
    await settle();
    expect(eventsAbout('/m', [file.id])).toHaveLength(1);
  });

  it('pages the bin newest first with nextAfter', async () => {
    const a = await newFile('/bin/paging', 'page-a.png');
    const b = await newFile('/bin/paging', 'page-b.png');
    await gql(DELETE_FILE, { id: a.id });
    await gql(DELETE_FILE, { id: b.id });
    const first = (await gql(BIN, { first: 1 })).body.data.recycleBin;
    expect(first.items.map((e: { fileId: number }) => e.fileId)).toEqual([b.id]);
    const second = (await gql(BIN, { first: 1, after: first.nextAfter })).body.data.recycleBin;
    expect(second.items.map((e: { fileId: number }) => e.fileId)).toEqual([a.id]);
  });
});

describe('recycle bin from the CLI (issue 14 item 2)', () => {
  it('deletes, lists, restores and purges as the member --user, with JSON output', async () => {
    const file = await newFile('/bin/cli', 'cli.png');
    const folder = await newFile('/bin/cli/folder', 'cli-in-folder.png');
    const as = ['--user', String(ann)];
    const deleted = await runCli(['asset', 'delete', ...as, '--file', String(file.id)], cliEnv);
    expect(deleted.code, deleted.stdout).toBe(0);
    expect(deleted.json).toEqual({ id: file.id, recycleEntryId: expect.any(Number) });
    const folderDeleted = await runCli(['asset', 'folder', 'delete', ...as, '--folder', String(folder.folderIds.at(-1))], cliEnv);
    expect(folderDeleted.json).toMatchObject({ id: folder.folderIds.at(-1), fileIds: [folder.id] });
    const listed = await runCli(['asset', 'bin', 'list', ...as, '--first', '2'], cliEnv);
    expect(listed.json.items.map((e: { id: number }) => e.id)).toEqual([folderDeleted.json.recycleEntryId, deleted.json.recycleEntryId]);
    expect(listed.json.items[0]).toMatchObject({ kind: 'folder', deletedBy: ann });
    const restored = await runCli(['asset', 'bin', 'restore', ...as, '--ids', String(deleted.json.recycleEntryId)], cliEnv);
    expect(restored.json).toEqual({ fileIds: [file.id], folderIds: [] });
    const purged = await runCli(['asset', 'bin', 'purge', ...as, '--ids', String(folderDeleted.json.recycleEntryId)], cliEnv);
    expect(purged.json).toMatchObject({ entries: 1, fileIds: [folder.id] });
    const bad = await runCli(['asset', 'bin', 'restore', ...as, '--ids', '1,x'], cliEnv);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'ids[1]' }] });
    const emptied = await runCli(['asset', 'bin', 'empty', ...as], cliEnv);
    expect(emptied.code, emptied.stdout).toBe(0);
    expect((await runCli(['asset', 'bin', 'list', ...as], cliEnv)).json).toEqual({ items: [], nextAfter: null });
    // eight CLI processes, each starting Node and the ORM: seconds apiece on a loaded machine
  }, 120_000);
});
