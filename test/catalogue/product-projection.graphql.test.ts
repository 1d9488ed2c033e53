import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { useProductWorld, type ProductWorld } from '../support/product-world.ts';

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
