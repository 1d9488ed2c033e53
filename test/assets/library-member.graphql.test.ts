import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { buildSearchLibrary, type SearchLibrary } from '../support/search-library.ts';

let env: TestEnv;
let lib: SearchLibrary;
let storage: Awaited<ReturnType<typeof tempDir>>;
let editable: GivenKey;
let usable: GivenKey;

beforeAll(async () => {
  storage = await tempDir('member-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  lib = await buildSearchLibrary(env);
  editable = await given(env).key(lib.teamA, 'editable');
  usable = await given(env).key(lib.teamA, 'usable');
});
afterAll(async () => {
  await env.close();
  await lib.remove();
  await storage.remove();
});

const UPDATE = 'mutation($id: Int!, $input: LibraryFilePatchInput!) { updateLibraryFile(id: $id, input: $input) { id updateUser } }';

function asMember(key: string, member: string | number | undefined, variables: Record<string, unknown>) {
  const headers: Record<string, string> = member === undefined ? {} : { 'x-shelf-member': String(member) };
  return send(env, { method: 'POST', url: '/graphql', key, headers, body: { query: UPDATE, variables } });
}

const updateUserOf = async (id: number) =>
  (await env.orm.em.fork().execute<{ u: number | null }[]>('select update_user_id as u from library_files where id = ?', [id]))[0]!.u;

describe('GraphQL X-Shelf-Member: a frontend acting for a member', () => {
  it('records the member as the updating user of a library edit (AssetItem updateUser)', async () => {
    const id = lib.files['red.png']!;
    const res = await asMember(editable.key, lib.bob, { id, input: { description: 'by bob' } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateLibraryFile).toEqual({ id, updateUser: lib.bob });
    expect(await updateUserOf(id)).toBe(lib.bob);
  });

  it('clears the updating member when a key edits without naming one', async () => {
    const id = lib.files['red.png']!;
    const res = await asMember(editable.key, undefined, { id, input: { description: 'by the key' } });
    expect(res.body.data.updateLibraryFile.updateUser).toBeNull();
  });

  it("refuses another team's member with not_found and changes nothing", async () => {
    const id = lib.files['blue.jpg']!;
    const before = await updateUserOf(id);
    const outsider = (await given(env).member(lib.teamB, 'Zed')).userId;
    const res = await asMember(editable.key, outsider, { id, input: { description: 'sneaky' } });
    expect(res.body.errors[0].extensions.code).toBe('not_found');
    expect(await updateUserOf(id)).toBe(before);
  });

  it('refuses a usable key naming a member with forbidden', async () => {
    const res = await asMember(usable.key, lib.ann, { id: lib.files['blue.jpg']!, input: { description: 'x' } });
    expect(res.body.errors[0].extensions.code).toBe('forbidden');
  });
});
