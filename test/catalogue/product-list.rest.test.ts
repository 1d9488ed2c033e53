import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/** GET /v1/products, ordinary mode (spec 4.5, 2.1 pagination, 3.1 visibility). */
const world = useProductWorld();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, g, gp } = world);
});

const list = (key: GivenKey, query = '') => send(env, { url: `/v1/products${query}`, key: key.key });
const ids = (res: { body: { data: Array<{ id: number }> } }) => res.body.data.map((p) => p.id);
const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

async function library(): Promise<{ team: GivenTeam; editor: GivenKey; manager: GivenKey }> {
  const team = await g.team();
  return { team, editor: await g.key(team, 'editable'), manager: await g.key(team, 'manage') };
}

describe('GET /v1/products: order and pagination', () => {
  let lib: Awaited<ReturnType<typeof library>>;
  let made: number[];
  beforeAll(async () => {
    lib = await library();
    made = [];
    for (let i = 0; i < 5; i++) made.push((await gp.product(lib.editor, { name: `P${i}` })).id);
    // two rows share an updatedAt: the id breaks the tie, descending
    await db(`update products set updated_at = timestamptz '2026-01-01T00:00:00Z' + (id % 3) * interval '1 second' where team_id = ?`, [lib.team.teamId]);
  });

  it('orders by updatedAt then id, both descending', async () => {
    const rows = await db<{ id: number; u: string }>('select id, updated_at::text as u from products where team_id = ?', [lib.team.teamId]);
    const expected = rows.sort((a, b) => (a.u === b.u ? b.id - a.id : a.u < b.u ? 1 : -1)).map((r) => r.id);
    const res = await list(lib.editor);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expected);
    expect(res.headers.etag).toBeUndefined();
    expect(res.body.data[0]).not.toHaveProperty('templateDefinition');
  });

  it('paginates with page and pageSize and reports totalCount and totalPages', async () => {
    const all = ids(await list(lib.editor));
    const page2 = await list(lib.editor, '?page=2&pageSize=2');
    expect(ids(page2)).toEqual(all.slice(2, 4));
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, totalCount: 5, totalPages: 3 });
  });

  it('a page past the end is empty and still reports the totals', async () => {
    const res = await list(lib.editor, '?page=9&pageSize=2');
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toEqual({ page: 9, pageSize: 2, totalCount: 5, totalPages: 3 });
  });

  it('defaults to page 1 and pageSize 20, and caps pageSize above 100 at 100', async () => {
    expect((await list(lib.editor)).body.pagination).toMatchObject({ page: 1, pageSize: 20 });
    expect((await list(lib.editor, '?pageSize=5000')).body.pagination.pageSize).toBe(100);
  });

  it('never lists deleted products', async () => {
    const gone = await gp.product(lib.editor, { name: 'Gone' });
    await send(env, { method: 'DELETE', url: `/v1/products/${gone.id}`, key: lib.editor.key });
    expect(ids(await list(lib.editor, '?pageSize=100'))).not.toContain(gone.id);
  });

  it("never lists another team's products", async () => {
    const foreign = await gp.product(await g.key(await g.team(), 'manage'), { name: 'P0' });
    const res = await list(lib.editor, '?pageSize=100&search=P0');
    expect(ids(res)).not.toContain(foreign.id);
    expect(res.body.pagination.totalCount).toBe(1);
  });
});

describe('GET /v1/products: filters', () => {
  let lib: Awaited<ReturnType<typeof library>>;
  beforeAll(async () => {
    lib = await library();
  });

  it('search is a trimmed, case-insensitive substring of the name or the spu', async () => {
    const a = await gp.product(lib.editor, { name: 'Walnut Desk' });
    const b = await gp.product(lib.editor, { name: 'Chair', spu: 'WAL-9' });
    await gp.product(lib.editor, { name: 'Stool' });
    expect(ids(await list(lib.editor, '?search=%20%20wAl%20')).sort()).toEqual([a.id, b.id].sort());
  });

  it('search matches the library name of any media file of the product (cover, images, related, custom)', async () => {
    const tpl = await givenTemplates(env).template(lib.manager, { groups: [{ name: 'G', fields: [{ key: 'doc', name: 'Doc', type: 'file' }] }] });
    const docField = tpl.groups[0]!.fields.find((f) => f.key === 'doc')!.id;
    const cover = await gp.image(lib.team, 'zebra-cover.png');
    const image = await gp.image(lib.team, 'ZEBRA-image.png');
    const related = await gp.textFile(lib.team, 'zebra-manual.txt');
    const custom = await gp.textFile(lib.team, 'zebra-datasheet.txt');
    const byCover = await gp.product(lib.editor, { coverAssetId: cover });
    const byImage = await gp.product(lib.editor, { imageAssetIds: [image] });
    const byRelated = await gp.product(lib.editor, { relatedAssetIds: [related] });
    const byCustom = await gp.product(lib.editor, { templateId: tpl.id, templateFields: { [docField]: [custom] } });
    await gp.product(lib.editor, { name: 'No zebras here?' });
    expect(ids(await list(lib.editor, '?search=zebra-')).sort()).toEqual([byCover.id, byImage.id, byRelated.id, byCustom.id].sort());
  });

  it('search treats % and _ literally', async () => {
    const pct = await gp.product(lib.editor, { name: '100% cotton' });
    await gp.product(lib.editor, { name: '100 cotton' });
    expect(ids(await list(lib.editor, '?search=0%25%20c'))).toEqual([pct.id]);
    expect(ids(await list(lib.editor, '?search=_'))).toEqual([]);
  });

  it('a blank search lists everything', async () => {
    const all = (await list(lib.editor)).body.pagination.totalCount;
    expect((await list(lib.editor, '?search=%20%20')).body.pagination.totalCount).toBe(all);
  });

  it('brandId filters within the library; categoryId is the exact category, not its descendants', async () => {
    const brand = await g.brand(lib.manager);
    const parent = await g.category(lib.manager, { brandId: brand.id, name: 'Parent' });
    const child = await g.category(lib.manager, { brandId: brand.id, name: 'Child', parentId: parent.id });
    const inParent = await gp.product(lib.editor, { brandId: brand.id, categoryId: parent.id });
    const inChild = await gp.product(lib.editor, { brandId: brand.id, categoryId: child.id });
    const brandOnly = await gp.product(lib.editor, { brandId: brand.id });
    expect(ids(await list(lib.editor, `?brandId=${brand.id}`)).sort()).toEqual([inParent.id, inChild.id, brandOnly.id].sort());
    expect(ids(await list(lib.editor, `?categoryId=${parent.id}`))).toEqual([inParent.id]);
    expect(ids(await list(lib.editor, `?brandId=${brand.id}&categoryId=${child.id}`))).toEqual([inChild.id]);
  });

  it('status filters drafts or published products', async () => {
    const fresh = await library();
    const draft = await gp.product(fresh.editor, { name: 'D' });
    const published = await gp.published(fresh.editor);
    expect(ids(await list(fresh.editor, '?status=draft'))).toEqual([draft.id]);
    expect(ids(await list(fresh.editor, '?status=published'))).toEqual([published.id]);
  });

  it('ignores unknown query parameters, also repeated ones', async () => {
    const res = await list(lib.editor, '?colour=red&colour=blue');
    expect(res.status).toBe(200);
  });
});

describe('GET /v1/products: visibility (spec 3.1)', () => {
  it('view_only and usable list only published products; a status filter never widens it', async () => {
    const lib = await library();
    await gp.product(lib.editor, { name: 'Draft' });
    const published = await gp.published(lib.editor);
    for (const role of ['view_only', 'usable'] as const) {
      const key = await g.key(lib.team, role);
      const all = await list(key);
      expect(ids(all)).toEqual([published.id]);
      expect(all.body.pagination.totalCount).toBe(1);
      expect(ids(await list(key, '?status=draft'))).toEqual([]);
    }
    for (const role of ['editable', 'manage'] as const) {
      expect((await list(await g.key(lib.team, role))).body.pagination.totalCount).toBe(2);
    }
  });

  it('gives downloadUrl to usable and above, never to view_only', async () => {
    const lib = await library();
    const image = await gp.image(lib.team);
    await gp.published(lib.editor, { imageAssetIds: [image] });
    const viewer = await list(await g.key(lib.team, 'view_only'));
    expect(viewer.body.data[0].cover.previewUrl).toMatch(/\/preview\?/);
    expect(viewer.body.data[0].cover).not.toHaveProperty('downloadUrl');
    const user = await list(await g.key(lib.team, 'usable'));
    expect(user.body.data[0].cover.downloadUrl).toMatch(/\/download\?/);
  });
});

describe('GET /v1/products: bad query strings', () => {
  let lib: Awaited<ReturnType<typeof library>>;
  beforeAll(async () => {
    lib = await library();
    await gp.product(lib.editor, { name: 'Untouched' });
  });

  const bad: Array<[string, string]> = [
    ['?page=0', 'page'],
    ['?page=abc', 'page'],
    ['?page=1.5', 'page'],
    ['?pageSize=0', 'pageSize'],
    ['?pageSize=-3', 'pageSize'],
    ['?brandId=abc', 'brandId'],
    ['?brandId=0', 'brandId'],
    ['?categoryId=2147483648', 'categoryId'],
    ['?status=archived', 'status'],
    ['?status=', 'status'],
    ['?sync=yes', 'sync'],
    ['?updatedAfter=2026-01-01T00:00:00Z', 'updatedAfter'],
    ['?sync=false&cursor=abc', 'cursor'],
    ['?page=1&page=2', 'page'],
    ['?brandId=1&brandId=1', 'brandId'],
    [`?search=${'s'.repeat(1025)}`, 'search'],
  ];
  for (const [query, field] of bad) {
    it(`rejects ${query.slice(0, 40)} with 422 validation_failed naming ${field}, changing nothing`, async () => {
      const before = await gp.snapshot(lib.team.teamId);
      const res = await list(lib.editor, query);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'validation_failed' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await gp.snapshot(lib.team.teamId)).toBe(before);
    });
  }

  it('names a repeated parameter as repeated', async () => {
    const res = await list(lib.editor, '?status=draft&status=draft');
    expect(res.body.details).toEqual([{ field: 'status', message: 'must not be repeated' }]);
  });
});
