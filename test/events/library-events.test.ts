import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import type { Received } from '../support/webhook-receiver.ts';

let world: EventWorld;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let member: number;
let imported: { id: number; folderIds: number[] };
let folderA: number;
let folderB: number;
let elsewhere: number;

beforeAll(async () => {
  files = await tempDir('event-files');
  storage = await tempDir('event-storage');
  world = await createEventWorld({ STORAGE_DIR: storage.path });
  await world.startWorkers();
  member = (await given(world.env).member(world.team, 'Ann')).userId;
  await writeImage(join(files.path, 'red.png'), { width: 40, height: 30, colour: '#ff0000', format: 'png' });
  // folders first (an import creates them), then the subscriptions, then the import that is observed
  const setup = await given(world.env).libraryFile(world.team, { file: join(files.path, 'red.png'), folder: '/a/b', name: 'setup.png' });
  [folderA, folderB] = setup.folderIds as [number, number];
  elsewhere = (await given(world.env).libraryFile(world.team, { file: join(files.path, 'red.png'), folder: '/elsewhere', name: 'other.png' })).folderIds[0]!;
  const material = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: world.key.key,
    body: { callbackUrl: `${world.receiver.url}/m`, eventTypes: ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED', 'MATERIAL_DELETED'] },
  });
  expect(material.body.code).toBe('0');
  const folder = await send(world.env, { method: 'POST', url: '/open/folder-subscribe', key: world.key.key, body: { folderIds: [folderA], callbackUrl: `${world.receiver.url}/f` } });
  expect(folder.body.code).toBe('0');
  imported = await given(world.env).libraryFile(world.team, { file: join(files.path, 'red.png'), folder: '/a/b', name: 'red.png', user: member, tags: ['sale'], description: 'first' });
});
afterAll(async () => {
  await world.close();
  await files.remove();
  await storage.remove();
});

const on = (path: string) => world.receiver.received.filter((r) => r.path === path);

async function next(path: string, count: number): Promise<Received[]> {
  const deadline = Date.now() + 10_000;
  while (on(path).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return on(path);
}

const EDIT = 'mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { id } }';

describe('events of an import into a folder (issue 13 item 2)', () => {
  it('sends MATERIAL_INBOUND_COMPLETED with source UPLOAD_ASSETS, uploadResults, materialIds and the initiating member', async () => {
    const [inbound] = await next('/m', 1);
    expect(inbound!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_INBOUND_COMPLETED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'member', id: member },
      payload: {
        source: 'UPLOAD_ASSETS',
        initiatorUserId: String(member),
        uploadResults: [{ id: imported.id, name: 'red.png', extension: 'png', size: 1, width: 40, height: 30, uploadStatus: 'SUCCESS' }],
        materialIds: [imported.id],
      },
      sequence: 1,
    });
  });

  it('then MATERIAL_ADDED_TO_FOLDER for the new relation, in the same line', async () => {
    const got = await next('/m', 2);
    expect(got[1]!.body).toMatchObject({ eventType: 'MATERIAL_ADDED_TO_FOLDER', payload: { materialIds: [imported.id], folderIds: [folderB] }, sequence: 2 });
  });

  it('sends FOLDER_CONTENT_UPDATE type ADD to the subscribed ancestor folder, with the MaterialCallbackDTO', async () => {
    const [update] = await next('/f', 1);
    expect(update!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'FOLDER_CONTENT_UPDATE',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'member', id: member },
      folderId: folderA,
      type: 'ADD',
      assets: [
        {
          id: imported.id,
          parentIds: [folderA, folderB],
          userId: String(member),
          name: 'red.png',
          downloadUrl: null,
          source: 2,
          link: null,
          extension: 'png',
          duration: null,
          size: 1,
          width: 40,
          height: 30,
          description: 'first',
          score: null,
          createUser: String(member),
        },
      ],
      orgId: world.team.teamId,
      sequence: 1,
    });
  });
});

describe('events of library edits through GraphQL', () => {
  it('sends MATERIAL_METADATA_UPDATED BASIC with only the changed fields, and folder UPDATE', async () => {
    const before = on('/m').length;
    const res = await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { name: 'crimson.png', description: 'first' } });
    expect(res.body.errors).toBeUndefined();
    const got = await next('/m', before + 1);
    expect(got[before]!.body).toMatchObject({
      eventType: 'MATERIAL_METADATA_UPDATED',
      actor: { kind: 'key', id: world.key.keyId },
      payload: { changeType: 'BASIC', materialIds: [imported.id], materials: [{ materialId: imported.id, name: 'crimson.png' }] },
    });
    expect(got[before]!.body.payload.materials[0]).not.toHaveProperty('description');
    const folder = await next('/f', 2);
    expect(folder[1]!.body).toMatchObject({ type: 'UPDATE', folderId: folderA, assets: [{ id: imported.id, name: 'crimson.png' }], sequence: 2 });
  });

  it('sends changeType TAGS with tagIds and tagNames when tags change', async () => {
    const before = on('/m').length;
    await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { tags: ['sale', 'warm'] } });
    const got = await next('/m', before + 1);
    expect(got[before]!.body.payload).toEqual({
      changeType: 'TAGS',
      materialIds: [imported.id],
      materials: [{ materialId: imported.id, tagIds: expect.any(Array), tagNames: ['sale', 'warm'] }],
    });
    expect(got[before]!.body.payload.materials[0].tagIds).toHaveLength(2);
  });

  it('sends nothing for an edit that is refused', async () => {
    // earlier edits' deliveries (the folder UPDATEs) may still be on their way: let them land first
    const unfinished = async () => (await world.env.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from webhook_deliveries where status in ('pending', 'delivering')`))[0]!.n;
    for (let i = 0; i < 200 && (await unfinished()) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await unfinished()).toBe(0);
    const before = world.receiver.received.length;
    const res = await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { score: 9 } });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    await new Promise((r) => setTimeout(r, 300));
    expect(world.receiver.received.length).toBe(before);
  });

  it('sends MATERIAL_ADDED_TO_FOLDER and folder DELETE (identifying fields only) for a move out of the subscribed subtree', async () => {
    const before = on('/m').length;
    const res = await graphql(world.env, world.key.key, 'mutation($id: Int!, $f: Int) { moveLibraryFile(id: $id, folderId: $f) { id } }', { id: imported.id, f: elsewhere });
    expect(res.body.errors).toBeUndefined();
    const got = await next('/m', before + 1);
    expect(got[before]!.body.payload).toEqual({ materialIds: [imported.id], folderIds: [elsewhere] });
    // ADD (import), UPDATE (rename), UPDATE (tags), then this DELETE
    const folder = await next('/f', 4);
    expect(folder[3]!.body).toMatchObject({ type: 'DELETE', folderId: folderA, assets: [{ id: imported.id, parentIds: [folderA, folderB], name: 'crimson.png' }], sequence: 4 });
    expect(Object.keys(folder[3]!.body.assets[0])).toEqual(['id', 'parentIds', 'name']);
  });

  it('sends MATERIAL_DELETED with deleteAction RECYCLE and the snapshot before deletion', async () => {
    const before = on('/m').length;
    await graphql(world.env, world.key.key, 'mutation($id: Int!) { deleteLibraryFile(id: $id) { id } }', { id: imported.id });
    const got = await next('/m', before + 1);
    expect(got[before]!.body.payload).toEqual({
      materialIds: [imported.id],
      deleteAction: 'RECYCLE',
      materials: [
        {
          materialId: imported.id,
          name: 'crimson.png',
          materialType: 'IMAGE',
          extension: 'png',
          tagIds: expect.any(Array),
          tagNames: ['sale', 'warm'],
          folderIds: [elsewhere],
          ownerUserId: String(member),
          createUserId: String(member),
        },
      ],
    });
  });

  it('keeps one material line: every event of the file arrived in commit order with sequences 1, 2, 3, ...', async () => {
    const mine = on('/m').filter((r) => r.body.payload.materialIds?.[0] === imported.id);
    expect(mine.map((r) => r.body.sequence)).toEqual(mine.map((_r, i) => i + 1));
  });
});
