import { beforeAll, describe, expect, it } from 'vitest';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { fieldIds } from '../support/given-products.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/** GET, PATCH, publish, unpublish, DELETE /v1/products/{id} and POST /v1/products/visibility (docs/products.md). */
const world = useProductWorld({ template: true });
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let gt: ProductWorld['gt'];
let team: GivenTeam;
let editor: GivenKey;
let manager: GivenKey;
let template: TemplateView;
let ids: Record<string, string>;

beforeAll(() => {
  ({ env, g, gp, gt, team } = world);
  editor = world.keys.editable;
  manager = world.keys.manage;
  template = world.template!;
  ids = world.ids!;
});

const url = (id: number, action = '') => `/v1/products/${id}${action}`;
const get = (id: number, key: GivenKey = editor) => send(env, { url: url(id), key: key.key });
const patch = (id: number, body: unknown, headers: Record<string, string> = {}, key: GivenKey = editor) =>
  send(env, { method: 'PATCH', url: url(id), key: key.key, body, headers });
const act = (id: number, action: 'publish' | 'unpublish', headers: Record<string, string> = {}, key: GivenKey = editor) =>
  send(env, { method: 'POST', url: url(id, `/${action}`), key: key.key, headers });
const remove = (id: number, headers: Record<string, string> = {}, key: GivenKey = editor) =>
  send(env, { method: 'DELETE', url: url(id), key: key.key, headers });
const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

async function expectUnchanged(work: () => Promise<{ status: number; body: any }>, status: number, code: string, field?: string) {
  const before = await gp.snapshot(team.teamId);
  const res = await work();
  expect(res.status).toBe(status);
  expect(res.body.code).toBe(code);
  if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  expect(await gp.snapshot(team.teamId)).toBe(before);
}

describe('GET /v1/products/{id}', () => {
  it('returns the ProductDetail with the same ETag as the create', async () => {
    const created = await send(env, { method: 'POST', url: '/v1/products', key: editor.key, body: { name: 'Read me', templateId: template.id } });
    const res = await get(created.body.data.id);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(created.headers.etag);
    const { cover: _a, ...read } = res.body.data;
    const { cover: _b, ...made } = created.body.data;
    expect(read).toEqual(made);
  });

  it('keeps the pinned templateDefinition after the template is edited and after it is deleted', async () => {
    const tpl = await gt.template(manager, { groups: [{ name: 'G', fields: [{ key: 'colour', name: 'Colour', type: 'text' }] }] });
    const product = await gp.published(editor, { templateId: tpl.id });
    const before = (await get(product.id)).body.data;
    await send(env, {
      method: 'PATCH',
      url: `/v1/product-info-templates/${tpl.id}`,
      key: manager.key,
      body: { groups: [{ id: tpl.groups[0]!.id, name: 'Renamed', fields: tpl.groups[0]!.fields.map((f) => ({ id: f.id })) }] },
    });
    await send(env, { method: 'DELETE', url: `/v1/product-info-templates/${tpl.id}`, key: manager.key });
    const after = (await get(product.id)).body.data;
    expect(after.templateDefinition).toEqual(before.templateDefinition);
    expect(after.templateDefinition.groups[0].name).toBe('G');
    expect(after.templateVersionId).toBe(before.templateVersionId);
    // the template itself is gone (404), yet every reader of the product still gets its pinned definition
    const reader = await g.key(team, 'view_only');
    expect((await send(env, { url: `/v1/product-info-templates/${tpl.id}`, key: reader.key })).status).toBe(404);
    expect((await get(product.id, reader)).body.data.templateDefinition).toEqual(before.templateDefinition);
  });

  it("gives 404 for an unknown id, a deleted product and another team's product", async () => {
    const product = await gp.product(editor);
    await remove(product.id);
    expect((await get(product.id)).status).toBe(404);
    expect((await get(2147483647)).status).toBe(404);
    const foreign = await gp.product(await g.key(await g.team(), 'manage'));
    expect((await get(foreign.id)).body.code).toBe('not_found');
  });

  it('shows references to files deleted from the library as unresolved media in their place, and its ETag changes with them', async () => {
    const a = await gp.image(team, 'a.png');
    const b = await gp.image(team, 'b.png');
    const product = await gp.product(editor, { imageAssetIds: [a, b] });
    const before = await get(product.id);
    await db('update library_files set deleted_at = now() where id = ?', [a]);
    const after = await get(product.id);
    expect(after.body.data.images.map((m: { id: number | null }) => m.id)).toEqual([null, b]);
    expect(after.body.data.images[0]).toEqual({
      id: null,
      name: null,
      mimeType: null,
      size: null,
      width: null,
      height: null,
      duration: null,
      previewUrl: null,
    });
    expect(after.body.data.cover).toEqual({ id: null, name: null, mimeType: null, size: null, width: null, height: null, duration: null, previewUrl: null });
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });
});

describe('PATCH /v1/products/{id}', () => {
  it('changes only the given fields, bumps updatedAt, returns a new ETag', async () => {
    const brand = await g.brand(manager);
    const product = await gp.product(editor, { name: 'Before', spu: 'P-1', brandId: brand.id, description: 'Keep' });
    const etagBefore = (await get(product.id)).headers.etag;
    const res = await patch(product.id, { name: '  After  ' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'After', spu: 'P-1', brandId: brand.id, description: 'Keep', status: 'draft' });
    expect(res.body.data.updatedAt > product.updatedAt).toBe(true);
    expect(res.headers.etag).not.toBe(etagBefore);
    expect((await get(product.id)).headers.etag).toBe(res.headers.etag);
  });

  it('shallow-merges templateFields: other values stay, null clears one', async () => {
    const product = await gp.product(editor, { templateId: template.id, templateFields: { [ids.tText!]: 'a', [ids.tNumber!]: 1 } });
    const res = await patch(product.id, { templateFields: { [ids.tNumber!]: null, [ids.tColor!]: '#fff' } });
    expect(res.body.data.templateFields).toEqual({ [ids.tText!]: 'a', [ids.tColor!]: '#fff' });
  });

  it('omitted media lists stay, [] clears, and without an explicit cover the first image is the cover', async () => {
    const [a, b, c] = [await gp.image(team), await gp.image(team), await gp.textFile(team)];
    const product = await gp.product(editor, { coverAssetId: a, imageAssetIds: [a, b], relatedAssetIds: [c] });
    let res = await patch(product.id, { name: 'x' });
    expect(res.body.data.images.map((m: { id: number }) => m.id)).toEqual([a, b]);
    res = await patch(product.id, { coverAssetId: null, imageAssetIds: [b, a] });
    expect(res.body.data.cover.id).toBe(b);
    expect(res.body.data.relatedAssets.map((m: { id: number }) => m.id)).toEqual([c]);
    res = await patch(product.id, { imageAssetIds: [], relatedAssetIds: [] });
    expect(res.body.data).toMatchObject({ cover: null, images: [], relatedAssets: [] });
  });

  it('refuses to change the template with 422 on templateId, and accepts repeating the pinned one', async () => {
    const product = await gp.product(editor, { templateId: template.id });
    const another = await gt.template(manager);
    await expectUnchanged(() => patch(product.id, { templateId: another.id }), 422, 'validation_failed', 'templateId');
    await expectUnchanged(() => patch(product.id, { templateId: null }), 422, 'validation_failed', 'templateId');
    expect((await patch(product.id, { templateId: template.id, name: 'Same' })).status).toBe(200);
  });

  it('checks brand and category together: moving the brand away from the category is refused with 422', async () => {
    const [b1, b2] = [await g.brand(manager), await g.brand(manager)];
    const category = await g.category(manager, { brandId: b1.id, name: 'Only b1' });
    const product = await gp.product(editor, { brandId: b1.id, categoryId: category.id });
    await expectUnchanged(() => patch(product.id, { brandId: b2.id }), 422, 'validation_failed', 'categoryId');
    await expectUnchanged(() => patch(product.id, { brandId: null }), 422, 'validation_failed', 'categoryId');
    expect((await patch(product.id, { brandId: b2.id, categoryId: null })).body.data).toMatchObject({ brandId: b2.id, categoryId: null });
  });

  it('applies the create rules: spu uniqueness (409), other-team media (422), the 100-reference limit (422)', async () => {
    await gp.product(editor, { spu: 'TAKEN-P' });
    const product = await gp.product(editor, { spu: 'MINE-P' });
    await expectUnchanged(() => patch(product.id, { spu: ' TAKEN-P ' }), 409, 'sku_in_use');
    const foreign = await gp.image(await g.team());
    await expectUnchanged(() => patch(product.id, { imageAssetIds: [foreign] }), 422, 'validation_failed', 'imageAssetIds[0]');
    const many = await gp.textFiles(team, 100, 'patch');
    expect((await patch(product.id, { relatedAssetIds: many })).status).toBe(200);
    await expectUnchanged(() => patch(product.id, { coverAssetId: many[0] }), 422, 'validation_failed', 'media');
  });

  it('editing a published product validates the complete product: clearing the name or a required value is refused with 422', async () => {
    const product = await gp.product(editor, { name: 'Complete', templateId: template.id, templateFields: { [ids.tText!]: 'required' } });
    expect((await act(product.id, 'publish')).status).toBe(200);
    await expectUnchanged(() => patch(product.id, { name: '  ' }), 422, 'validation_failed', 'name');
    await expectUnchanged(() => patch(product.id, { templateFields: { [ids.tText!]: null } }), 422, 'validation_failed', `templateFields.${ids.tText}`);
    const ok = await patch(product.id, { description: 'still complete' });
    expect(ok.body.data).toMatchObject({ status: 'published', description: 'still complete', draftReason: null });
  });

  it('a draft may be saved incomplete; draftReason follows what is missing', async () => {
    const product = await gp.product(editor, { name: 'D', templateId: template.id });
    expect(product.draftReason).toContain(ids.tText);
    const res = await patch(product.id, { templateFields: { [ids.tText!]: 'now set' } });
    expect(res.body.data.draftReason).toBeNull();
    expect((await patch(product.id, { name: '' })).body.data.draftReason).toContain('name');
  });

  it('with If-Match: 200 when it names the current version, 412 precondition_failed and nothing written when stale', async () => {
    const product = await gp.product(editor, { name: 'Etag' });
    const first = await get(product.id);
    const ok = await patch(product.id, { name: 'Etag 2' }, { 'if-match': first.headers.etag! });
    expect(ok.status).toBe(200);
    await expectUnchanged(() => patch(product.id, { name: 'Etag 3' }, { 'if-match': first.headers.etag! }), 412, 'precondition_failed');
  });

  const badPatches: Array<[string, unknown, string]> = [
    ['an empty body', {}, '(body)'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['a 256-character name', { name: 'n'.repeat(256) }, 'name'],
    ['a 65-character spu', { spu: 'x'.repeat(65) }, 'spu'],
    ['a status', { status: 'published' }, 'status'],
    ['an invalid custom value', { templateFields: { fld_nope: 1 } }, 'templateFields.fld_nope'],
    ['a deleted brand id', { brandId: 2147483647 }, 'brandId'],
  ];
  for (const [label, body, field] of badPatches) {
    it(`rejects ${label} with 422 validation_failed naming ${field}, and changes nothing`, async () => {
      const product = await gp.product(editor, { name: 'Bad patch', templateId: template.id });
      await expectUnchanged(() => patch(product.id, body), 422, 'validation_failed', field);
    });
  }

  it("gives 404 for a deleted product and another team's product, changing nothing", async () => {
    const product = await gp.product(editor);
    await remove(product.id);
    await expectUnchanged(() => patch(product.id, { name: 'x' }), 404, 'not_found');
    const foreign = await gp.product(await g.key(await g.team(), 'manage'), { name: 'Foreign' });
    await expectUnchanged(() => patch(foreign.id, { name: 'x' }), 404, 'not_found');
    expect((await db<{ name: string }>('select name from products where id = ?', [foreign.id]))[0]!.name).toBe('Foreign');
  });
});

describe('POST /v1/products/{id}/publish and /unpublish', () => {
  it('publish sets status published and publishedAt, bumps updatedAt, clears draftReason', async () => {
    const product = await gp.product(editor, { name: 'Ship it' });
    const res = await act(product.id, 'publish');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toMatch(/^"/);
    expect(res.body.data).toMatchObject({ status: 'published', draftReason: null });
    expect(res.body.data.publishedAt).toBe(res.body.data.updatedAt);
    expect(res.body.data.updatedAt > product.updatedAt).toBe(true);
  });

  it('accepts publish and unpublish sent as many SDKs send them: Content-Type application/json with an empty body', async () => {
    const product = await gp.product(editor, { name: 'Empty body' });
    for (const [action, status] of [
      ['publish', 'published'],
      ['unpublish', 'draft'],
    ] as const) {
      for (const rawBody of ['', '  \n']) {
        const res = await send(env, {
          method: 'POST',
          url: url(product.id, `/${action}`),
          key: editor.key,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.status).toBe(status);
      }
    }
  });

  it('still refuses an empty JSON body where the operation needs one, with 422 naming the body and storing nothing', async () => {
    const product = await gp.product(editor, { name: 'Unchanged' });
    await expectUnchanged(
      () => send(env, { method: 'PATCH', url: url(product.id), key: editor.key, rawBody: '', headers: { 'content-type': 'application/json' } }),
      422,
      'validation_failed',
      '(body)',
    );
  });

  it('refuses to publish an incomplete product with 422 naming the missing name and required template values', async () => {
    const product = await gp.product(editor, { templateId: template.id });
    const before = await gp.snapshot(team.teamId);
    const res = await act(product.id, 'publish');
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['name', `templateFields.${ids.tText}`]));
    expect(await gp.snapshot(team.teamId)).toBe(before);
  });

  it('counts a required media value whose file was deleted as missing', async () => {
    const tpl = await gt.template(manager, { groups: [{ name: 'G', fields: [{ key: 'pic', name: 'Pic', type: 'image', required: true }] }] });
    const pic = await gp.image(team);
    const product = await gp.product(editor, { name: 'Pic', templateId: tpl.id, templateFields: { [fieldIds(tpl).pic!]: [pic] } });
    await db('update library_files set deleted_at = now() where id = ?', [pic]);
    const res = await act(product.id, 'publish');
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe(`templateFields.${fieldIds(tpl).pic}`);
  });

  it('publishing a published product is an idempotent 200 that changes nothing (same updatedAt, publishedAt and ETag)', async () => {
    const product = await gp.published(editor);
    const first = await get(product.id);
    const before = await gp.snapshot(team.teamId);
    const again = await act(product.id, 'publish');
    expect(again.status).toBe(200);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await gp.snapshot(team.teamId)).toBe(before);
  });

  it('unpublish returns to draft, clears publishedAt, bumps updatedAt; unpublishing a draft is an idempotent 200', async () => {
    const product = await gp.published(editor);
    const res = await act(product.id, 'unpublish');
    expect(res.body.data).toMatchObject({ status: 'draft', publishedAt: null });
    expect(res.body.data.updatedAt > product.updatedAt).toBe(true);
    const before = await gp.snapshot(team.teamId);
    const again = await act(product.id, 'unpublish');
    expect(again.status).toBe(200);
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(await gp.snapshot(team.teamId)).toBe(before);
  });

  it('with a stale If-Match gives 412 and changes nothing; with the current one it publishes', async () => {
    const product = await gp.product(editor, { name: 'Guarded' });
    const stale = (await get(product.id)).headers.etag!;
    await patch(product.id, { description: 'changed' });
    await expectUnchanged(() => act(product.id, 'publish', { 'if-match': stale }), 412, 'precondition_failed');
    const current = (await get(product.id)).headers.etag!;
    expect((await act(product.id, 'publish', { 'if-match': current })).status).toBe(200);
  });

  it('gives 404 for deleted and other-team products', async () => {
    const product = await gp.product(editor, { name: 'Gone' });
    await remove(product.id);
    await expectUnchanged(() => act(product.id, 'publish'), 404, 'not_found');
    const foreign = await gp.product(await g.key(await g.team(), 'manage'), { name: 'Foreign' });
    await expectUnchanged(() => act(foreign.id, 'publish'), 404, 'not_found');
  });
});

describe('DELETE /v1/products/{id}', () => {
  it('soft-deletes: 200 with {id} and an ETag; the row stays with deleted_at, reads give 404', async () => {
    const product = await gp.product(editor, { spu: 'SOFT-1' });
    const res = await remove(product.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: product.id });
    expect(res.headers.etag).toMatch(/^"/);
    const [row] = await db<{ deleted: string | null; updated: string; spu: string }>(
      `select to_char(deleted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as deleted,
              to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated, spu from products where id = ?`,
      [product.id],
    );
    expect(row!.deleted).not.toBeNull();
    expect(row!.updated).toBe(row!.deleted);
    expect(row!.updated > product.updatedAt).toBe(true);
    expect(row!.spu).toBe('SOFT-1');
    expect((await get(product.id)).status).toBe(404);
    expect((await remove(product.id)).status).toBe(404);
  });

  it('with a stale If-Match gives 412 and deletes nothing', async () => {
    const product = await gp.product(editor, { name: 'Stale' });
    const stale = (await get(product.id)).headers.etag!;
    await patch(product.id, { name: 'Fresh' });
    await expectUnchanged(() => remove(product.id, { 'if-match': stale }), 412, 'precondition_failed');
  });
});

describe('POST /v1/products/visibility (spec 4.5 rule 5)', () => {
  it('answers visible or not_visible per id: deleted, other-team and nonexistent ids are not_visible', async () => {
    const live = await gp.product(editor, { name: 'Live' });
    const deleted = await gp.product(editor, { name: 'Deleted' });
    await remove(deleted.id);
    const foreign = await gp.product(await g.key(await g.team(), 'manage'));
    const res = await send(env, {
      method: 'POST',
      url: '/v1/products/visibility',
      key: editor.key,
      body: { ids: [live.id, deleted.id, foreign.id, 2147483647, live.id] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.body.data).toEqual([
      { id: live.id, result: 'visible' },
      { id: deleted.id, result: 'not_visible' },
      { id: foreign.id, result: 'not_visible' },
      { id: 2147483647, result: 'not_visible' },
    ]);
  });

  it('answers not_visible for drafts to view_only and usable keys, visible for published products', async () => {
    const draft = await gp.product(editor, { name: 'Draft' });
    const published = await gp.published(editor);
    for (const role of ['view_only', 'usable'] as const) {
      const res = await send(env, {
        method: 'POST',
        url: '/v1/products/visibility',
        key: (await g.key(team, role)).key,
        body: { ids: [draft.id, published.id] },
      });
      expect(res.body.data).toEqual([
        { id: draft.id, result: 'not_visible' },
        { id: published.id, result: 'visible' },
      ]);
    }
  });

  const bad: Array<[string, unknown, string]> = [
    ['no ids', {}, 'ids'],
    ['an empty list', { ids: [] }, 'ids'],
    ['1001 ids', { ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'ids'],
    ['id 0', { ids: [0] }, 'ids[0]'],
    ['a string id', { ids: ['1'] }, 'ids[0]'],
    ['an unknown field', { ids: [1], brandId: 1 }, 'brandId'],
  ];
  for (const [label, body, field] of bad) {
    it(`rejects ${label} with 422 naming ${field}`, async () => {
      const res = await send(env, { method: 'POST', url: '/v1/products/visibility', key: editor.key, body });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  }

  it('accepts 1000 ids', async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/v1/products/visibility',
      key: editor.key,
      body: { ids: Array.from({ length: 1000 }, (_, i) => i + 1) },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1000);
  });
});
