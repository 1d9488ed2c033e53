import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let storageDir: string;
let g: ReturnType<typeof given>;
let team: GivenTeam;
let manager: GivenKey;
let brand: BrandView;

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'shelf-categories-'));
  env = await createTestEnv({ STORAGE_DIR: storageDir });
  g = given(env);
  team = await g.team();
  manager = await g.key(team, 'manage');
  brand = await g.brand(manager, { name: 'Acme' });
});
afterAll(async () => {
  await env.close();
  await rm(storageDir, { recursive: true, force: true });
});

/** Every category row of a team, deleted ones and timestamps included: any write changes it. */
async function snapshot(teamId: number): Promise<unknown[]> {
  return env.orm.em.fork().execute('select *, updated_at::text as updated, deleted_at::text as deleted from categories where team_id = ? order by id', [teamId]);
}

const create = (key: string, body: unknown, headers?: Record<string, string>) => send(env, { method: 'POST', url: '/v1/categories', key, body, headers });
const patch = (key: string, id: number, body: unknown, headers?: Record<string, string>) => send(env, { method: 'PATCH', url: `/v1/categories/${id}`, key, body, headers });
const remove = (key: string, id: number, headers?: Record<string, string>) => send(env, { method: 'DELETE', url: `/v1/categories/${id}`, key, headers });
const read = (key: string, id: number) => send(env, { url: `/v1/categories/${id}`, key });

async function freshBrand(name = 'Fresh'): Promise<BrandView> {
  return g.brand(manager, { name });
}

describe('POST /v1/categories (createCategory)', () => {
  it('creates a root with 201, the envelope, an ETag and every field of spec 2.3', async () => {
    const icon = await g.categoryIcon(team);
    const res = await create(manager.key, { brandId: brand.id, name: 'Shoes', description: 'Footwear', iconEmoji: '👟', iconAssetId: icon.id, isEnabled: false });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, code: null, message: null });
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      brandId: brand.id,
      parentId: null,
      name: 'Shoes',
      pathKey: '/Shoes',
      description: 'Footwear',
      iconEmoji: '👟',
      iconAssetId: icon.id,
      sortOrder: 0,
      isEnabled: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
  });

  it('defaults to an enabled root without description or icons', async () => {
    const b = await freshBrand();
    const res = await create(manager.key, { brandId: b.id, name: 'Plain' });
    expect(res.body.data).toMatchObject({ parentId: null, description: null, iconEmoji: null, iconAssetId: null, isEnabled: true, sortOrder: 0 });
  });

  it("gives a child the parent's path followed by a slash and its name", async () => {
    const b = await freshBrand();
    const root = await g.category(manager, { brandId: b.id, name: 'Shoes' });
    const child = await create(manager.key, { brandId: b.id, parentId: root.id, name: 'Running' });
    const grandchild = await create(manager.key, { brandId: b.id, parentId: child.body.data.id, name: 'Trail' });
    expect(child.body.data).toMatchObject({ parentId: root.id, pathKey: '/Shoes/Running' });
    expect(grandchild.body.data.pathKey).toBe('/Shoes/Running/Trail');
  });

  it('keeps the name exactly as sent, surrounding spaces included', async () => {
    const b = await freshBrand();
    const res = await create(manager.key, { brandId: b.id, name: '  Spaced out ' });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('  Spaced out ');
    expect(res.body.data.pathKey).toBe('/  Spaced out ');
  });

  it('accepts a 64-character name and a name of 64 emoji (characters, not bytes)', async () => {
    const b = await freshBrand();
    expect((await create(manager.key, { brandId: b.id, name: 'n'.repeat(64) })).status).toBe(201);
    const emoji = await create(manager.key, { brandId: b.id, name: '😀'.repeat(64) });
    expect(emoji.status).toBe(201);
    expect(emoji.body.data.name).toBe('😀'.repeat(64));
  });

  it('accepts a 16-character iconEmoji', async () => {
    const b = await freshBrand();
    const res = await create(manager.key, { brandId: b.id, name: 'x', iconEmoji: '⭐'.repeat(16) });
    expect(res.status).toBe(201);
    expect(res.body.data.iconEmoji).toBe('⭐'.repeat(16));
  });

  it('rejects a duplicate live sibling name with 409 name_in_use and writes nothing', async () => {
    const b = await freshBrand();
    const root = await g.category(manager, { brandId: b.id, name: 'Shoes' });
    await g.category(manager, { brandId: b.id, parentId: root.id, name: 'Running' });
    const before = await snapshot(team.teamId);
    const rootClash = await create(manager.key, { brandId: b.id, name: 'Shoes' });
    const childClash = await create(manager.key, { brandId: b.id, parentId: root.id, name: 'Running' });
    for (const res of [rootClash, childClash]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'name_in_use' });
    }
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('compares names exactly: case and spaces make a different name', async () => {
    const b = await freshBrand();
    await g.category(manager, { brandId: b.id, name: 'Shoes' });
    expect((await create(manager.key, { brandId: b.id, name: 'shoes' })).status).toBe(201);
    expect((await create(manager.key, { brandId: b.id, name: 'Shoes ' })).status).toBe(201);
  });

  it('allows the same name under different parents, in different brands, and again once the sibling is deleted', async () => {
    const b = await freshBrand();
    const other = await freshBrand('Other');
    const a = await g.category(manager, { brandId: b.id, name: 'A' });
    const c = await g.category(manager, { brandId: b.id, name: 'C' });
    expect((await create(manager.key, { brandId: b.id, parentId: a.id, name: 'Kids' })).status).toBe(201);
    expect((await create(manager.key, { brandId: b.id, parentId: c.id, name: 'Kids' })).status).toBe(201);
    expect((await create(manager.key, { brandId: other.id, name: 'A' })).status).toBe(201);
    expect((await remove(manager.key, a.id)).status).toBe(200);
    expect((await create(manager.key, { brandId: b.id, name: 'A' })).status).toBe(201);
  });

  const badBodies: Array<[string, unknown, string]> = [
    ['a missing brandId', { name: 'x' }, 'brandId'],
    ['a missing name', { brandId: 1 }, 'name'],
    ['an empty name', { brandId: 1, name: '' }, 'name'],
    ['a whitespace-only name', { brandId: 1, name: ' \t ' }, 'name'],
    ['a name with a slash', { brandId: 1, name: 'a/b' }, 'name'],
    ['a 65-character name', { brandId: 1, name: 'n'.repeat(65) }, 'name'],
    ['a non-string name', { brandId: 1, name: 7 }, 'name'],
    ['an unknown field', { brandId: 1, name: 'x', colour: 'red' }, 'colour'],
    ['a pathKey (server-computed)', { brandId: 1, name: 'x', pathKey: '/x' }, 'pathKey'],
    ['a brandId of 0', { brandId: 0, name: 'x' }, 'brandId'],
    ['a brandId above 2147483647', { brandId: 2147483648, name: 'x' }, 'brandId'],
    ['a string brandId', { brandId: '1', name: 'x' }, 'brandId'],
    ['a parentId of 0', { brandId: 1, name: 'x', parentId: 0 }, 'parentId'],
    ['a negative sortOrder', { brandId: 1, name: 'x', sortOrder: -1 }, 'sortOrder'],
    ['a sortOrder above 5000', { brandId: 1, name: 'x', sortOrder: 5001 }, 'sortOrder'],
    ['a fractional sortOrder', { brandId: 1, name: 'x', sortOrder: 0.5 }, 'sortOrder'],
    ['a 17-character iconEmoji', { brandId: 1, name: 'x', iconEmoji: 'e'.repeat(17) }, 'iconEmoji'],
    ['an iconAssetId of 0', { brandId: 1, name: 'x', iconAssetId: 0 }, 'iconAssetId'],
    ['a string isEnabled', { brandId: 1, name: 'x', isEnabled: 'yes' }, 'isEnabled'],
    ['a numeric description', { brandId: 1, name: 'x', description: 5 }, 'description'],
    ['an array body', [{ brandId: 1, name: 'x' }], '(body)'],
  ];
  for (const [label, body, field] of badBodies) {
    it(`rejects ${label} with 422 validation_failed naming ${field}, and writes nothing`, async () => {
      const withBrand = Array.isArray(body) || (body as { brandId?: unknown }).brandId !== 1 ? body : { ...(body as object), brandId: brand.id };
      const before = await snapshot(team.teamId);
      const res = await create(manager.key, withBrand);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'validation_failed' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await snapshot(team.teamId)).toEqual(before);
    });
  }

  it('rejects malformed JSON with 422 validation_failed and writes nothing', async () => {
    const before = await snapshot(team.teamId);
    const res = await send(env, { method: 'POST', url: '/v1/categories', key: manager.key, rawBody: '{"brandId": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('rejects a brand that does not exist or is deleted with 422 validation_failed on brandId, and writes nothing', async () => {
    const deleted = await freshBrand('Deleted');
    expect((await send(env, { method: 'DELETE', url: `/v1/brands/${deleted.id}`, key: manager.key })).status).toBe(200);
    const before = await snapshot(team.teamId);
    for (const brandId of [2147483647, deleted.id]) {
      const res = await create(manager.key, { brandId, name: 'x' });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: 'brandId', message: expect.any(String) }]);
    }
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('rejects a parent that does not exist, is deleted, or belongs to another brand with 422 on parentId, and writes nothing', async () => {
    const b = await freshBrand();
    const other = await freshBrand('Other');
    const foreignParent = await g.category(manager, { brandId: other.id, name: 'Foreign' });
    const deletedParent = await g.category(manager, { brandId: b.id, name: 'Deleted' });
    await remove(manager.key, deletedParent.id);
    const before = await snapshot(team.teamId);
    for (const parentId of [2147483647, deletedParent.id, foreignParent.id]) {
      const res = await create(manager.key, { brandId: b.id, parentId, name: 'x' });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    }
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('rejects an iconAssetId that is not a category icon of the team with 422, and writes nothing', async () => {
    const otherTeam = await g.team('Other');
    const foreignIcon = await g.categoryIcon(otherTeam);
    const before = await snapshot(team.teamId);
    for (const iconAssetId of [2147483647, foreignIcon.id]) {
      const res = await create(manager.key, { brandId: brand.id, name: 'Iconic', iconAssetId });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: 'iconAssetId', message: expect.any(String) }]);
    }
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('replays the first outcome for a repeated Idempotency-Key and creates one category', async () => {
    const b = await freshBrand();
    const headers = { 'idempotency-key': 'create-shoes-1' };
    const first = await create(manager.key, { brandId: b.id, name: 'Once' }, headers);
    const again = await create(manager.key, { brandId: b.id, name: 'Once' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(again.headers.etag).toBe(first.headers.etag);
    const rows = (await snapshot(team.teamId)) as Array<{ brand_id: number }>;
    expect(rows.filter((r) => r.brand_id === b.id)).toHaveLength(1);
  });

  it('refuses a reused Idempotency-Key with different input with 409 idempotency_key_reused and writes nothing', async () => {
    const b = await freshBrand();
    const headers = { 'idempotency-key': 'create-shoes-2' };
    await create(manager.key, { brandId: b.id, name: 'First' }, headers);
    const before = await snapshot(team.teamId);
    const res = await create(manager.key, { brandId: b.id, name: 'Second' }, headers);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('rejects a blank Idempotency-Key with 422 and writes nothing', async () => {
    const before = await snapshot(team.teamId);
    const res = await create(manager.key, { brandId: brand.id, name: 'Blank key' }, { 'idempotency-key': '   ' });
    expect(res.status).toBe(422);
    expect(await snapshot(team.teamId)).toEqual(before);
  });
});

describe('GET /v1/categories (listCategorys)', () => {
  it('lists the flat live tree ordered by brandId, parentId (roots first), sortOrder, id, without ETag', async () => {
    const t = await g.team();
    const owner = await g.key(t, 'manage');
    const reader = await g.key(t, 'view_only');
    const b1 = await g.brand(owner, { name: 'B1' });
    const b2 = await g.brand(owner, { name: 'B2' });
    const r2 = await g.category(owner, { brandId: b2.id, name: 'R2' });
    const r1b = await g.category(owner, { brandId: b1.id, name: 'R1b' });
    const r1a = await g.category(owner, { brandId: b1.id, name: 'R1a', sortOrder: 0 });
    const c1 = await g.category(owner, { brandId: b1.id, parentId: r1b.id, name: 'C1' });
    const c0 = await g.category(owner, { brandId: b1.id, parentId: r1b.id, name: 'C0', sortOrder: 0 });
    const d = await g.category(owner, { brandId: b1.id, parentId: r1a.id, name: 'D' });
    const res = await send(env, { url: '/v1/categories?pageSize=100', key: reader.key });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    // r1b was created before r1a, so its id is lower: children of r1b come before children of r1a
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([r1a.id, r1b.id, c0.id, c1.id, d.id, r2.id]);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 100, totalCount: 6, totalPages: 1 });
  });

  it('pages through the list with ordinary pagination', async () => {
    const t = await g.team();
    const owner = await g.key(t, 'manage');
    const b = await g.brand(owner);
    const made = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) made.push(await g.category(owner, { brandId: b.id, name }));
    const page2 = await send(env, { url: '/v1/categories?pageSize=2&page=2', key: owner.key });
    expect(page2.body.data.map((c: { name: string }) => c.name)).toEqual(['c', 'd']);
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, totalCount: 5, totalPages: 3 });
    const past = await send(env, { url: '/v1/categories?pageSize=2&page=9', key: owner.key });
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.totalCount).toBe(5);
  });

  it('filters by brandId, and leaves out deleted categories', async () => {
    const b = await freshBrand();
    const keep = await g.category(manager, { brandId: b.id, name: 'Keep' });
    const gone = await g.category(manager, { brandId: b.id, name: 'Gone' });
    await remove(manager.key, gone.id);
    const res = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: manager.key });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([keep.id]);
    expect(res.body.pagination.totalCount).toBe(1);
  });

  it('caps pageSize above 100 at 100 and ignores unknown query parameters', async () => {
    const res = await send(env, { url: '/v1/categories?pageSize=500&colour=red', key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.pagination.pageSize).toBe(100);
  });

  for (const query of ['page=0', 'pageSize=0', 'page=abc', 'brandId=0', 'brandId=abc', 'brandId=2147483648']) {
    it(`rejects ${query} with 422 validation_failed`, async () => {
      const res = await send(env, { url: `/v1/categories?${query}`, key: manager.key });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    });
  }
});

describe('GET /v1/categories/{id} (getCategory)', () => {
  it('returns the category with the ETag it was created with', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Read me' });
    const res = await read(manager.key, created.body.data.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(created.body.data);
    expect(res.headers.etag).toBe(created.headers.etag);
  });

  it('gives 404 not_found for a missing or deleted category', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Gone' });
    await remove(manager.key, c.id);
    for (const id of [2147483647, c.id]) {
      const res = await read(manager.key, id);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'not_found' });
    }
  });

  for (const id of ['0', '-1', 'abc', '2147483648']) {
    it(`rejects the path id ${id} with 422 validation_failed`, async () => {
      const res = await read(manager.key, id as unknown as number);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('id');
    });
  }
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

describe('roles (spec 4.3: reads any role, writes manage only)', () => {
  const roles: Role[] = ['view_only', 'usable', 'editable', 'manage'];
  for (const role of roles) {
    it(`${role}: can list and get categories`, async () => {
      const key = await g.key(team, role);
      const b = await freshBrand();
      const c = await g.category(manager, { brandId: b.id, name: 'Visible' });
      const list = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: key.key });
      expect(list.status).toBe(200);
      expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([c.id]);
      const one = await read(key.key, c.id);
      expect(one.status).toBe(200);
    });

    const allowed = role === 'manage';
    it(`${role}: ${allowed ? 'can' : 'cannot (403 forbidden, nothing changes)'} create, update and delete`, async () => {
      const key = await g.key(team, role);
      const b = await freshBrand();
      const c = await g.category(manager, { brandId: b.id, name: 'Target' });
      const before = await snapshot(team.teamId);
      const created = await create(key.key, { brandId: b.id, name: 'New' });
      const updated = await patch(key.key, c.id, { name: 'Renamed' });
      const deleted = await remove(key.key, c.id);
      if (allowed) {
        expect([created.status, updated.status, deleted.status]).toEqual([201, 200, 200]);
      } else {
        for (const res of [created, updated, deleted]) {
          expect(res.status).toBe(403);
          expect(res.body.code).toBe('forbidden');
        }
        expect(await snapshot(team.teamId)).toEqual(before);
      }
    });
  }

  it('checks the role before the body: a view_only key with an invalid body gets 403, not 422', async () => {
    const key = await g.key(team, 'view_only');
    const res = await create(key.key, { name: '' });
    expect(res.status).toBe(403);
  });

  it('refuses a request without a key with 401', async () => {
    const res = await send(env, { url: '/v1/categories' });
    expect(res.status).toBe(401);
  });
});

describe('cross-team isolation', () => {
  it("gives a key of team B 404 for team A's category on get, update and delete, and changes nothing", async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Private' });
    const other = await g.key(await g.team('B'), 'manage');
    const before = await snapshot(team.teamId);
    expect((await read(other.key, c.id)).status).toBe(404);
    expect((await patch(other.key, c.id, { name: 'Stolen' })).status).toBe(404);
    expect((await remove(other.key, c.id)).status).toBe(404);
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it("never lists team A's categories to team B, even when filtering by A's brand id", async () => {
    const b = await freshBrand();
    await g.category(manager, { brandId: b.id, name: 'Private' });
    const other = await g.key(await g.team('B'), 'manage');
    const all = await send(env, { url: '/v1/categories?pageSize=100', key: other.key });
    const filtered = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: other.key });
    expect(all.body.data).toEqual([]);
    expect(filtered.body.data).toEqual([]);
    expect(filtered.body.pagination.totalCount).toBe(0);
  });

  it("rejects team A's brand or parent in team B's create or move with 422 validation_failed, and changes nothing", async () => {
    const aBrand = await freshBrand();
    const aParent = await g.category(manager, { brandId: aBrand.id, name: 'A parent' });
    const bTeam = await g.team('B');
    const bKey = await g.key(bTeam, 'manage');
    const bBrand = await g.brand(bKey, { name: 'B brand' });
    const bCategory = await g.category(bKey, { brandId: bBrand.id, name: 'B cat' });
    const beforeA = await snapshot(team.teamId);
    const beforeB = await snapshot(bTeam.teamId);
    const viaBrand = await create(bKey.key, { brandId: aBrand.id, name: 'x' });
    const viaParent = await create(bKey.key, { brandId: bBrand.id, parentId: aParent.id, name: 'x' });
    const viaMove = await patch(bKey.key, bCategory.id, { parentId: aParent.id });
    expect(viaBrand.body.details).toEqual([{ field: 'brandId', message: expect.any(String) }]);
    expect(viaParent.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    expect(viaMove.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    for (const res of [viaBrand, viaParent, viaMove]) expect(res.status).toBe(422);
    expect(await snapshot(team.teamId)).toEqual(beforeA);
    expect(await snapshot(bTeam.teamId)).toEqual(beforeB);
  });
});
