import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';

/**
 * Spec 6.2 payloads that carry parallel arrays (tagIds with tagNames) must pair each id with its
 * own name, whatever order the input came in. Tags are made so that id order and name order
 * disagree (zeta before alpha), and every payload is read from the outbox as it was committed.
 */
let world: EventWorld;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let image: string;

beforeAll(async () => {
  files = await tempDir('parallel-files');
  storage = await tempDir('parallel-storage');
  world = await createEventWorld({ STORAGE_DIR: storage.path });
  image = join(files.path, 'p.png');
  await writeImage(image, { width: 8, height: 8, colour: '#00ff00', format: 'png' });
  const subscribed = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: world.key.key,
    body: {
      callbackUrl: `${world.receiver.url}/m`,
      eventTypes: ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER', 'MATERIAL_METADATA_UPDATED', 'MATERIAL_DELETED'],
    },
  });
  expect(subscribed.body.code).toBe('0');
});
afterAll(async () => {
  await world.close();
  await files.remove();
  await storage.remove();
});

/** The team's tag names by id, as stored. */
async function tagNamesById(): Promise<Map<number, string>> {
  const rows = await world.env.orm.em
    .fork()
    .execute<{ id: number; name: string }[]>('select id, name from library_tags where team_id = ?', [world.team.teamId]);
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}

/** The committed payloads of one event type, in commit order. */
async function payloads(eventType: string): Promise<Record<string, any>[]> {
  const rows = await world.env.orm.em
    .fork()
    .execute<{ body: { payload: Record<string, any> } }[]>('select body from outbox_events where team_id = ? and event_type = ? order by id', [
      world.team.teamId,
      eventType,
    ]);
  return rows.map((r) => r.body.payload);
}

/** Every tagIds[i] names tagNames[i]. */
function expectPaired(material: { tagIds: number[]; tagNames: string[] }, names: Map<number, string>, expected: string[]): void {
  expect(material.tagIds).toHaveLength(material.tagNames.length);
  expect(material.tagIds.map((id) => names.get(id))).toEqual(material.tagNames);
  expect([...material.tagNames].sort()).toEqual([...expected].sort());
}

describe('parallel arrays in 6.2 payloads pair by position', () => {
  it('pairs tagIds with tagNames in MATERIAL_METADATA_UPDATED (TAGS) and MATERIAL_DELETED, for tags whose id order is not their name order', async () => {
    // zeta is created first (the smaller id), alpha second: sorting ids and names apart would cross them
    const file = await given(world.env).libraryFile(world.team, { file: image, folder: '/pairs', name: 'pairs.png', tags: ['zeta', 'alpha'] });
    const edited = await graphql(
      world.env,
      world.key.key,
      'mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { id } }',
      {
        id: file.id,
        input: { tags: ['mid', 'zeta', 'alpha'] },
      },
    );
    expect(edited.body.errors).toBeUndefined();
    const deleted = await graphql(world.env, world.key.key, 'mutation($id: Int!) { deleteLibraryFile(id: $id) { id } }', { id: file.id });
    expect(deleted.body.errors).toBeUndefined();

    const names = await tagNamesById();
    expect(names.size).toBe(3);
    const [zeta, alpha] = [...names].filter(([, n]) => n !== 'mid').sort(([a], [b]) => a - b);
    expect([zeta![1], alpha![1]]).toEqual(['zeta', 'alpha']);

    const tags = (await payloads('MATERIAL_METADATA_UPDATED')).filter((p) => p.changeType === 'TAGS');
    expect(tags).toHaveLength(1);
    expectPaired(tags[0]!.materials[0], names, ['mid', 'zeta', 'alpha']);

    const deletions = await payloads('MATERIAL_DELETED');
    expect(deletions).toHaveLength(1);
    expectPaired(deletions[0]!.materials[0], names, ['mid', 'zeta', 'alpha']);
  });

  it('pairs each material of a folder deletion with its own tags (MATERIAL_DELETED)', async () => {
    const first = await given(world.env).libraryFile(world.team, { file: image, folder: '/batch', name: 'one.png', tags: ['zeta'] });
    const other = join(files.path, 'q.png');
    await writeImage(other, { width: 8, height: 8, colour: '#0000ff', format: 'png' });
    const second = await given(world.env).libraryFile(world.team, { file: other, folder: '/batch', name: 'two.png', tags: ['alpha', 'mid'] });
    expect(second.id).not.toBe(first.id);
    const folderId = first.folderIds.at(-1)!;
    const member = (await given(world.env).member(world.team, 'Deleter')).userId;
    await world.env.core.assets.recycleBin.deleteFolder(
      world.env.core.ctxFor(await world.env.core.access.memberAsOperator(world.env.core.operatorCtx(), member), 'test'),
      folderId,
    );
    const names = await tagNamesById();
    const materials = (await payloads('MATERIAL_DELETED')).flatMap((p) => p.materials as { materialId: number; tagIds: number[]; tagNames: string[] }[]);
    const byId = new Map(materials.map((m) => [m.materialId, m]));
    expectPaired(byId.get(first.id)!, names, ['zeta']);
    expectPaired(byId.get(second.id)!, names, ['alpha', 'mid']);
  });
});
