import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type CategoryRestWorld, useCategoryRest } from './category.rest.support.ts';

/** PATCH and DELETE /v1/categories/{id} (spec 2.3, 3.2, 4.3). */
const { world, snapshot, create, patch, remove, read, freshBrand } = useCategoryRest();
let env: TestEnv;
let g: CategoryRestWorld['g'];
let team: GivenTeam;
let manager: GivenKey;

beforeAll(() => {
  ({ env, g, team, manager } = world);
});

describe('PATCH /v1/categories/{id} (updateCategory)', () => {
  it('changes only the given fields, bumps updatedAt and returns a new ETag', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Old', description: 'keep', iconEmoji: '🧢' });
    const res = await patch(manager.key, created.body.data.id, { isEnabled: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...created.body.data, isEnabled: false, updatedAt: expect.any(String) });
    expect(res.body.data.updatedAt > created.body.data.updatedAt).toBe(true);
    expect(res.headers.etag).not.toBe(created.headers.etag);
    expect((await read(manager.key, created.body.data.id)).headers.etag).toBe(res.headers.etag);
  });

  it('sets and clears description, iconEmoji and iconAssetId', async () => {
    const b = await freshBrand();
    const icon = await g.categoryIcon(team);
    const c = await g.category(manager, { brandId: b.id, name: 'Icons' });
    const set = await patch(manager.key, c.id, { description: 'd', iconEmoji: '🎒', iconAssetId: icon.id });
    expect(set.body.data).toMatchObject({ description: 'd', iconEmoji: '🎒', iconAssetId: icon.id });
    const cleared = await patch(manager.key, c.id, { description: null, iconEmoji: null, iconAssetId: null });
    expect(cleared.body.data).toMatchObject({ description: null, iconEmoji: null, iconAssetId: null });
  });

  it('allows renaming a category to its own name', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Same' });
    expect((await patch(manager.key, c.id, { name: 'Same' })).status).toBe(200);
  });

  it('refuses a rename to a live sibling name with 409 name_in_use and changes nothing', async () => {
    const b = await freshBrand();
    await g.category(manager, { brandId: b.id, name: 'Taken' });
    const c = await g.category(manager, { brandId: b.id, name: 'Mine' });
    const before = await snapshot(team.teamId);
    const res = await patch(manager.key, c.id, { name: 'Taken' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('name_in_use');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('rejects brandId as an unknown field (it is immutable) with 422 and changes nothing', async () => {
    const b = await freshBrand();
    const other = await freshBrand('Other');
    const c = await g.category(manager, { brandId: b.id, name: 'Stay' });
    const before = await snapshot(team.teamId);
    const res = await patch(manager.key, c.id, { brandId: other.id });
    expect(res.status).toBe(422);
    expect(res.body.details).toContainEqual({ field: 'brandId', message: 'unknown field' });
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  const badPatches: Array<[string, unknown, string]> = [
    ['an empty body', {}, '(body)'],
    ['an unknown field', { nme: 'x' }, 'nme'],
    ['an empty name', { name: '' }, 'name'],
    ['a whitespace-only name', { name: '   ' }, 'name'],
    ['a name with a slash', { name: 'a/b' }, 'name'],
    ['a 65-character name', { name: 'n'.repeat(65) }, 'name'],
    ['a pathKey', { pathKey: '/elsewhere' }, 'pathKey'],
    ['a parentId of 0', { parentId: 0 }, 'parentId'],
    ['a negative sortOrder', { sortOrder: -1 }, 'sortOrder'],
    ['a sortOrder above 5000', { sortOrder: 5001 }, 'sortOrder'],
    ['a 17-character iconEmoji', { iconEmoji: 'e'.repeat(17) }, 'iconEmoji'],
    ['a string isEnabled', { isEnabled: 'no' }, 'isEnabled'],
    ['an iconAssetId that is no icon of the team', { iconAssetId: 2147483647 }, 'iconAssetId'],
  ];
  for (const [label, body, field] of badPatches) {
    it(`rejects ${label} with 422 validation_failed naming ${field}, and changes nothing`, async () => {
      const b = await freshBrand();
      const c = await g.category(manager, { brandId: b.id, name: 'Unchanged' });
      const before = await snapshot(team.teamId);
      const res = await patch(manager.key, c.id, body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await snapshot(team.teamId)).toEqual(before);
    });
  }

  it('applies the change when If-Match carries the current ETag', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Tagged' });
    const res = await patch(manager.key, created.body.data.id, { name: 'Retagged' }, { 'if-match': created.headers.etag! });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe('Retagged');
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Stale' });
    await patch(manager.key, created.body.data.id, { description: 'changed elsewhere' });
    const before = await snapshot(team.teamId);
    const res = await patch(manager.key, created.body.data.id, { name: 'Mine' }, { 'if-match': created.headers.etag! });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('precondition_failed');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it("changes a category's ETag when a sibling insert changes its position", async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Was first' });
    await create(manager.key, { brandId: b.id, name: 'New first', sortOrder: 0 });
    const res = await patch(manager.key, created.body.data.id, { description: 'x' }, { 'if-match': created.headers.etag! });
    expect(res.status).toBe(412);
  });

  it('lets the later write win when If-Match is omitted', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'First' });
    await patch(manager.key, c.id, { name: 'Second' });
    const res = await patch(manager.key, c.id, { name: 'Third' });
    expect(res.body.data.name).toBe('Third');
  });

  it('rejects a malformed path id on PATCH and DELETE with 422 validation_failed and changes nothing', async () => {
    const before = await snapshot(team.teamId);
    for (const id of ['0', 'abc', '2147483648']) {
      for (const res of [await patch(manager.key, id as unknown as number, { name: 'x' }), await remove(manager.key, id as unknown as number)]) {
        expect(res.status).toBe(422);
        expect(res.body.details[0].field).toBe('id');
      }
    }
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('gives 404 not_found for a missing or deleted category and changes nothing', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Gone' });
    await remove(manager.key, c.id);
    const before = await snapshot(team.teamId);
    for (const id of [2147483647, c.id]) expect((await patch(manager.key, id, { name: 'x' })).status).toBe(404);
    expect(await snapshot(team.teamId)).toEqual(before);
  });
});

describe('DELETE /v1/categories/{id} (deleteCategory)', () => {
  it('soft-deletes: 200 with data {id} and an ETag; the category then reads and lists as absent', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Gone' });
    const res = await remove(manager.key, c.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: c.id });
    expect(res.headers.etag).toMatch(/^"/);
    expect((await read(manager.key, c.id)).status).toBe(404);
    const list = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: manager.key });
    expect(list.body.data).toEqual([]);
    const rows = await env.orm.em.fork().execute<{ deleted_at: string | null }[]>('select deleted_at from categories where id = ?', [c.id]);
    expect(rows[0]!.deleted_at).not.toBeNull();
  });

  it('gives 404 on a second delete', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Twice' });
    await remove(manager.key, c.id);
    expect((await remove(manager.key, c.id)).status).toBe(404);
  });

  it('refuses a stale If-Match with 412 and deletes nothing', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Keep' });
    await patch(manager.key, created.body.data.id, { description: 'newer' });
    const before = await snapshot(team.teamId);
    const res = await remove(manager.key, created.body.data.id, { 'if-match': created.headers.etag! });
    expect(res.status).toBe(412);
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('deletes when If-Match carries the current ETag', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Matched' });
    expect((await remove(manager.key, created.body.data.id, { 'if-match': created.headers.etag! })).status).toBe(200);
  });
});
