import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import type { ProductWorld } from '../support/product-world.ts';
import { useProductCreate } from './product-create.rest.support.ts';

/** POST /v1/products (spec 4.5 ProductCreate, 2.5, 3.1, 7.1): the draft it makes, spu uniqueness, brand, category and owner, bad bodies. */
const { world, create, db, expectRefused } = useProductCreate();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let team: GivenTeam;
let editor: GivenKey;
let other: GivenTeam;
let otherKey: GivenKey;

beforeAll(() => {
  ({ env, g, gp, team, other } = world);
  editor = world.keys.editable;
  otherKey = world.stranger;
});

describe('POST /v1/products: the draft and its representation', () => {
  it('always creates a draft: 201, ETag, status draft, publishedAt null, every ProductDetail field of spec 2.5', async () => {
    const res = await create({ name: 'Chair' });
    expect(res.status).toBe(201);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'brandId',
        'categoryId',
        'cover',
        'createdAt',
        'description',
        'draftReason',
        'id',
        'images',
        'name',
        'ownerUserId',
        'publishedAt',
        'relatedAssets',
        'spu',
        'status',
        'templateDefinition',
        'templateFields',
        'templateId',
        'templateVersionId',
        'updatedAt',
      ].sort(),
    );
    expect(res.body.data).toMatchObject({
      name: 'Chair',
      status: 'draft',
      publishedAt: null,
      spu: null,
      ownerUserId: null,
      cover: null,
      images: [],
      relatedAssets: [],
    });
    expect(res.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(res.body.data.updatedAt).toBe(res.body.data.createdAt);
  });

  it('refuses a status field: a create cannot publish (unknown field, 422)', async () => {
    await expectRefused({ name: 'x', status: 'published' }, 422, 'validation_failed', 'status');
  });

  it('trims the name, and accepts an omitted or empty name on a draft', async () => {
    expect((await create({ name: '  Lamp  ' })).body.data.name).toBe('Lamp');
    expect((await create({})).body.data.name).toBe('');
    expect((await create({ name: '   ' })).body.data.name).toBe('');
  });

  it('accepts a 255-character name (also padded with spaces) and a 64-character spu', async () => {
    const res = await create({ name: `  ${'n'.repeat(255)}  `, spu: ` ${'s'.repeat(64)} ` });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toHaveLength(255);
    expect(res.body.data.spu).toHaveLength(64);
  });

  it('trims the spu and stores a blank spu as null', async () => {
    expect((await create({ spu: '  SKU-TRIM ' })).body.data.spu).toBe('SKU-TRIM');
    expect((await create({ spu: '   ' })).body.data.spu).toBeNull();
    expect((await create({ spu: null })).body.data.spu).toBeNull();
  });

  it('draftReason names what the draft lacks to be published (the name), and is null when complete', async () => {
    expect((await create({})).body.data.draftReason).toContain('name');
    expect((await create({ name: 'Complete' })).body.data.draftReason).toBeNull();
  });
});

describe('POST /v1/products: spu uniqueness (spec 2.5, 7.1 sku_in_use)', () => {
  it('rejects a spu another product of the library has with 409 sku_in_use and writes nothing', async () => {
    await create({ spu: 'DUP-1' });
    await expectRefused({ spu: 'DUP-1' }, 409, 'sku_in_use');
  });

  it('keeps the spu of a soft-deleted product reserved (409 sku_in_use)', async () => {
    const made = await create({ spu: 'DELETED-1' });
    expect((await send(env, { method: 'DELETE', url: `/v1/products/${made.body.data.id}`, key: editor.key })).status).toBe(200);
    await expectRefused({ spu: 'DELETED-1' }, 409, 'sku_in_use');
  });

  it('allows the same spu in another library', async () => {
    await create({ spu: 'SHARED-1' });
    expect((await create({ spu: 'SHARED-1' }, otherKey)).status).toBe(201);
  });

  it('gives exactly one 201 and one 409 sku_in_use when two creates race for one spu (unique index)', async () => {
    const results = await Promise.all([create({ spu: 'RACE-1' }), create({ spu: 'RACE-1' })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('sku_in_use');
    expect(await db('select id from products where team_id = ? and spu = ?', [team.teamId, 'RACE-1'])).toHaveLength(1);
  });
});

describe('POST /v1/products: brand, category and owner', () => {
  it('sets a live brand, a live category of that brand and a member owner', async () => {
    const manager = await g.key(team, 'manage');
    const brand = await g.brand(manager);
    const category = await g.category(manager, { brandId: brand.id, name: 'Seats' });
    const member = await g.member(team);
    const res = await create({ brandId: brand.id, categoryId: category.id, ownerUserId: member.userId, description: 'Nice' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ brandId: brand.id, categoryId: category.id, ownerUserId: member.userId, description: 'Nice' });
  });

  it('rejects a category of another brand, and a category without a brand, with 422 on categoryId', async () => {
    const manager = await g.key(team, 'manage');
    const [b1, b2] = [await g.brand(manager), await g.brand(manager)];
    const category = await g.category(manager, { brandId: b2.id, name: 'Other' });
    await expectRefused({ brandId: b1.id, categoryId: category.id }, 422, 'validation_failed', 'categoryId');
    await expectRefused({ categoryId: category.id }, 422, 'validation_failed', 'categoryId');
  });

  it("rejects a deleted brand, a deleted category and other libraries' brands, categories and members with 422", async () => {
    const manager = await g.key(team, 'manage');
    const gone = await g.brand(manager);
    await send(env, { method: 'DELETE', url: `/v1/brands/${gone.id}`, key: manager.key });
    const brand = await g.brand(manager);
    const goneCategory = await g.category(manager, { brandId: brand.id, name: 'Gone' });
    await send(env, { method: 'DELETE', url: `/v1/categories/${goneCategory.id}`, key: manager.key });
    const foreignBrand = await g.brand(otherKey);
    const foreignCategory = await g.category(otherKey, { brandId: foreignBrand.id, name: 'Foreign' });
    const foreignMember = await g.member(other);
    await expectRefused({ brandId: gone.id }, 422, 'validation_failed', 'brandId');
    await expectRefused({ brandId: brand.id, categoryId: goneCategory.id }, 422, 'validation_failed', 'categoryId');
    await expectRefused({ brandId: foreignBrand.id }, 422, 'validation_failed', 'brandId');
    await expectRefused({ brandId: brand.id, categoryId: foreignCategory.id }, 422, 'validation_failed', 'categoryId');
    await expectRefused({ ownerUserId: foreignMember.userId }, 422, 'validation_failed', 'ownerUserId');
    await expectRefused({ ownerUserId: 2147483647 }, 422, 'validation_failed', 'ownerUserId');
  });
});

describe('POST /v1/products: bad bodies', () => {
  const bad: Array<[string, unknown, string]> = [
    ['an unknown field', { name: 'x', colour: 'red' }, 'colour'],
    ['a non-string name', { name: 5 }, 'name'],
    ['a null name', { name: null }, 'name'],
    ['a 256-character name', { name: 'n'.repeat(256) }, 'name'],
    ['a 65-character spu', { spu: 's'.repeat(65) }, 'spu'],
    ['a numeric spu', { spu: 12 }, 'spu'],
    ['a non-string description', { description: 7 }, 'description'],
    ['brandId 0', { brandId: 0 }, 'brandId'],
    ['brandId above 2147483647', { brandId: 2147483648 }, 'brandId'],
    ['a string categoryId', { categoryId: '3' }, 'categoryId'],
    ['a fractional ownerUserId', { ownerUserId: 1.5 }, 'ownerUserId'],
    ['an empty templateId', { templateId: '' }, 'templateId'],
    ['a 129-character templateId', { templateId: 't'.repeat(129) }, 'templateId'],
    ['templateFields as an array', { templateFields: [] }, 'templateFields'],
    ['imageAssetIds null', { imageAssetIds: null }, 'imageAssetIds'],
    ['imageAssetIds with a duplicate', { imageAssetIds: [1, 1] }, 'imageAssetIds'],
    ['imageAssetIds with a string', { imageAssetIds: ['1'] }, 'imageAssetIds[0]'],
    ['relatedAssetIds with 0', { relatedAssetIds: [0] }, 'relatedAssetIds[0]'],
    ['a string coverAssetId', { coverAssetId: 'front.png' }, 'coverAssetId'],
    ['an array body', [{ name: 'x' }], '(body)'],
  ];
  for (const [label, body, field] of bad) {
    it(`rejects ${label} with 422 validation_failed naming ${field}, and writes nothing`, async () => {
      await expectRefused(body, 422, 'validation_failed', field);
    });
  }

  it('rejects malformed JSON with 422 and writes nothing', async () => {
    const before = await gp.snapshot(team.teamId);
    const res = await send(env, { method: 'POST', url: '/v1/products', key: editor.key, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(await gp.snapshot(team.teamId)).toBe(before);
  });

  it('gives 403 before 422: a view_only or usable key with a bad body is forbidden', async () => {
    for (const role of ['view_only', 'usable'] as const) {
      const res = await create({ name: 5 }, await g.key(team, role));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
  });
});
