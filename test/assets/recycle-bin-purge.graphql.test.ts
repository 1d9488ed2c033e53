import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { previewKey } from '../../src/core/assets/delivery/previews.ts';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { runCli } from '../support/cli.ts';
import type { EventWorld } from '../support/event-world.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { BIN, DELETE_FILE, DELETE_FOLDER, PURGE, RESTORE, type RecycleBinWorld, useRecycleBin } from './recycle-bin.support.ts';

/*
 * the recycle bin. Deleting permanently and emptying, the refusals of bin
 * operations, and the bin from the CLI, with the spec 6.2 / 6.1 events received by a real HTTP
 * receiver through a material subscription and a folder subscription.
 */

const { bin, newImage, newFile, db, writtenAbout, waitFor, gql, libraryState } = useRecycleBin();
let world: EventWorld;
let storage: RecycleBinWorld['storage'];
let viewer: GivenKey;
let ann: number;
let cliEnv: Record<string, string>;

beforeAll(() => {
  ({ world, storage, viewer, ann, cliEnv } = bin);
});

describe('deleting permanently', () => {
  it('purging an entry removes the rows, sends MATERIAL_DELETED deleteAction PERMANENT, and removes bytes no other file uses', async () => {
    const path = await newImage();
    const file = await newFile('/bin/purge', 'purged.png', path);
    const [object] = await db<{ id: number; sha256: string }>(
      'select o.id, o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?',
      [file.id],
    );
    // the image's palette: it goes with its stored object (a foreign key on delete cascade)
    expect((await db('select position from stored_object_colours where object_id = ?', [object!.id])).length).toBeGreaterThan(0);
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
    expect(await db('select position from stored_object_colours where object_id = ?', [object!.id])).toEqual([]);
    expect(existsSync(join(storage.path, objectKey(object!.sha256)))).toBe(false);
    expect(existsSync(join(storage.path, previewKey(object!.sha256)))).toBe(false);

    const events = await waitFor('/m', [file.id], 2);
    expect(events.map((e) => (e.body as { payload: { deleteAction: string } }).payload.deleteAction)).toEqual(['RECYCLE', 'PERMANENT']);
    expect((events[1]!.body as { payload: unknown }).payload).toEqual({
      materialIds: [file.id],
      deleteAction: 'PERMANENT',
      materials: [expect.objectContaining({ materialId: file.id, name: 'purged.png', folderIds: file.folderIds })],
    });
    // the files left their folders at RECYCLE: PERMANENT tells no folder again
    expect((await writtenAbout('/f', [file.id])).map((e) => (e.body as { type: string }).type)).toEqual(['DELETE']);
  });

  it('keeps bytes another file uses: a second placement of this team, or a file of another team', async () => {
    const path = await newImage();
    const first = await newFile('/bin/shared-bytes', 'first.png', path);
    const second = await newFile('/bin/shared-bytes', 'second.png', path);
    const other = await given(world.env).team('Other bytes');
    await given(world.env).libraryFile(other, { file: path, folder: '/x', name: 'theirs.png' });
    const [object] = await db<{ sha256: string }>('select o.sha256 from stored_objects o join library_files f on f.object_id = o.id where f.id = ?', [
      first.id,
    ]);
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
    const sub = await send(world.env, {
      method: 'POST',
      url: '/open/folder-subscribe',
      key: world.key.key,
      body: { folderIds: [folderId], callbackUrl: `${world.receiver.url}/g` },
    });
    expect(sub.body.code).toBe('0');
    const entry = (await gql(DELETE_FOLDER, { id: folderId })).body.data.deleteLibraryFolder.recycleEntryId;
    const res = await gql(PURGE, { ids: [entry] });
    expect(res.body.data.purgeRecycleBinEntries).toMatchObject({ entries: 1, fileIds: [file.id], folderIds: [folderId] });
    expect(await db('select id from library_folders where id = ?', [folderId])).toEqual([]);
    expect(await db('select id from library_shares where folder_id = ?', [folderId])).toEqual([]);
    expect(await db('select id from event_subscriptions where folder_id = ?', [folderId])).toEqual([]);
  });

  it("emptying the bin deletes every entry of the team, and only the team's", async () => {
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

describe('recycle bin refusals', () => {
  it("refuses unknown ids, another team's entries, an empty, repeated or too long list: a clear error, nothing changed, no event", async () => {
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
    expect(await writtenAbout('/m', [file.id])).toHaveLength(1);
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

describe('recycle bin from the CLI', () => {
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
