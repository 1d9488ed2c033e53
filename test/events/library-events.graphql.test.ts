import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { writtenDeliveries } from '../support/outbox.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * Library events received by a real HTTP receiver: a material subscription on `/m` and a folder
 * subscription on `/f` for folder /a. Every test imports a file of its own into /a/b and follows
 * only that file's events, so the tests hold in any order and alone.
 */

let world: EventWorld;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let member: number;
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
  // folders first (an import creates them), then the subscriptions; the tests' own imports are observed
  const setup = await given(world.env).libraryFile(world.team, { file: join(files.path, 'red.png'), folder: '/a/b', name: 'setup.png' });
  [folderA, folderB] = setup.folderIds as [number, number];
  elsewhere = (await given(world.env).libraryFile(world.team, { file: join(files.path, 'red.png'), folder: '/elsewhere', name: 'other.png' })).folderIds[0]!;
  const material = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: world.key.key,
    body: {
      callbackUrl: `${world.receiver.url}/m`,
      eventTypes: ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED', 'MATERIAL_DELETED'],
    },
  });
  expect(material.body.code).toBe('0');
  const folder = await send(world.env, {
    method: 'POST',
    url: '/open/folder-subscribe',
    key: world.key.key,
    body: { folderIds: [folderA], callbackUrl: `${world.receiver.url}/f` },
  });
  expect(folder.body.code).toBe('0');
});
afterAll(async () => {
  await world.close();
  await files.remove();
  await storage.remove();
});

/** Imports red.png into /a/b as the member, tagged `sale` and described `first`: a file of the test's own. */
async function importFile(name: string): Promise<{ id: number; folderIds: number[] }> {
  return given(world.env).libraryFile(world.team, {
    file: join(files.path, 'red.png'),
    folder: '/a/b',
    name,
    user: member,
    tags: ['sale'],
    description: 'first',
  });
}

/** Whether an event body on `path` is about the file: a material event names it first, a folder event lists it first among its assets. */
const isAbout = (path: string, fileId: number) => (at: string, body: any) =>
  at === path && (path === '/m' ? body.payload?.materialIds?.[0] === fileId : body.assets?.[0]?.id === fileId);

/** The events about the file received on `path`, once at least `count` have arrived. */
async function eventsAbout(path: string, fileId: number, count: number): Promise<Received[]> {
  const about = isAbout(path, fileId);
  const mine = () => world.receiver.received.filter((r) => about(r.path, r.body));
  await expect.poll(() => mine().length).toBeGreaterThanOrEqual(count);
  return mine();
}

const EDIT = 'mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { id } }';
const MOVE = 'mutation($id: Int!, $f: Int) { moveLibraryFile(id: $id, folderId: $f) { id } }';
const DELETE = 'mutation($id: Int!) { deleteLibraryFile(id: $id) { id } }';

describe('events of an import into a folder', () => {
  it('sends MATERIAL_INBOUND_COMPLETED with source UPLOAD_ASSETS, uploadResults, materialIds and the initiating member', async () => {
    const imported = await importFile('inbound.png');
    const [inbound] = await eventsAbout('/m', imported.id, 1);
    expect(inbound!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_INBOUND_COMPLETED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'member', id: member },
      payload: {
        source: 'UPLOAD_ASSETS',
        initiatorUserId: String(member),
        uploadResults: [{ id: imported.id, name: 'inbound.png', extension: 'png', size: 1, width: 40, height: 30, uploadStatus: 'SUCCESS' }],
        materialIds: [imported.id],
      },
      sequence: 1,
    });
  });

  it('then MATERIAL_ADDED_TO_FOLDER for the new relation, in the same line', async () => {
    const imported = await importFile('added.png');
    const got = await eventsAbout('/m', imported.id, 2);
    expect(got[1]!.body).toMatchObject({ eventType: 'MATERIAL_ADDED_TO_FOLDER', payload: { materialIds: [imported.id], folderIds: [folderB] }, sequence: 2 });
  });

  it('sends FOLDER_CONTENT_UPDATE type ADD to the subscribed ancestor folder, with the MaterialCallbackDTO', async () => {
    const imported = await importFile('folder-add.png');
    const [update] = await eventsAbout('/f', imported.id, 1);
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
          name: 'folder-add.png',
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
      // the folder's line holds every file's events in it, in commit order
      sequence: expect.any(Number),
    });
  });
});

describe('events of library edits through GraphQL', () => {
  it('sends MATERIAL_METADATA_UPDATED BASIC with only the changed fields, and folder UPDATE next in the folder line', async () => {
    const imported = await importFile('rename.png');
    const [add] = await eventsAbout('/f', imported.id, 1);
    const res = await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { name: 'crimson.png', description: 'first' } });
    expect(res.body.errors).toBeUndefined();
    const got = await eventsAbout('/m', imported.id, 3);
    expect(got[2]!.body).toMatchObject({
      eventType: 'MATERIAL_METADATA_UPDATED',
      actor: { kind: 'key', id: world.key.keyId },
      payload: { changeType: 'BASIC', materialIds: [imported.id], materials: [{ materialId: imported.id, name: 'crimson.png' }] },
    });
    expect(got[2]!.body.payload.materials[0]).not.toHaveProperty('description');
    const folder = await eventsAbout('/f', imported.id, 2);
    expect(folder[1]!.body).toMatchObject({
      type: 'UPDATE',
      folderId: folderA,
      assets: [{ id: imported.id, name: 'crimson.png' }],
      sequence: add!.body.sequence + 1,
    });
  });

  it('sends changeType TAGS with tagIds and tagNames when tags change', async () => {
    const imported = await importFile('tags.png');
    await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { tags: ['sale', 'warm'] } });
    const got = await eventsAbout('/m', imported.id, 3);
    expect(got[2]!.body.payload).toEqual({
      changeType: 'TAGS',
      materialIds: [imported.id],
      materials: [{ materialId: imported.id, tagIds: expect.any(Array), tagNames: ['sale', 'warm'] }],
    });
    expect(got[2]!.body.payload.materials[0].tagIds).toHaveLength(2);
  });

  it('sends nothing for an edit that is refused', async () => {
    const imported = await importFile('refused.png');
    const written = async () => (await writtenDeliveries(world.env, world.team.teamId)).filter((d) => isAbout(d.path, imported.id)(d.path, d.body));
    const before = await written();
    const res = await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { score: 9 } });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    // the import's own events only: the refused edit wrote none (support/outbox.ts)
    expect(await written()).toEqual(before);
  });

  it('sends MATERIAL_ADDED_TO_FOLDER and folder DELETE (identifying fields only) for a move out of the subscribed subtree', async () => {
    const imported = await importFile('moved.png');
    const [add] = await eventsAbout('/f', imported.id, 1);
    const res = await graphql(world.env, world.key.key, MOVE, { id: imported.id, f: elsewhere });
    expect(res.body.errors).toBeUndefined();
    // INBOUND_COMPLETED and ADDED_TO_FOLDER of the import, then this move's ADDED_TO_FOLDER
    const got = await eventsAbout('/m', imported.id, 3);
    expect(got[2]!.body.payload).toEqual({ materialIds: [imported.id], folderIds: [elsewhere] });
    const folder = await eventsAbout('/f', imported.id, 2);
    expect(folder[1]!.body).toMatchObject({
      type: 'DELETE',
      folderId: folderA,
      assets: [{ id: imported.id, parentIds: [folderA, folderB], name: 'moved.png' }],
      sequence: add!.body.sequence + 1,
    });
    expect(Object.keys(folder[1]!.body.assets[0])).toEqual(['id', 'parentIds', 'name']);
  });

  it('sends MATERIAL_DELETED with deleteAction RECYCLE and the snapshot before deletion', async () => {
    const imported = await importFile('deleted.png');
    await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { tags: ['sale', 'warm'] } });
    await graphql(world.env, world.key.key, MOVE, { id: imported.id, f: elsewhere });
    await graphql(world.env, world.key.key, DELETE, { id: imported.id });
    const got = await eventsAbout('/m', imported.id, 5);
    expect(got[4]!.body.payload).toEqual({
      materialIds: [imported.id],
      deleteAction: 'RECYCLE',
      materials: [
        {
          materialId: imported.id,
          name: 'deleted.png',
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

  it('keeps one material line: every event of the file arrives in commit order with sequences 1, 2, 3, ...', async () => {
    const imported = await importFile('line.png');
    await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { name: 'line-renamed.png' } });
    await graphql(world.env, world.key.key, EDIT, { id: imported.id, input: { tags: ['sale', 'warm'] } });
    await graphql(world.env, world.key.key, MOVE, { id: imported.id, f: elsewhere });
    await graphql(world.env, world.key.key, DELETE, { id: imported.id });
    const mine = await eventsAbout('/m', imported.id, 6);
    expect(mine.map((r) => [r.body.eventType, r.body.payload.changeType])).toEqual([
      ['MATERIAL_INBOUND_COMPLETED', undefined],
      ['MATERIAL_ADDED_TO_FOLDER', undefined],
      ['MATERIAL_METADATA_UPDATED', 'BASIC'],
      ['MATERIAL_METADATA_UPDATED', 'TAGS'],
      ['MATERIAL_ADDED_TO_FOLDER', undefined],
      ['MATERIAL_DELETED', undefined],
    ]);
    expect(mine.map((r) => r.body.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
