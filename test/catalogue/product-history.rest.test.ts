import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

const world = useProductWorld({ team: 'History' });
let env: TestEnv;
let team: GivenTeam;
let editor: GivenKey;
let viewer: GivenKey;
let stranger: GivenKey;
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, team, gp, stranger } = world);
  ({ editable: editor, view_only: viewer } = world.keys);
});

const history = (id: number, key: GivenKey = editor, query = '') => send(env, { url: `/v1/products/${id}/history${query}`, key: key.key });

describe('GET /v1/products/{id}/history', () => {
  it('records every change newest first: created, updated (fields before and after), published, unpublished', async () => {
    const image = await gp.image(team);
    const created = await send(env, {
      method: 'POST',
      url: '/v1/products',
      key: editor.key,
      body: { name: 'Tent', spu: 'T-1' },
      headers: { 'x-request-id': 'req-create-1' },
    });
    const id = created.body.data.id;
    await send(env, { method: 'PATCH', url: `/v1/products/${id}`, key: editor.key, body: { name: 'Trail tent', imageAssetIds: [image] } });
    await send(env, { method: 'POST', url: `/v1/products/${id}/publish`, key: editor.key });
    await send(env, { method: 'POST', url: `/v1/products/${id}/unpublish`, key: editor.key });
    const res = await history(id);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.body.data.map((e: { action: string }) => e.action)).toEqual(['unpublished', 'published', 'updated', 'created']);
    const [unpublished, published, updated, createdEntry] = res.body.data;
    expect(updated).toMatchObject({ actor: `key:${editor.keyId}`, keyId: editor.keyId, role: 'editable', at: expect.stringMatching(/^\d{4}-.*\.\d{6}Z$/) });
    expect(updated.changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: 'Tent', after: 'Trail tent' },
        { field: 'imageAssetIds', before: [], after: [image] },
      ]),
    );
    expect(updated.changes).toHaveLength(2);
    expect(published.changes.map((c: { field: string }) => c.field).sort()).toEqual(['publishedAt', 'status']);
    expect(unpublished.changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'published', after: 'draft' }]));
    expect(createdEntry).toMatchObject({ action: 'created', requestId: 'req-create-1' });
    expect(createdEntry.changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: null, after: 'Tent' },
        { field: 'spu', before: null, after: 'T-1' },
      ]),
    );
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 20, totalCount: 4, totalPages: 1 });
  });

  it('writes nothing for a write that is refused (the record commits with the change or not at all)', async () => {
    const product = await gp.product(editor, { name: 'Atomic' });
    const stale = await send(env, {
      method: 'PATCH',
      url: `/v1/products/${product.id}`,
      key: editor.key,
      body: { name: 'x' },
      headers: { 'if-match': '"stale"' },
    });
    expect(stale.status).toBe(412);
    const tooLong = await send(env, { method: 'PATCH', url: `/v1/products/${product.id}`, key: editor.key, body: { name: 'x'.repeat(300) } });
    expect(tooLong.status).toBe(422);
    expect((await history(product.id)).body.data.map((e: { action: string }) => e.action)).toEqual(['created']);
  });

  it("shows a published product's history to view_only, and answers a draft's with 404 as the product itself", async () => {
    const published = await gp.published(editor, { name: 'Visible' });
    expect((await history(published.id, viewer)).status).toBe(200);
    const draft = await gp.product(editor, { name: 'Hidden' });
    expect((await history(draft.id, viewer)).status).toBe(404);
  });

  it("answers another team's product with 404 not_found", async () => {
    const product = await gp.product(editor, { name: 'Ours' });
    expect((await history(product.id, stranger)).body).toMatchObject({ success: false, code: 'not_found' });
  });

  it('records a deletion, after which the history, like the product, is 404', async () => {
    const product = await gp.product(editor, { name: 'Gone' });
    await send(env, { method: 'DELETE', url: `/v1/products/${product.id}`, key: editor.key });
    const [row] = await env.orm.em
      .fork()
      .execute<{ actions: string[] }[]>('select array_agg(action order by id) as actions from product_history where product_id = ?', [product.id]);
    expect(row!.actions).toEqual(['created', 'deleted']);
    expect((await history(product.id)).status).toBe(404);
  });
});
