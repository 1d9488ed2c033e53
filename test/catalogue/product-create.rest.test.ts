import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { ALL_TYPES_FIELDS, fieldIds, givenProducts } from '../support/given-products.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';

/** POST /v1/products (spec 4.5 ProductCreate, 2.5, 3.1, 7.1, 8). */
let env: TestEnv;
let g: ReturnType<typeof given>;
let gp: ReturnType<typeof givenProducts>;
let gt: ReturnType<typeof givenTemplates>;
let dirs: Array<Awaited<ReturnType<typeof tempDir>>>;
let team: GivenTeam;
let editor: GivenKey;
let other: GivenTeam;
let otherKey: GivenKey;
let template: TemplateView;
let ids: Record<string, string>;
let files: { png: number; png2: number; png3: number; txt: number; txt2: number; foreign: number };

beforeAll(async () => {
  const storage = await tempDir('storage');
  const inputs = await tempDir('inputs');
  dirs = [storage, inputs];
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  g = given(env);
  gp = givenProducts(env, inputs.path);
  gt = givenTemplates(env);
  team = await g.team('A');
  editor = await g.key(team, 'editable');
  other = await g.team('B');
  otherKey = await g.key(other, 'manage');
  const manager = await g.key(team, 'manage');
  template = await gt.template(manager, { groups: [{ name: 'All', fields: ALL_TYPES_FIELDS }] });
  ids = fieldIds(template);
  files = {
    png: await gp.image(team, 'front.png'),
    png2: await gp.image(team, 'back.png'),
    png3: await gp.image(team, 'side.png'),
    txt: await gp.textFile(team, 'manual.txt'),
    txt2: await gp.textFile(team, 'notes.txt'),
    foreign: await gp.image(other, 'foreign.png'),
  };
});
afterAll(async () => {
  await env.close();
  for (const dir of dirs) await dir.remove();
});

const create = (body: unknown, key: GivenKey = editor, headers: Record<string, string> = {}) =>
  send(env, { method: 'POST', url: '/v1/products', key: key.key, body, headers });
const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

/** Refused writes must leave the table exactly as it was. */
async function expectRefused(body: unknown, status: number, code: string, field?: string): Promise<void> {
  const before = await gp.snapshot(team.teamId);
  const res = await create(body);
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, data: null, code });
  if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  expect(await gp.snapshot(team.teamId)).toBe(before);
}

describe('POST /v1/products: the draft and its representation', () => {
  it('always creates a draft: 201, ETag, status draft, publishedAt null, every ProductDetail field of spec 2.5', async () => {
    const res = await create({ name: 'Chair' });
    expect(res.status).toBe(201);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(Object.keys(res.body.data).sort()).toEqual(
      ['brandId', 'categoryId', 'cover', 'createdAt', 'description', 'draftReason', 'id', 'images', 'name', 'ownerUserId', 'publishedAt', 'relatedAssets',
        'spu', 'status', 'templateDefinition', 'templateFields', 'templateId', 'templateVersionId', 'updatedAt'].sort(),
    );
    expect(res.body.data).toMatchObject({ name: 'Chair', status: 'draft', publishedAt: null, spu: null, ownerUserId: null, cover: null, images: [], relatedAssets: [] });
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

  it('rejects a deleted brand, a deleted category and other libraries\' brands, categories and members with 422', async () => {
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

describe('POST /v1/products: template resolution and pinning (spec 4.5)', () => {
  async function library() {
    const key = await g.key(await g.team(), 'manage');
    const brand = await g.brand(key);
    const root = await g.category(key, { brandId: brand.id, name: 'Root' });
    const child = await g.category(key, { brandId: brand.id, name: 'Child', parentId: root.id });
    return { key, brand, root, child };
  }
  const pinned = (res: { body: { data: { templateId: string | null; templateVersionId: string | null } } }) => [res.body.data.templateId, res.body.data.templateVersionId];

  it('pins the explicit templateId first, even when the category is bound to another template', async () => {
    const { key, brand, root } = await library();
    const bound = await gt.template(key, { boundCategoryIds: [root.id] });
    const explicit = await gt.template(key);
    const res = await create({ brandId: brand.id, categoryId: root.id, templateId: explicit.id }, key);
    expect(res.status).toBe(201);
    expect(res.body.data.templateId).toBe(explicit.id);
    expect(res.body.data.templateId).not.toBe(bound.id);
    expect(res.body.data.templateVersionId).toBe(await env.core.catalogue.templates.latestVersionId(await g.ctx(key), explicit.id));
  });

  it('resolves the binding of the category or its nearest bound ancestor, then the brand binding, then the library default', async () => {
    const { key, brand, root, child } = await library();
    const byDefault = await gt.template(key, { isLibraryDefault: true, boundBrandIds: [] });
    const byBrand = await gt.template(key, { boundBrandIds: [brand.id] });
    // the default was bound to the categories at their creation (spec 4.3); move them away explicitly
    await send(env, { method: 'PATCH', url: `/v1/product-info-templates/${byDefault.id}`, key: key.key, body: { boundCategoryIds: [] } });
    expect((await create({ brandId: brand.id, categoryId: child.id }, key)).body.data.templateId).toBe(byBrand.id);
    const byRoot = await gt.template(key, { boundCategoryIds: [root.id] });
    expect((await create({ brandId: brand.id, categoryId: child.id }, key)).body.data.templateId).toBe(byRoot.id);
    expect((await create({}, key)).body.data.templateId).toBe(byDefault.id);
  });

  it('without a category only the library default counts, even when brandId is given; with nothing to resolve the product has no template', async () => {
    const { key, brand } = await library();
    await gt.template(key, { boundBrandIds: [brand.id] });
    const res = await create({ brandId: brand.id }, key);
    expect(pinned(res)).toEqual([null, null]);
    expect(res.body.data.templateDefinition).toBeNull();
    expect(res.body.data.templateFields).toEqual({});
  });

  it('returns the pinned version\'s groups and fields as templateDefinition', async () => {
    const res = await create({ templateId: template.id });
    expect(res.body.data.templateDefinition).toEqual({ groups: template.groups });
  });

  it('rejects a deleted, unknown or other-library templateId with 422 on templateId', async () => {
    const manager = await g.key(team, 'manage');
    const gone = await gt.template(manager);
    await send(env, { method: 'DELETE', url: `/v1/product-info-templates/${gone.id}`, key: manager.key });
    const foreign = await gt.template(otherKey);
    for (const templateId of [gone.id, foreign.id, 'tpl_unknown']) await expectRefused({ templateId }, 422, 'validation_failed', 'templateId');
  });
});

describe('POST /v1/products: templateFields (keyed by stable custom field ID, validated even on drafts)', () => {
  const good: Array<[string, unknown]> = [
    ['tText', 'Oak'],
    ['tTextarea', 'Line one\nLine two'],
    ['tEmail', 'buyer@example.com'],
    ['tPhone', '+49 (30) 123-456'],
    ['tUrl', 'https://example.com/a?b=c'],
    ['tColor', '#A0b1C2'],
    ['tDate', '2024-02-29'],
    ['tRange', ['2026-01-01', '2026-01-31']],
    ['tNumber', -12.75],
    ['tPrice', 19.99],
    ['tHtml', '<p>Hello</p>'],
    ['tDelta', { ops: [{ insert: 'Hello ' }, { insert: 'world', attributes: { bold: true } }, { insert: '\n' }] }],
    ['tSelect', 's'],
    ['tRadio', 'b'],
    ['tCheck', ['x', 'y']],
  ];
  for (const [key, value] of good) {
    it(`accepts and returns a valid ${key} value ${JSON.stringify(value)}`, async () => {
      const res = await create({ templateId: template.id, templateFields: { [ids[key]!]: value } });
      expect(res.status).toBe(201);
      expect(res.body.data.templateFields).toEqual({ [ids[key]!]: value });
    });
  }

  const bad: Array<[string, unknown]> = [
    ['tText', 5],
    ['tText', 'x'.repeat(1001)],
    ['tEmail', 'not-an-email'],
    ['tPhone', 'call me'],
    ['tPhone', '12'],
    ['tUrl', 'ftp://example.com/file'],
    ['tUrl', 'example.com'],
    ['tColor', 'red'],
    ['tColor', '#12345'],
    ['tDate', '2023-02-29'],
    ['tDate', '2026-01-01T00:00:00Z'],
    ['tRange', ['2026-02-01', '2026-01-01']],
    ['tRange', ['2026-01-01']],
    ['tRange', '2026-01-01/2026-01-31'],
    ['tNumber', '12'],
    ['tPrice', 19.999],
    ['tPrice', '19.99'],
    ['tHtml', { ops: [] }],
    ['tDelta', '<p>html</p>'],
    ['tDelta', { ops: [{ bogus: 1 }] }],
    ['tDelta', { ops: [], extra: true }],
    ['tSelect', 'xl'],
    ['tSelect', 'old'],
    ['tRadio', ['a']],
    ['tCheck', 'x'],
    ['tCheck', ['x', 'x']],
    ['tCheck', ['oldc']],
  ];
  for (const [key, value] of bad) {
    it(`rejects ${key} = ${JSON.stringify(value).slice(0, 60)} with 422 naming templateFields.<id>, and writes nothing`, async () => {
      await expectRefused({ templateId: template.id, templateFields: { [ids[key]!]: value } }, 422, 'validation_failed', `templateFields.${ids[key]}`);
    });
  }

  it('rejects unknown field ids and system field ids with 422, and any field id on a product without a template', async () => {
    await expectRefused({ templateId: template.id, templateFields: { fld_unknown: 'x' } }, 422, 'validation_failed', 'templateFields.fld_unknown');
    await expectRefused({ templateId: template.id, templateFields: { [ids.name!]: 'x' } }, 422, 'validation_failed', `templateFields.${ids.name}`);
    await expectRefused({ templateFields: { [ids.tText!]: 'x' } }, 422, 'validation_failed', `templateFields.${ids.tText}`);
  });

  it('a null value on create leaves the field unset (omitted from templateFields)', async () => {
    const res = await create({ templateId: template.id, templateFields: { [ids.tText!]: null, [ids.tNumber!]: 3 } });
    expect(res.body.data.templateFields).toEqual({ [ids.tNumber!]: 3 });
  });

  it('accepts a draft without its required template values, and names them in draftReason', async () => {
    const res = await create({ name: 'Draft', templateId: template.id });
    expect(res.status).toBe(201);
    expect(res.body.data.draftReason).toContain(`templateFields.${ids.tText}`);
  });
});

describe('POST /v1/products: media (spec 4.5, 8)', () => {
  it('makes the first image the cover when no cover is given, and keeps list order', async () => {
    const res = await create({ imageAssetIds: [files.png2, files.png], relatedAssetIds: [files.txt] });
    expect(res.body.data.cover.id).toBe(files.png2);
    expect(res.body.data.images.map((m: { id: number }) => m.id)).toEqual([files.png2, files.png]);
    expect(res.body.data.relatedAssets.map((m: { id: number }) => m.id)).toEqual([files.txt]);
  });

  it('uses an explicit cover, and returns media objects with a decimal-string size and links', async () => {
    const res = await create({ coverAssetId: files.png3, imageAssetIds: [files.png] });
    expect(res.body.data.cover).toMatchObject({ id: files.png3, name: 'side.png', mimeType: 'image/png', width: 16, height: 12, duration: null });
    expect(res.body.data.cover.size).toMatch(/^\d+$/);
    expect(res.body.data.cover.previewUrl).toMatch(/^http:\/\/127\.0\.0\.1:8080\/files\//);
    expect(res.body.data.cover.downloadUrl).toMatch(/\/download\?/);
    expect(res.body.data.cover.downloadUrlExpiresAt).toMatch(/Z$/);
  });

  it('stores custom image and file values and returns them as media objects', async () => {
    const res = await create({ templateId: template.id, templateFields: { [ids.tImage!]: [files.png, files.png2], [ids.tFile!]: [files.txt] } });
    expect(res.status).toBe(201);
    expect(res.body.data.templateFields[ids.tImage!].map((m: { id: number }) => m.id)).toEqual([files.png, files.png2]);
    expect(res.body.data.templateFields[ids.tFile!][0]).toMatchObject({ id: files.txt, name: 'manual.txt', mimeType: 'text/plain' });
  });

  it("rejects another library's file and an unknown file with 422 naming the slot, and writes nothing", async () => {
    await expectRefused({ imageAssetIds: [files.png, files.foreign] }, 422, 'validation_failed', 'imageAssetIds[1]');
    await expectRefused({ coverAssetId: files.foreign }, 422, 'validation_failed', 'coverAssetId');
    await expectRefused({ relatedAssetIds: [2147483647] }, 422, 'validation_failed', 'relatedAssetIds[0]');
    await expectRefused({ templateId: template.id, templateFields: { [ids.tFile!]: [files.foreign] } }, 422, 'validation_failed', `templateFields.${ids.tFile}[0]`);
  });

  it('rejects a deleted library file with 422', async () => {
    const gone = await gp.textFile(team, 'gone.txt');
    await db('update library_files set deleted_at = now() where id = ?', [gone]);
    await expectRefused({ relatedAssetIds: [gone] }, 422, 'validation_failed', 'relatedAssetIds[0]');
  });

  it('enforces the pinned field limits: maxCount, maxSizeMB, accept, and images only in image fields', async () => {
    const base = { templateId: template.id };
    await expectRefused({ ...base, templateFields: { [ids.tImage!]: [files.png, files.png2, files.png3] } }, 422, 'validation_failed', `templateFields.${ids.tImage}`);
    await expectRefused({ ...base, templateFields: { [ids.tTiny!]: [files.txt] } }, 422, 'validation_failed', `templateFields.${ids.tTiny}[0]`);
    await expectRefused({ ...base, templateFields: { [ids.tFile!]: [files.png] } }, 422, 'validation_failed', `templateFields.${ids.tFile}[0]`);
    await expectRefused({ ...base, templateFields: { [ids.tImage!]: [files.txt] } }, 422, 'validation_failed', `templateFields.${ids.tImage}[0]`);
    await expectRefused({ ...base, templateFields: { [ids.tFile!]: [files.txt, files.txt] } }, 422, 'validation_failed', `templateFields.${ids.tFile}`);
    await expectRefused({ ...base, templateFields: { [ids.tFile!]: 'x' } }, 422, 'validation_failed', `templateFields.${ids.tFile}`);
  });

  describe('the 100-reference limit', () => {
    let hundred: number[];
    beforeAll(async () => {
      hundred = await gp.textFiles(team, 100, 'many');
    });

    it('accepts 100 images (the first is the cover and is not counted twice)', async () => {
      const res = await create({ imageAssetIds: hundred });
      expect(res.status).toBe(201);
      expect(res.body.data.images).toHaveLength(100);
      expect(res.body.data.cover.id).toBe(hundred[0]);
    });

    it('rejects 101 references across cover, images, related assets and custom media with 422 on media, and writes nothing', async () => {
      await expectRefused({ coverAssetId: hundred[0], imageAssetIds: hundred }, 422, 'validation_failed', 'media');
      await expectRefused({ imageAssetIds: hundred.slice(0, 60), relatedAssetIds: hundred.slice(59, 100) }, 422, 'validation_failed', 'media');
      await expectRefused(
        { templateId: template.id, imageAssetIds: hundred.slice(0, 50), relatedAssetIds: hundred.slice(50, 99), templateFields: { [ids.tFile!]: [files.txt, files.txt2] } },
        422,
        'validation_failed',
        'media',
      );
    });

    it('rejects 101 imageAssetIds or relatedAssetIds with 422 (100 per list)', async () => {
      await expectRefused({ imageAssetIds: [...hundred, files.png] }, 422, 'validation_failed', 'imageAssetIds');
      await expectRefused({ relatedAssetIds: [...hundred, files.png] }, 422, 'validation_failed', 'relatedAssetIds');
    });
  });
});

describe('POST /v1/products: Idempotency-Key', () => {
  it('replays the original result and ETag, creating one product', async () => {
    const body = { name: 'Once', spu: 'IDEM-1', imageAssetIds: [files.png] };
    const first = await create(body, editor, { 'idempotency-key': 'create-once' });
    const again = await create(body, editor, { 'idempotency-key': 'create-once' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    const { cover: _c1, images: _i1, ...scalars } = first.body.data;
    const { cover: _c2, images: _i2, ...replayed } = again.body.data;
    expect(replayed).toEqual(scalars);
    expect(await db('select id from products where team_id = ? and spu = ?', [team.teamId, 'IDEM-1'])).toHaveLength(1);
  });

  it('on replay, shows media whose files were deleted since as unresolved, keeping the scalars and the ETag', async () => {
    const keep = await gp.image(team, 'keep.png');
    const lose = await gp.image(team, 'lose.png');
    const related = await gp.textFile(team, 'lose.txt');
    const body = { name: 'Replay', imageAssetIds: [lose, keep], relatedAssetIds: [related] };
    const first = await create(body, editor, { 'idempotency-key': 'replay-media' });
    await db('update library_files set deleted_at = now() where id in (?, ?)', [lose, related]);
    const again = await create(body, editor, { 'idempotency-key': 'replay-media' });
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.updatedAt).toBe(first.body.data.updatedAt);
    expect(again.body.data.images.map((m: { id: number | null }) => m.id)).toEqual([null, keep]);
    // the cover slot held the deleted first image: it is unresolved, not refilled from another slot
    expect(again.body.data.cover).toEqual({ id: null, name: null, mimeType: null, size: null, width: null, height: null, duration: null, previewUrl: null });
    expect(again.body.data.relatedAssets).toEqual([{ id: null, name: null, mimeType: null, size: null, width: null, height: null, duration: null, previewUrl: null }]);
  });

  it('refuses the same key with a different body with 409 idempotency_key_reused and writes nothing', async () => {
    await create({ name: 'Key' }, editor, { 'idempotency-key': 'reused-key' });
    const before = await gp.snapshot(team.teamId);
    const res = await create({ name: 'Other' }, editor, { 'idempotency-key': 'reused-key' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await gp.snapshot(team.teamId)).toBe(before);
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
