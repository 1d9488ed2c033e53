import { beforeAll, describe, expect, it } from 'vitest';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type CategoryRestWorld, useCategoryRest } from './category.rest.support.ts';

/** POST /v1/categories (spec 2.3, 4.3). */
const { world, snapshot, create, remove, freshBrand } = useCategoryRest();
let env: TestEnv;
let g: CategoryRestWorld['g'];
let team: GivenTeam;
let manager: GivenKey;
let brand: BrandView;

beforeAll(() => {
  ({ env, g, team, manager, brand } = world);
});

describe('POST /v1/categories (createCategory)', () => {
  it('creates a root with 201, the envelope, an ETag and every field of spec 2.3', async () => {
    const icon = await g.categoryIcon(team);
    const res = await create(manager.key, {
      brandId: brand.id,
      name: 'Shoes',
      description: 'Footwear',
      iconEmoji: '👟',
      iconAssetId: icon.id,
      isEnabled: false,
    });
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
    const res = await send(env, {
      method: 'POST',
      url: '/v1/categories',
      key: manager.key,
      rawBody: '{"brandId": ',
      headers: { 'content-type': 'application/json' },
    });
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
