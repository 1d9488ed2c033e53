import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { givenCategories } from '../support/given-categories.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { send } from '../support/http.ts';

/** Bindings, the library default and its effect on category creation (spec 3.2, 4.3, 4.4). */
let env: TestEnv;
let g: ReturnType<typeof given>;
let c: ReturnType<typeof givenCategories>;
let t: ReturnType<typeof givenTemplates>;

const URL = '/v1/product-info-templates';

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  c = givenCategories(env);
  t = givenTemplates(env);
});
afterAll(async () => env.close());

/** Each test gets its own library, so "the library default" never leaks between tests. */
async function library(): Promise<GivenKey> {
  return g.key(await g.team(), 'manage');
}

async function read(key: GivenKey, id: string): Promise<{ data: TemplateView; etag: string }> {
  const res = await send(env, { url: `${URL}/${id}`, key: key.key });
  expect(res.status).toBe(200);
  return { data: res.body.data, etag: res.headers.etag! };
}

function patch(key: GivenKey, id: string, body: unknown) {
  return send(env, { method: 'PATCH', url: `${URL}/${id}`, key: key.key, body });
}

function remove(key: GivenKey, id: string, body?: unknown) {
  return send(env, { method: 'DELETE', url: `${URL}/${id}`, key: key.key, body });
}

describe('boundBrandIds / boundCategoryIds', () => {
  it('binds brands and categories on create, returning live ids ascending with duplicates ignored', async () => {
    const key = await library();
    const b1 = await g.brand(key);
    const b2 = await g.brand(key);
    const cat = await c.category(key, b1.id);
    const tpl = await t.template(key, { boundBrandIds: [b2.id, b1.id, b2.id], boundCategoryIds: [cat.id, cat.id] });
    expect(tpl.boundBrandIds).toEqual([b1.id, b2.id]);
    expect(tpl.boundCategoryIds).toEqual([cat.id]);
  });

  it('accepts categories of any brand of the library when no brands are selected', async () => {
    const key = await library();
    const cats = [await c.category(key, (await g.brand(key)).id), await c.category(key, (await g.brand(key)).id)];
    const tpl = await t.template(key, { boundCategoryIds: cats.map((x) => x.id) });
    expect(tpl.boundCategoryIds).toEqual(cats.map((x) => x.id).sort((a, b) => a - b));
  });

  it('rejects categories outside the selected brands with 422 and writes nothing', async () => {
    const key = await library();
    const b1 = await g.brand(key);
    const b2 = await g.brand(key);
    const foreign = await c.category(key, b2.id);
    const before = await t.snapshot(key.teamId);
    const res = await send(env, {
      method: 'POST',
      url: URL,
      key: key.key,
      body: { name: 'X', groups: [{ name: 'G', fields: [] }], boundBrandIds: [b1.id], boundCategoryIds: [foreign.id] },
    });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'boundCategoryIds', message: expect.stringContaining(String(foreign.id)) }]);
    expect(await t.snapshot(key.teamId)).toEqual(before);
  });

  it('rejects a PATCH of boundBrandIds that would leave bound categories outside the brands, and changes nothing', async () => {
    const key = await library();
    const b1 = await g.brand(key);
    const b2 = await g.brand(key);
    const cat = await c.category(key, b1.id);
    const tpl = await t.template(key, { boundBrandIds: [b1.id], boundCategoryIds: [cat.id] });
    const before = await t.snapshot(key.teamId);
    const res = await patch(key, tpl.id, { boundBrandIds: [b2.id] });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe('boundCategoryIds');
    expect(await t.snapshot(key.teamId)).toEqual(before);
  });

  it('rejects deleted brands and deleted categories with 422 and writes nothing', async () => {
    const key = await library();
    const brand = await g.brand(key);
    const gone = await g.brand(key);
    const ctx = await g.ctx(key);
    await env.core.catalogue.brands.softDelete(ctx, gone.id);
    const cat = await c.category(key, brand.id);
    await c.deleteCategory(key, cat.id);
    const before = await t.snapshot(key.teamId);
    for (const body of [{ boundBrandIds: [gone.id] }, { boundCategoryIds: [cat.id] }]) {
      const res = await send(env, { method: 'POST', url: URL, key: key.key, body: { name: 'X', groups: [{ name: 'G', fields: [] }], ...body } });
      expect(res.status).toBe(422);
    }
    expect(await t.snapshot(key.teamId)).toEqual(before);
  });

  it('replaces the binding set on PATCH: unlisted bindings are removed, omitted sets are kept', async () => {
    const key = await library();
    const [b1, b2, b3] = [await g.brand(key), await g.brand(key), await g.brand(key)];
    const cat = await c.category(key, b1.id);
    const tpl = await t.template(key, { boundBrandIds: [b1.id, b2.id], boundCategoryIds: [cat.id] });
    const res = await patch(key, tpl.id, { boundBrandIds: [b1.id, b3.id] });
    expect(res.body.data.boundBrandIds).toEqual([b1.id, b3.id]);
    expect(res.body.data.boundCategoryIds).toEqual([cat.id]);
    const cleared = await patch(key, tpl.id, { boundBrandIds: [], boundCategoryIds: [] });
    expect(cleared.body.data).toMatchObject({ boundBrandIds: [], boundCategoryIds: [] });
  });

  it('moves a binding from another template: the other template loses it, its updatedAt and ETag change, a brand stays bound once', async () => {
    const key = await library();
    const brand = await g.brand(key);
    const cat = await c.category(key, brand.id);
    const first = await t.template(key, { boundBrandIds: [brand.id], boundCategoryIds: [cat.id] });
    const firstBefore = await read(key, first.id);
    const second = await t.template(key, { boundBrandIds: [brand.id] });
    expect(second.boundBrandIds).toEqual([brand.id]);
    const afterBrandMove = await read(key, first.id);
    expect(afterBrandMove.data.boundBrandIds).toEqual([]);
    expect(afterBrandMove.data.boundCategoryIds).toEqual([cat.id]);
    expect(afterBrandMove.etag).not.toBe(firstBefore.etag);
    expect(afterBrandMove.data.updatedAt > firstBefore.data.updatedAt).toBe(true);
    await patch(key, second.id, { boundCategoryIds: [cat.id] });
    expect((await read(key, first.id)).data.boundCategoryIds).toEqual([]);
    const rows = await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from template_brand_bindings where brand_id = ?', [brand.id]);
    expect(rows[0]!.n).toBe(1);
  });

  it('stops reporting a bound category once the category is deleted', async () => {
    const key = await library();
    const brand = await g.brand(key);
    const cat = await c.category(key, brand.id);
    const tpl = await t.template(key, { boundCategoryIds: [cat.id] });
    await c.deleteCategory(key, cat.id);
    expect((await read(key, tpl.id)).data.boundCategoryIds).toEqual([]);
  });

  it('accepts the limit of 10000 brand ids in one request', async () => {
    const key = await library();
    // 10000 brands through the API would dominate the run; the rows are what matters here
    const rows = await env.orm.em
      .fork()
      .execute<{ id: number }[]>(`insert into brands (team_id, name, code) select ?, 'Bulk', 'BULK' || n from generate_series(1, 10000) n returning id`, [
        key.teamId,
      ]);
    const ids = rows.map((r) => r.id);
    const res = await send(env, { method: 'POST', url: URL, key: key.key, body: { name: 'Bulk', groups: [{ name: 'G', fields: [] }], boundBrandIds: ids } });
    expect(res.status).toBe(201);
    expect(res.body.data.boundBrandIds).toEqual(ids.sort((a, b) => a - b));
  });
});

describe('isLibraryDefault', () => {
  it('makes a template the library default; a later one takes the designation over, and both ETags change', async () => {
    const key = await library();
    const a = await t.template(key, { isLibraryDefault: true });
    expect(a.isLibraryDefault).toBe(true);
    const aBefore = await read(key, a.id);
    const b = await t.template(key, { isLibraryDefault: true });
    expect(b.isLibraryDefault).toBe(true);
    const aAfter = await read(key, a.id);
    expect(aAfter.data.isLibraryDefault).toBe(false);
    expect(aAfter.etag).not.toBe(aBefore.etag);
    const rows = await env.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from product_info_templates where team_id = ? and is_library_default', [key.teamId]);
    expect(rows[0]!.n).toBe(1);
  });

  it('moves the designation with PATCH isLibraryDefault true and clears it with false', async () => {
    const key = await library();
    const a = await t.template(key, { isLibraryDefault: true });
    const b = await t.template(key);
    expect((await patch(key, b.id, { isLibraryDefault: true })).body.data.isLibraryDefault).toBe(true);
    expect((await read(key, a.id)).data.isLibraryDefault).toBe(false);
    expect((await patch(key, b.id, { isLibraryDefault: false })).body.data.isLibraryDefault).toBe(false);
    expect((await patch(key, a.id, { isLibraryDefault: false })).body.data.isLibraryDefault).toBe(false);
  });

  it('keeps one default when two templates claim it at the same time', async () => {
    const key = await library();
    const a = await t.template(key);
    const b = await t.template(key);
    const results = await Promise.all([patch(key, a.id, { isLibraryDefault: true }), patch(key, b.id, { isLibraryDefault: true })]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const rows = await env.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from product_info_templates where team_id = ? and is_library_default', [key.teamId]);
    expect(rows[0]!.n).toBe(1);
  });
});

describe('DELETE and the library default (spec 3.2, 4.4 TemplateDelete)', () => {
  it('refuses to delete the library default without replacementForLibraryDefault with 422 and changes nothing', async () => {
    const key = await library();
    const tpl = await t.template(key, { isLibraryDefault: true });
    const before = await t.snapshot(key.teamId);
    for (const body of [undefined, {}]) {
      const res = await remove(key, tpl.id, body);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('replacementForLibraryDefault');
    }
    expect(await t.snapshot(key.teamId)).toEqual(before);
  });

  it('hands the designation to the replacement', async () => {
    const key = await library();
    const tpl = await t.template(key, { isLibraryDefault: true });
    const next = await t.template(key);
    const res = await remove(key, tpl.id, { replacementForLibraryDefault: next.id });
    expect(res.status).toBe(200);
    expect((await read(key, next.id)).data.isLibraryDefault).toBe(true);
  });

  it('leaves the library without a default when the replacement is explicitly null', async () => {
    const key = await library();
    const tpl = await t.template(key, { isLibraryDefault: true });
    expect((await remove(key, tpl.id, { replacementForLibraryDefault: null })).status).toBe(200);
    const rows = await env.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from product_info_templates where team_id = ? and is_library_default', [key.teamId]);
    expect(rows[0]!.n).toBe(0);
  });

  it('deletes a template that is not the default without a body, and ignores an explicit null replacement', async () => {
    const key = await library();
    expect((await remove(key, (await t.template(key)).id)).status).toBe(200);
    expect((await remove(key, (await t.template(key)).id, { replacementForLibraryDefault: null })).status).toBe(200);
  });

  const badReplacements: Array<[string, (key: GivenKey, self: TemplateView) => Promise<unknown>]> = [
    ['the deleted template itself', async (_key, self) => self.id],
    ['an unknown template id', async () => 'tpl_unknown'],
    [
      'a deleted template',
      async (key) => {
        const gone = await t.template(key);
        await remove(key, gone.id);
        return gone.id;
      },
    ],
    ["another library's template", async () => (await t.template(await library())).id],
    ['an empty string', async () => ''],
    ['a 129-character id', async () => 'x'.repeat(129)],
  ];
  for (const [label, replacement] of badReplacements) {
    it(`rejects ${label} as replacementForLibraryDefault with 422 and changes nothing`, async () => {
      const key = await library();
      const tpl = await t.template(key, { isLibraryDefault: true });
      const body = { replacementForLibraryDefault: await replacement(key, tpl) };
      const before = await t.snapshot(key.teamId);
      const res = await remove(key, tpl.id, body);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('replacementForLibraryDefault');
      expect(await t.snapshot(key.teamId)).toEqual(before);
    });
  }

  it('rejects a replacement when the deleted template is not the default, and changes nothing', async () => {
    const key = await library();
    const tpl = await t.template(key);
    const other = await t.template(key);
    const before = await t.snapshot(key.teamId);
    expect((await remove(key, tpl.id, { replacementForLibraryDefault: other.id })).status).toBe(422);
    expect(await t.snapshot(key.teamId)).toEqual(before);
  });

  it('removes the bindings of a deleted template so another template can take them', async () => {
    const key = await library();
    const brand = await g.brand(key);
    const cat = await c.category(key, brand.id);
    const tpl = await t.template(key, { boundBrandIds: [brand.id], boundCategoryIds: [cat.id] });
    await remove(key, tpl.id);
    const rows = await env.orm.em
      .fork()
      .execute<{ n: number }[]>(
        'select (select count(*) from template_brand_bindings where template_id = ?) + (select count(*) from template_category_bindings where template_id = ?) as n',
        [tpl.id, tpl.id],
      );
    expect(Number(rows[0]!.n)).toBe(0);
  });
});

describe('category creation and the library default (spec 4.3)', () => {
  async function createCategory(key: GivenKey, brandId: number) {
    const res = await send(env, { method: 'POST', url: '/v1/categories', key: key.key, body: { brandId, name: `C${Math.random().toString(36).slice(2, 8)}` } });
    expect(res.status).toBe(201);
    return res.body.data as { id: number };
  }

  it('binds the library default to a new category when the default has no brand bindings', async () => {
    const key = await library();
    const tpl = await t.template(key, { isLibraryDefault: true });
    const cat = await createCategory(key, (await g.brand(key)).id);
    expect((await read(key, tpl.id)).data.boundCategoryIds).toEqual([cat.id]);
  });

  it("binds the library default when its brand bindings include the category's brand", async () => {
    const key = await library();
    const brand = await g.brand(key);
    const tpl = await t.template(key, { isLibraryDefault: true, boundBrandIds: [brand.id] });
    const cat = await createCategory(key, brand.id);
    expect((await read(key, tpl.id)).data.boundCategoryIds).toEqual([cat.id]);
  });

  it("creates the category without a binding when the default's brand bindings exclude its brand", async () => {
    const key = await library();
    const tpl = await t.template(key, { isLibraryDefault: true, boundBrandIds: [(await g.brand(key)).id] });
    const cat = await createCategory(key, (await g.brand(key)).id);
    expect((await read(key, tpl.id)).data.boundCategoryIds).toEqual([]);
    const rows = await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from template_category_bindings where category_id = ?', [cat.id]);
    expect(rows[0]!.n).toBe(0);
  });

  it('binds nothing when the library has no default, and binds only the default', async () => {
    const key = await library();
    const other = await t.template(key);
    const cat = await createCategory(key, (await g.brand(key)).id);
    const rows = await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from template_category_bindings where category_id = ?', [cat.id]);
    expect(rows[0]!.n).toBe(0);
    expect((await read(key, other.id)).data.boundCategoryIds).toEqual([]);
  });
});
