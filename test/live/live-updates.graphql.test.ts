import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { graphql } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { collect, listen, openStreams, sseClient } from './live-support.ts';

let env: TestEnv;
let origin: string;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
let manager: GivenKey;
let other: GivenTeam;
let otherKey: GivenKey;

const LIBRARY = 'subscription($f: Int, $after: String) { libraryEvents(folderId: $f, after: $after) { position eventType fileId folderIds payload } }';
const EDIT = 'mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { id } }';

beforeAll(async () => {
  files = await tempDir('live-files');
  storage = await tempDir('live-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path, LIVE_RECHECK_MS: '100', LIVE_RELAY_INTERVAL_MS: '20' });
  origin = await listen(env);
  await writeImage(join(files.path, 'red.png'), { width: 20, height: 20, colour: '#ff0000', format: 'png' });
  const g = given(env);
  team = await g.team('Live');
  manager = await g.key(team, 'manage');
  other = await g.team('Other');
  otherKey = await g.key(other, 'manage');
});
afterAll(async () => {
  await env?.close();
  await files?.remove();
  await storage?.remove();
});

async function importFile(into: GivenTeam, folder: string, name: string): Promise<{ id: number; folderIds: number[] }> {
  return given(env).libraryFile(into, { file: join(files.path, 'red.png'), folder, name });
}

describe('libraryEvents', () => {
  it("delivers each committed library event of the team once, in order, with increasing positions, and nothing of another team's", async () => {
    const mine = collect(sseClient(origin, manager.key), LIBRARY);
    const theirs = collect(sseClient(origin, otherKey.key), LIBRARY);
    await expect.poll(() => openStreams(env)).toBe(2);
    const file = await importFile(team, '/a/b', 'one.png');
    await graphql(env, manager.key, EDIT, { id: file.id, input: { name: 'renamed.png' } });
    const marker = await importFile(other, '/x', 'marker.png');
    await expect.poll(() => mine.data('libraryEvents').length).toBe(3);
    await expect.poll(() => theirs.data('libraryEvents').length).toBe(2);
    const events = mine.data('libraryEvents');
    expect(events.map((e) => e.eventType)).toEqual(['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED']);
    expect(events.every((e) => e.fileId === file.id)).toBe(true);
    expect(events[2].payload).toMatchObject({ changeType: 'BASIC', materials: [{ materialId: file.id, name: 'renamed.png' }] });
    const positions = events.map((e) => Number(e.position));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(3);
    expect(theirs.data('libraryEvents').every((e) => e.fileId === marker.id)).toBe(true);
    mine.dispose();
    theirs.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
  });
});
