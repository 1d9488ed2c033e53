import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import type { EventWorld } from '../support/event-world.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { writeImage } from '../support/media-files.ts';
import { type WrittenDelivery, writtenDeliveries } from '../support/outbox.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * version lines. Adding versions, setting and replacing the cover, removing
 * versions (ADD and DELETE, dissolving a line), through GraphQL and the CLI, with
 * MATERIAL_VERSION_CHANGED received by a real HTTP receiver; search, folders, product media and
 * the recycle bin follow the cover.
 */

let lib: LibraryEventWorld;
let world: EventWorld;
let files: LibraryEventWorld['files'];
let viewer: GivenKey;
let editor: GivenKey;
let ann: number;
let cliEnv: Record<string, string>;
let versionsFolder: number;
let image = 0;

/** The event ids of setting a test up (imports), which the tests leave out. */
const setUpEvents = new Set<string>();

beforeAll(async () => {
  lib = await createLibraryEventWorld({ name: 'version', folder: '/ver', materialEvents: ['MATERIAL_VERSION_CHANGED', 'MATERIAL_DELETED'] });
  ({ world, files, cliEnv, folderId: versionsFolder } = lib);
  viewer = await given(world.env).key(world.team, 'view_only');
  editor = await given(world.env).key(world.team, 'editable');
  ann = (await given(world.env).member(world.team, 'Ann')).userId;
});
afterAll(() => lib.close());

async function newImage(): Promise<string> {
  image++;
  const path = join(files.path, `v-${image}.png`);
  await writeImage(path, { width: 10 + image, height: 12, colour: '#22aa44', format: 'png' });
  return path;
}

/** Imports a file under /ver and waits for its folder ADD, so it is not taken for a test's own event. */
async function newFile(folder: string, name: string): Promise<{ id: number; folderIds: number[] }> {
  const made = await given(world.env).libraryFile(world.team, { file: await newImage(), folder, name, user: ann });
  const mine = () => world.receiver.received.filter((r) => r.path === '/f' && JSON.stringify(r.body).includes(`"name":"${name}"`));
  await expect.poll(() => mine().length).toBeGreaterThanOrEqual(1);
  for (const event of mine()) setUpEvents.add(event.body.eventId);
  return made;
}

function received(path: string, about: (body: any) => boolean): Received[] {
  return world.receiver.received.filter((r) => r.path === path && !setUpEvents.has(r.body.eventId) && about(r.body));
}

/** The events written for `path` that `about` accepts, delivered or not: all that will ever be sent, known without waiting (support/outbox.ts). */
async function written(path: string, about: (body: any) => boolean): Promise<WrittenDelivery[]> {
  return (await writtenDeliveries(world.env, world.team.teamId)).filter((d) => d.path === path && !setUpEvents.has(d.body.eventId) && about(d.body));
}

async function waitFor(path: string, about: (body: any) => boolean, count: number): Promise<Received[]> {
  await expect.poll(() => received(path, about).length).toBeGreaterThanOrEqual(count);
  return received(path, about);
}

const versionEvent = (ids: number[]) => (body: any) =>
  body.eventType === 'MATERIAL_VERSION_CHANGED' && (ids.includes(body.payload.coverMaterialId) || ids.includes(body.payload.newMaterialId));
const folderEvent = (ids: number[]) => (body: any) => (body.assets ?? []).some((a: { id: number }) => ids.includes(a.id));

async function gql(query: string, variables: Record<string, unknown> = {}, key = world.key.key) {
  return graphql(world.env, key, query, variables);
}

const LINE = '{ lineId coverMaterialId versions { materialId version isCover name } }';
const ADD = `mutation($id: Int!, $v: Int!, $cover: Boolean) { addLibraryFileVersion(id: $id, versionFileId: $v, makeCover: $cover) ${LINE} }`;
const COVER = `mutation($id: Int!) { setLibraryFileVersionCover(id: $id) ${LINE} }`;
const REMOVE = `mutation($id: Int!, $type: VersionRemoveType!) { removeLibraryFileVersion(id: $id, removeType: $type) { removed recycleEntryId line ${LINE} } }`;
const READ_LINE = `query($id: Int!) { libraryFileVersions(id: $id) ${LINE} }`;

async function searchNames(keyword: string): Promise<string[]> {
  const res = await send(world.env, { method: 'POST', url: '/open/search-assets', key: world.key.key, body: { keywords: [keyword], endPoint: 100 } });
  expect(res.status).toBe(200);
  return res.body.result.assets.map((a: { name: string }) => a.name).sort();
}

async function lineState(): Promise<unknown> {
  return {
    files: await world.env.orm.em
      .fork()
      .execute('select id, folder_id, deleted_at, version_line_id, version_number, recycle_entry_id from library_files where team_id = ? order by id', [
        world.team.teamId,
      ]),
    lines: await world.env.orm.em.fork().execute('select id, cover_file_id from library_version_lines where team_id = ? order by id', [world.team.teamId]),
  };
}

describe('adding versions', () => {
  it("ADD: a live file becomes a hidden version of another's line; MATERIAL_VERSION_CHANGED action ADD; it leaves search and its folder", async () => {
    const first = await newFile('/ver/a', 'line-a1.png');
    const second = await newFile('/ver/b', 'line-a2.png');
    const res = await gql(ADD, { id: first.id, v: second.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.addLibraryFileVersion).toEqual({
      lineId: expect.any(Number),
      coverMaterialId: first.id,
      versions: [
        { materialId: first.id, version: 1, isCover: true, name: 'line-a1.png' },
        { materialId: second.id, version: 2, isCover: false, name: 'line-a2.png' },
      ],
    });
    expect(await searchNames('line-a')).toEqual(['line-a1.png']);
    const [event] = await waitFor('/m', versionEvent([second.id]), 1);
    expect(event!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_VERSION_CHANGED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'key', id: world.key.keyId },
      sequence: 1,
      payload: { coverMaterialId: first.id, newMaterialId: second.id, action: 'ADD', version: 2 },
    });
    const [folder] = await waitFor('/f', folderEvent([second.id]), 1);
    expect(folder!.body).toMatchObject({
      type: 'DELETE',
      folderId: versionsFolder,
      assets: [{ id: second.id, name: 'line-a2.png', parentIds: second.folderIds }],
    });
    // the hidden version joined the line's folder
    const [row] = await world.env.orm.em.fork().execute<{ folder_id: number }[]>('select folder_id from library_files where id = ?', [second.id]);
    expect(row!.folder_id).toBe(first.folderIds.at(-1));
  });

  it('REPLACE_COVER_ON_UPLOAD: with makeCover the new version is the cover at once; search shows it and not the old cover', async () => {
    const first = await newFile('/ver/r', 'replace-1.png');
    const second = await newFile('/ver/r', 'replace-2.png');
    const res = await gql(ADD, { id: first.id, v: second.id, cover: true });
    expect(res.body.data.addLibraryFileVersion.coverMaterialId).toBe(second.id);
    expect(await searchNames('replace-')).toEqual(['replace-2.png']);
    const [event] = await waitFor('/m', versionEvent([second.id]), 1);
    expect((event!.body as any).payload).toEqual({ coverMaterialId: second.id, newMaterialId: second.id, action: 'REPLACE_COVER_ON_UPLOAD', version: 2 });
    const folder = await waitFor('/f', folderEvent([first.id]), 1);
    expect(folder.map((f) => (f.body as any).type)).toEqual(['DELETE']);
  });

  it('refuses the same file, a file of another team, a file already in a line, an unknown file and a view_only key: a clear error, nothing changed, no event', async () => {
    const a = await newFile('/ver/refuse', 'refuse-a.png');
    const b = await newFile('/ver/refuse', 'refuse-b.png');
    const c = await newFile('/ver/refuse', 'refuse-c.png');
    expect((await gql(ADD, { id: a.id, v: b.id })).body.errors).toBeUndefined();
    await waitFor('/m', versionEvent([b.id]), 1);
    const other = await given(world.env).team('Other versions');
    const theirs = await given(world.env).libraryFile(other, { file: await newImage(), folder: '/t', name: 'theirs.png' });
    const otherKey = await given(world.env).key(other, 'manage');
    const before = await lineState();
    const errorOf = async (variables: Record<string, unknown>, key?: string) => (await gql(ADD, variables, key)).body.errors[0].extensions;
    expect(await errorOf({ id: c.id, v: c.id })).toMatchObject({ code: 'validation_failed', details: [{ field: 'versionFileId' }] });
    expect(await errorOf({ id: c.id, v: theirs.id })).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'versionFileId', message: 'must be a live file of the team' }],
    });
    expect(await errorOf({ id: c.id, v: b.id })).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'versionFileId', message: expect.stringContaining('already a version') }],
    });
    expect(await errorOf({ id: b.id, v: c.id })).toMatchObject({ code: 'not_found' });
    expect(await errorOf({ id: 2_000_000, v: c.id })).toMatchObject({ code: 'not_found' });
    expect(await errorOf({ id: a.id, v: c.id }, otherKey.key)).toMatchObject({ code: 'not_found' });
    expect(await errorOf({ id: a.id, v: c.id }, viewer.key)).toMatchObject({ code: 'forbidden' });
    expect((await gql(COVER, { id: c.id })).body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'id' }] });
    expect((await gql(REMOVE, { id: c.id, type: 'ADD' })).body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'id' }] });
    expect((await gql(READ_LINE, { id: b.id }, otherKey.key)).body.errors[0].extensions.code).toBe('not_found');
    expect(await lineState()).toEqual(before);
    expect(await written('/m', versionEvent([a.id, b.id, c.id]))).toHaveLength(1);
  });
});

describe('the cover', () => {
  it('SET_COVER: a version becomes the cover; search, folders and a product that references the old cover show the new one', async () => {
    const first = await newFile('/ver/cover', 'cover-1.png');
    const second = await newFile('/ver/cover', 'cover-2.png');
    await gql(ADD, { id: first.id, v: second.id });
    const product = await send(world.env, {
      method: 'POST',
      url: '/v1/products',
      key: editor.key,
      body: { name: 'Versioned', imageAssetIds: [first.id], coverAssetId: first.id },
    });
    expect(product.status).toBe(201);
    const read = async () => send(world.env, { url: `/v1/products/${product.body.data.id}`, key: editor.key });
    const before = await read();
    expect(before.body.data.images.map((m: { id: number; name: string }) => [m.id, m.name])).toEqual([[first.id, 'cover-1.png']]);

    const res = await gql(COVER, { id: second.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.setLibraryFileVersionCover.coverMaterialId).toBe(second.id);
    expect(await searchNames('cover-')).toEqual(['cover-2.png']);
    // a folder share shows the cover only
    const { linkToken } = await world.env.core.assets.shares.create(world.env.core.operatorCtx(), { team: world.team.teamId, folder: '/ver/cover' });
    const shared = await send(world.env, { method: 'POST', url: '/open/search-share', key: world.key.key, body: { linkToken } });
    expect(shared.body.result.assets.map((a: { name: string }) => a.name)).toEqual(['cover-2.png']);
    const after = await read();
    expect(after.body.data.images.map((m: { id: number; name: string }) => [m.id, m.name])).toEqual([[second.id, 'cover-2.png']]);
    expect(after.body.data.cover).toMatchObject({ id: second.id, name: 'cover-2.png' });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // the stored reference is kept: setting the old cover back shows it again
    expect((await gql(COVER, { id: first.id })).body.errors).toBeUndefined();
    expect((await read()).body.data.images.map((m: { id: number }) => m.id)).toEqual([first.id]);

    const events = await waitFor('/m', versionEvent([first.id, second.id]), 3);
    expect(events.slice(1).map((e) => (e.body as any).payload)).toEqual([
      { coverMaterialId: second.id, newMaterialId: second.id, action: 'SET_COVER', version: 2 },
      { coverMaterialId: first.id, newMaterialId: first.id, action: 'SET_COVER', version: 1 },
    ]);
    const folders = await waitFor('/f', folderEvent([first.id, second.id]), 5);
    expect(folders.map((f) => [(f.body as any).type, (f.body as any).assets[0].id])).toEqual([
      ['DELETE', second.id],
      ['DELETE', first.id],
      ['ADD', second.id],
      ['DELETE', second.id],
      ['ADD', first.id],
    ]);
    // setting the cover that already is the cover changes nothing
    await gql(COVER, { id: first.id });
    expect(await written('/m', versionEvent([first.id, second.id]))).toHaveLength(3);
  });
});

describe('removing versions', () => {
  it("REMOVE with removeType ADD: the version is a live file of its own in the line's folder", async () => {
    const first = await newFile('/ver/rm', 'rm-1.png');
    const second = await newFile('/ver/rm', 'rm-2.png');
    const third = await newFile('/ver/rm', 'rm-3.png');
    await gql(ADD, { id: first.id, v: second.id });
    await gql(ADD, { id: first.id, v: third.id });
    const res = await gql(REMOVE, { id: second.id, type: 'ADD' });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.removeLibraryFileVersion).toMatchObject({
      removed: second.id,
      recycleEntryId: null,
      line: { coverMaterialId: first.id, versions: [{ materialId: first.id }, { materialId: third.id }] },
    });
    expect(await searchNames('rm-')).toEqual(['rm-1.png', 'rm-2.png']);
    const events = await waitFor('/m', versionEvent([second.id]), 2);
    expect((events[1]!.body as any).payload).toEqual({
      coverMaterialId: second.id,
      newMaterialId: third.id,
      action: 'REMOVE',
      version: 2,
      removeType: 'ADD',
      versionGroupDissolved: false,
    });
    expect((await gql(READ_LINE, { id: second.id })).body.data.libraryFileVersions).toEqual({ lineId: null, coverMaterialId: second.id, versions: [] });
  });

  it('REMOVE of the cover with removeType DELETE: the newest remaining version is the cover; the removed one is in the recycle bin (RECYCLE)', async () => {
    const first = await newFile('/ver/del', 'del-1.png');
    const second = await newFile('/ver/del', 'del-2.png');
    const third = await newFile('/ver/del', 'del-3.png');
    await gql(ADD, { id: first.id, v: second.id });
    await gql(ADD, { id: first.id, v: third.id });
    const res = await gql(REMOVE, { id: first.id, type: 'DELETE' });
    expect(res.body.errors).toBeUndefined();
    const removed = res.body.data.removeLibraryFileVersion;
    expect(removed).toMatchObject({ removed: first.id, recycleEntryId: expect.any(Number), line: { coverMaterialId: third.id } });
    expect(await searchNames('del-')).toEqual(['del-3.png']);
    const events = await waitFor(
      '/m',
      (body: any) => (body.payload.action === 'REMOVE' ? body.payload.coverMaterialId === first.id : body.payload.materialIds?.includes(first.id)),
      2,
    );
    expect(events.map((e) => (e.body as any).payload)).toEqual([
      { coverMaterialId: first.id, newMaterialId: third.id, action: 'REMOVE', version: 1, removeType: 'DELETE', versionGroupDissolved: false },
      expect.objectContaining({ materialIds: [first.id], deleteAction: 'RECYCLE' }),
    ]);
    const bin = await gql('{ recycleBin { items { id fileId } } }');
    expect(bin.body.data.recycleBin.items).toContainEqual({ id: removed.recycleEntryId, fileId: first.id });
  });

  it('a line left with one version is dissolved (versionGroupDissolved); that version is a plain file again', async () => {
    const first = await newFile('/ver/dissolve', 'dis-1.png');
    const second = await newFile('/ver/dissolve', 'dis-2.png');
    const made = await gql(ADD, { id: first.id, v: second.id });
    const lineId = made.body.data.addLibraryFileVersion.lineId;
    const res = await gql(REMOVE, { id: second.id, type: 'ADD' });
    expect(res.body.data.removeLibraryFileVersion.line).toBeNull();
    const [, event] = await waitFor('/m', versionEvent([second.id]), 2);
    expect((event!.body as any).payload).toMatchObject({ action: 'REMOVE', versionGroupDissolved: true, newMaterialId: first.id });
    expect(await world.env.orm.em.fork().execute('select 1 from library_version_lines where id = ?', [lineId])).toEqual([]);
    expect(
      await world.env.orm.em
        .fork()
        .execute('select version_line_id, version_number from library_files where id = any(?::int[])', [`{${first.id},${second.id}}`]),
    ).toEqual([
      { version_line_id: null, version_number: null },
      { version_line_id: null, version_number: null },
    ]);
  });
});

describe('version lines and the recycle bin', () => {
  it('deleting a cover takes its line; a restore brings the line back with its versions still hidden; a purge removes every version and the line', async () => {
    const first = await newFile('/ver/bin', 'bin-1.png');
    const second = await newFile('/ver/bin', 'bin-2.png');
    const lineId = (await gql(ADD, { id: first.id, v: second.id })).body.data.addLibraryFileVersion.lineId;
    const deleted = await gql('mutation($id: Int!) { deleteLibraryFile(id: $id) { recycleEntryId } }', { id: first.id });
    const entry = deleted.body.data.deleteLibraryFile.recycleEntryId;
    const recycled = await waitFor(
      '/m',
      (body: any) => body.eventType === 'MATERIAL_DELETED' && [first.id, second.id].includes(body.payload.materialIds[0]),
      2,
    );
    expect(recycled.map((e) => (e.body as any).payload.materialIds[0]).sort()).toEqual([first.id, second.id].sort());
    expect((await gql(READ_LINE, { id: second.id })).body.errors[0].extensions.code).toBe('not_found');

    const restored = await gql('mutation($ids: [Int!]!) { restoreRecycleBinEntries(ids: $ids) { fileIds } }', { ids: [entry] });
    expect(restored.body.data.restoreRecycleBinEntries.fileIds).toEqual([first.id, second.id].sort((a, b) => a - b));
    expect(await searchNames('bin-')).toEqual(['bin-1.png']);
    expect((await gql(READ_LINE, { id: second.id })).body.data.libraryFileVersions).toMatchObject({ lineId, coverMaterialId: first.id });

    const again = (await gql('mutation($id: Int!) { deleteLibraryFile(id: $id) { recycleEntryId } }', { id: first.id })).body.data.deleteLibraryFile
      .recycleEntryId;
    const purged = await gql('mutation($ids: [Int!]!) { purgeRecycleBinEntries(ids: $ids) { fileIds } }', { ids: [again] });
    expect(purged.body.data.purgeRecycleBinEntries.fileIds).toEqual([first.id, second.id].sort((a, b) => a - b));
    expect(await world.env.orm.em.fork().execute('select 1 from library_version_lines where id = ?', [lineId])).toEqual([]);
  });
});

describe('version lines from the CLI', () => {
  it('adds, lists, sets the cover and removes as the member --user, with JSON output', async () => {
    const first = await newFile('/ver/cli', 'cli-1.png');
    const second = await newFile('/ver/cli', 'cli-2.png');
    const as = ['--user', String(ann)];
    const added = await runCli(['asset', 'version', 'add', ...as, '--file', String(first.id), '--version', String(second.id), '--cover'], cliEnv);
    expect(added.code, added.stdout).toBe(0);
    expect(added.json).toMatchObject({
      coverMaterialId: second.id,
      versions: [
        { materialId: first.id, version: 1, isCover: false },
        { materialId: second.id, version: 2, isCover: true },
      ],
    });
    const listed = await runCli(['asset', 'version', 'list', ...as, '--file', String(first.id)], cliEnv);
    expect(listed.json).toEqual(added.json);
    const covered = await runCli(['asset', 'version', 'cover', ...as, '--file', String(first.id)], cliEnv);
    expect(covered.json.coverMaterialId).toBe(first.id);
    const bad = await runCli(['asset', 'version', 'remove', ...as, '--file', String(second.id), '--remove-type', 'sideways'], cliEnv);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'removeType' }] });
    const removed = await runCli(['asset', 'version', 'remove', ...as, '--file', String(second.id), '--remove-type', 'add'], cliEnv);
    expect(removed.json).toEqual({ removed: second.id, recycleEntryId: null, line: null });
    // six CLI processes, each starting Node and the ORM: seconds apiece on a loaded machine
  }, 120_000);

  it('asset import --version-of imports new bytes as the newest version (REPLACE_COVER_ON_UPLOAD with --cover), in one transaction', async () => {
    const first = await newFile('/ver/upload', 'upload-1.png');
    const team = ['--team', String(world.team.teamId)];
    const imported = await runCli(
      ['asset', 'import', ...team, '--file', await newImage(), '--name', 'upload-2.png', '--user', String(ann), '--version-of', String(first.id), '--cover'],
      cliEnv,
    );
    expect(imported.code, imported.stdout).toBe(0);
    const newId = imported.json.id;
    expect(imported.json.line).toMatchObject({
      coverMaterialId: newId,
      versions: [
        { materialId: first.id, version: 1 },
        { materialId: newId, version: 2, isCover: true },
      ],
    });
    const [event] = await waitFor('/m', versionEvent([newId]), 1);
    expect((event!.body as any).payload).toEqual({ coverMaterialId: newId, newMaterialId: newId, action: 'REPLACE_COVER_ON_UPLOAD', version: 2 });
    expect(await searchNames('upload-')).toEqual(['upload-2.png']);
    // a refused version leaves no file behind
    const before = await lineState();
    const refused = await runCli(['asset', 'import', ...team, '--file', await newImage(), '--name', 'upload-3.png', '--version-of', '2000000'], cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('not_found');
    expect(await lineState()).toEqual(before);
    const both = await runCli(['asset', 'import', ...team, '--file', await newImage(), '--version-of', String(first.id), '--pending'], cliEnv);
    expect(both.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'pending' }] });
  }, 120_000);
});
