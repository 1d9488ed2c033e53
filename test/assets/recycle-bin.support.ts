import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { EventWorld } from '../support/event-world.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { writeImage } from '../support/media-files.ts';
import { type WrittenDelivery, writtenDeliveries } from '../support/outbox.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * What the recycle bin files share: a library event world whose material
 * subscription takes MATERIAL_DELETED and MATERIAL_ADDED_TO_FOLDER and whose folder subscription
 * is on `/bin`, a view_only key and a member Ann, and the helpers that import files and read the
 * events a test caused.
 */

export interface RecycleBinWorld {
  lib: LibraryEventWorld;
  world: EventWorld;
  files: LibraryEventWorld['files'];
  storage: LibraryEventWorld['storage'];
  viewer: GivenKey;
  ann: number;
  cliEnv: Record<string, string>;
  /** The subscribed folder `/bin`: every test works under it. */
  binFolder: number;
}

export const DELETE_FILE = 'mutation($id: Int!) { deleteLibraryFile(id: $id) { id recycleEntryId } }';
export const DELETE_FOLDER = 'mutation($id: Int!) { deleteLibraryFolder(id: $id) { id recycleEntryId folderIds fileIds } }';
export const RESTORE = 'mutation($ids: [Int!]!) { restoreRecycleBinEntries(ids: $ids) { fileIds folderIds } }';
export const PURGE = 'mutation($ids: [Int!]!) { purgeRecycleBinEntries(ids: $ids) { entries fileIds folderIds releasedObjects } }';
export const BIN =
  'query($first: Int, $after: Int) { recycleBin(first: $first, after: $after) { items { id kind fileId folderId name originalPath fileCount deletedBy deletedAt } nextAfter } }';

/**
 * Registers the hooks that build the world above before a file's tests and close it after them,
 * and returns it (its fields set once the file's first beforeAll has run) with the helpers.
 */
export function useRecycleBin() {
  const bin = {} as RecycleBinWorld;
  let image = 0;

  beforeAll(async () => {
    bin.lib = await createLibraryEventWorld({ name: 'bin', folder: '/bin', materialEvents: ['MATERIAL_DELETED', 'MATERIAL_ADDED_TO_FOLDER'] });
    ({ world: bin.world, files: bin.files, storage: bin.storage, cliEnv: bin.cliEnv, folderId: bin.binFolder } = bin.lib);
    bin.viewer = await given(bin.world.env).key(bin.world.team, 'view_only');
    bin.ann = (await given(bin.world.env).member(bin.world.team, 'Ann')).userId;
  });
  afterAll(() => bin.lib?.close());

  /** A new image with its own bytes (so its stored object is its own unless a test shares it). */
  async function newImage(): Promise<string> {
    image++;
    const path = join(bin.files.path, `img-${image}.png`);
    await writeImage(path, { width: 10 + image, height: 10, colour: '#3366ff', format: 'png' });
    return path;
  }

  /** The event ids of setting a test up (an import's MATERIAL_ADDED_TO_FOLDER and folder ADD), which the tests leave out. */
  const setUpEvents = new Set<string>();

  /** Imports a file and waits until the events of its import have arrived, so they are not taken for the test's own. */
  async function newFile(folder: string, name: string, file?: string): Promise<{ id: number; folderIds: number[] }> {
    const { world } = bin;
    const made = await given(world.env).libraryFile(world.team, { file: file ?? (await newImage()), folder, name, user: bin.ann });
    const mine = () =>
      world.receiver.received.filter(
        (r) =>
          JSON.stringify(r.body).includes(`"name":"${name}"`) || (r.body as { payload?: { materialIds?: number[] } }).payload?.materialIds?.includes(made.id),
      );
    await expect.poll(() => mine().length).toBeGreaterThanOrEqual(2);
    for (const event of mine()) setUpEvents.add(event.body.eventId);
    return made;
  }

  const db = <T>(sql: string, params: unknown[] = []) => bin.world.env.orm.em.fork().execute<T[]>(sql, params);

  /**
   * Events received on a path that concern one of `fileIds` (material events) or list them among
   * assets (folder events), leaving out what the imports that set a test up caused.
   */
  function isAbout(path: string, fileIds: number[]) {
    return (at: string, body: { eventId: string; payload?: { materialIds: number[] }; assets?: { id: number }[] }) => {
      if (at !== path || setUpEvents.has(body.eventId)) return false;
      const ids = body.payload ? body.payload.materialIds : (body.assets ?? []).map((a) => a.id);
      return ids.some((id) => fileIds.includes(id));
    };
  }

  function eventsAbout(path: string, fileIds: number[]): Received[] {
    const about = isAbout(path, fileIds);
    return bin.world.receiver.received.filter((r) => about(r.path, r.body));
  }

  /** The events written about `fileIds` for `path`, delivered or not: all that will ever be sent, known without waiting (support/outbox.ts). */
  async function writtenAbout(path: string, fileIds: number[]): Promise<WrittenDelivery[]> {
    const about = isAbout(path, fileIds);
    return (await writtenDeliveries(bin.world.env, bin.world.team.teamId)).filter((d) => about(d.path, d.body));
  }

  /** The events received about `fileIds` on `path`, once at least `count` have arrived. */
  async function waitFor(path: string, fileIds: number[], count: number): Promise<Received[]> {
    await expect.poll(() => eventsAbout(path, fileIds).length).toBeGreaterThanOrEqual(count);
    return eventsAbout(path, fileIds);
  }

  async function searchNames(keyword: string): Promise<string[]> {
    const res = await send(bin.world.env, { method: 'POST', url: '/open/search-assets', key: bin.world.key.key, body: { keywords: [keyword], endPoint: 100 } });
    expect(res.status).toBe(200);
    return res.body.result.assets.map((a: { name: string }) => a.name).sort();
  }

  async function gql(query: string, variables: Record<string, unknown> = {}, key = bin.world.key.key) {
    return graphql(bin.world.env, key, query, variables);
  }

  /** The rows a bin operation touches, to show that a refused one changed nothing. */
  async function libraryState(): Promise<unknown> {
    const teamId = bin.world.team.teamId;
    return {
      files: await db('select id, folder_id, deleted_at, recycle_entry_id from library_files where team_id = ? order by id', [teamId]),
      folders: await db('select id, parent_id, path, path_ids, deleted_at, recycle_entry_id from library_folders where team_id = ? order by id', [teamId]),
      entries: await db('select id from library_recycle_entries where team_id = ? order by id', [teamId]),
    };
  }

  return { bin, newImage, newFile, db, eventsAbout, writtenAbout, waitFor, searchNames, gql, libraryState };
}
