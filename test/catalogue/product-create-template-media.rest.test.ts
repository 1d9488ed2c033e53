import { beforeAll, describe, expect, it } from 'vitest';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import type { ProductWorld } from '../support/product-world.ts';
import { useProductCreate } from './product-create.rest.support.ts';

/** POST /v1/products (spec 4.5 ProductCreate, 2.5, 8): template resolution and templateFields, media, Idempotency-Key. */
const { world, create, db, expectRefused } = useProductCreate({ template: true });
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let gt: ProductWorld['gt'];
let team: GivenTeam;
let editor: GivenKey;
let otherKey: GivenKey;
let template: TemplateView;
let ids: Record<string, string>;
let files: { png: number; png2: number; png3: number; txt: number; txt2: number; foreign: number };

beforeAll(async () => {
  ({ env, g, gp, gt, team } = world);
  editor = world.keys.editable;
  otherKey = world.stranger;
  template = world.template!;
  ids = world.ids!;
  files = {
    png: await gp.image(team, 'front.png'),
    png2: await gp.image(team, 'back.png'),
    png3: await gp.image(team, 'side.png'),
    txt: await gp.textFile(team, 'manual.txt'),
    txt2: await gp.textFile(team, 'notes.txt'),
    foreign: await gp.image(world.other, 'foreign.png'),
  };
});

describe('POST /v1/products: template resolution and pinning (spec 4.5)', () => {
  async function library() {
    const key = await g.key(await g.team(), 'manage');
    const brand = await g.brand(key);
    const root = await g.category(key, { brandId: brand.id, name: 'Root' });
    const child = await g.category(key, { brandId: brand.id, name: 'Child', parentId: root.id });
    return { key, brand, root, child };
  }
  const pinned = (res: { body: { data: { templateId: string | null; templateVersionId: string | null } } }) => [
    res.body.data.templateId,
    res.body.data.templateVersionId,
  ];

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

  it("returns the pinned version's groups and fields as templateDefinition", async () => {
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

  it('accepts a draft without its required template values, and names them in draftReason with their labels', async () => {
    const res = await create({ name: 'Draft', templateId: template.id });
    expect(res.status).toBe(201);
    expect(res.body.data.draftReason).toContain(`templateFields.${ids.tText} ("Text")`);
  });

  it('answers a field key sent instead of its id with the id and label to use, and lists the valid ids, writing nothing', async () => {
    await expectRefused({ templateId: template.id, templateFields: { tNumber: 18 } }, 422, 'validation_failed', 'templateFields.tNumber');
    const res = await create({ templateId: template.id, templateFields: { tNumber: 18 } });
    const message = res.body.details.find((d: { field: string }) => d.field === 'templateFields.tNumber').message as string;
    expect(message).toContain(`"tNumber" is the key of field ${ids.tNumber} ("Number")`);
    expect(message).toContain(`${ids.tText} ("Text")`);
    expect(message).not.toContain(ids.name);
  });

  it("names the field's label and type next to a value that does not fit it", async () => {
    const res = await create({ templateId: template.id, templateFields: { [ids.tNumber!]: 'eighteen' } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: `templateFields.${ids.tNumber}`, message: 'must be a JSON number ("Number", a number field)' }]);
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
    await expectRefused(
      { templateId: template.id, templateFields: { [ids.tFile!]: [files.foreign] } },
      422,
      'validation_failed',
      `templateFields.${ids.tFile}[0]`,
    );
  });

  it('rejects a deleted library file with 422', async () => {
    const gone = await gp.textFile(team, 'gone.txt');
    await db('update library_files set deleted_at = now() where id = ?', [gone]);
    await expectRefused({ relatedAssetIds: [gone] }, 422, 'validation_failed', 'relatedAssetIds[0]');
  });

  it('enforces the pinned field limits: maxCount, maxSizeMB, accept, and images only in image fields', async () => {
    const base = { templateId: template.id };
    await expectRefused(
      { ...base, templateFields: { [ids.tImage!]: [files.png, files.png2, files.png3] } },
      422,
      'validation_failed',
      `templateFields.${ids.tImage}`,
    );
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
        {
          templateId: template.id,
          imageAssetIds: hundred.slice(0, 50),
          relatedAssetIds: hundred.slice(50, 99),
          templateFields: { [ids.tFile!]: [files.txt, files.txt2] },
        },
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
    expect(again.body.data.relatedAssets).toEqual([
      { id: null, name: null, mimeType: null, size: null, width: null, height: null, duration: null, previewUrl: null },
    ]);
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
