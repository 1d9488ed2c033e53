import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';

const world = useProductWorld({ team: 'Projection' });
let env: TestEnv;
let team: GivenTeam;
let editor: GivenKey;
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, team, gp } = world);
  editor = world.keys.editable;
});

/** Media objects without their signed links (they are issued per read and may differ by a second). */
function withoutLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLinks);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !['previewUrl', 'downloadUrl', 'downloadUrlExpiresAt'].includes(k))
        .map(([k, v]) => [k, withoutLinks(v)]),
    );
  }
  return value;
}

const MEDIA = '{ id name mimeType size width height duration }';

describe('one product projection', () => {
  it('gives REST and GraphQL the same templateFields, cover, images and related assets, files in the recycle bin unresolved alike', async () => {
    const [a, b, c, gone] = [await gp.image(team), await gp.image(team), await gp.textFile(team), await gp.image(team)];
    const created = await send(env, {
      method: 'POST',
      url: '/v1/products',
      key: editor.key,
      body: { name: 'Both', imageAssetIds: [gone, a, b], coverAssetId: b, relatedAssetIds: [c] },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    await env.core.assets.recycleBin.deleteFile(await given(env).ctx(editor), gone);
    const rest = (await send(env, { url: `/v1/products/${id}`, key: editor.key })).body.data;
    const gql = await graphql(
      env,
      editor.key,
      `query($id: Int!) { product(id: $id) { product { templateFields cover ${MEDIA} images ${MEDIA} relatedAssets ${MEDIA} } } }`,
      { id },
    );
    expect(gql.body.errors).toBeUndefined();
    const fromGraphql = gql.body.data.product.product;
    expect(rest.images.map((m: { id: number | null }) => m.id)).toEqual([null, a, b]);
    for (const field of ['templateFields', 'cover', 'images', 'relatedAssets'] as const) {
      expect(withoutLinks(fromGraphql[field]), field).toEqual(withoutLinks(rest[field]));
    }
    expect(Object.keys(fromGraphql.templateFields)).toEqual(Object.keys(rest.templateFields));
  });
});

describe('a page of products: the items summaries load in one batch before the items resolve', () => {
  let counting: CountingApp;
  beforeAll(async () => {
    counting = await countingApp(env);
    for (let i = 0; i < 3; i++) {
      const [x, y] = [await gp.image(team), await gp.image(team)];
      await gp.product(editor, { name: `Paged ${i}`, imageAssetIds: [x, y], coverAssetId: y });
    }
  });
  afterAll(() => counting.close());

  async function page(query: string): Promise<{ body: any; statements: number }> {
    counting.statements.length = 0;
    const res = await counting.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${editor.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query }),
    });
    return { body: res.json(), statements: counting.statements.length };
  }

  it('answers the summary fields asked through fragments as when asked directly, and as REST', async () => {
    const direct = await page(`{ products(pageSize: 50) { items { id templateFields cover ${MEDIA} images ${MEDIA} } } }`);
    const fragments = await page(
      `query { products(pageSize: 50) { ...Page } } fragment Page on ProductPage { items { id ... on Product { templateFields cover ${MEDIA} } ...Images } } fragment Images on Product { images ${MEDIA} }`,
    );
    expect(direct.body.errors).toBeUndefined();
    expect(fragments.body).toEqual(direct.body);
    const rest = (await send(env, { url: '/v1/products?pageSize=50', key: editor.key })).body.data;
    expect(withoutLinks(direct.body.data.products.items)).toEqual(
      withoutLinks(rest.map((p: Record<string, unknown>) => ({ id: p.id, templateFields: p.templateFields, cover: p.cover, images: p.images }))),
    );
    expect(direct.body.data.products.items.length).toBeGreaterThanOrEqual(3);
  });

  it('reads the media of a page with one statement, and none when no summary field is asked', async () => {
    const plain = await page('{ products(pageSize: 10) { items { id name } } }');
    const withMedia = await page(`{ products(pageSize: 10) { items { id name cover ${MEDIA} images ${MEDIA} templateFields relatedAssets ${MEDIA} } } }`);
    expect(plain.body.errors).toBeUndefined();
    expect(withMedia.body.errors).toBeUndefined();
    expect(withMedia.statements).toBe(plain.statements + 1);
  });
});
