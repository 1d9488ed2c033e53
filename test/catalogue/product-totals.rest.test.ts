import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/**
 * GET /v1/products totalCount (spec 2.1) is exact although it is memoized per product version
 * (src/core/catalogue/products/product-totals.ts): every committed change to the team's products, and for
 * searches to its library files, gives a new key; without a change, the count is not run again.
 */
const world = useProductWorld();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, g, gp } = world);
});

const total = async (key: GivenKey, query = '') => {
  const res = await send(env, { url: `/v1/products${query}`, key: key.key });
  expect(res.status).toBe(200);
  return res.body.pagination.totalCount as number;
};
const counts = () => env.core.catalogue.products.totals.misses;
const db = (sql: string, params: unknown[] = []) => env.orm.em.fork().execute(sql, params);

describe('GET /v1/products: exact totals, memoized by product version', () => {
  let team: GivenTeam;
  let editor: GivenKey;
  let viewer: GivenKey;
  beforeAll(async () => {
    team = await g.team();
    editor = await g.key(team, 'editable');
    viewer = await g.key(team, 'view_only');
    for (let i = 0; i < 3; i++) await gp.product(editor, { name: `Draft ${i}` });
    await gp.published(editor, { name: 'Shown' });
  });

  it('counts a filtered set once and answers repeats without counting again', async () => {
    expect(await total(editor)).toBe(4);
    const before = counts();
    expect(await total(editor)).toBe(4);
    expect(await total(editor, '?page=2&pageSize=1')).toBe(4);
    expect(counts()).toBe(before);
  });

  it('follows every committed product change: create, publish, unpublish, soft delete', async () => {
    const made = await gp.product(editor, { name: 'New' });
    expect(await total(editor)).toBe(5);
    expect(await total(editor, '?status=published')).toBe(1);
    expect(await total(viewer)).toBe(1);
    await send(env, { method: 'POST', url: `/v1/products/${made.id}/publish`, key: editor.key });
    expect(await total(editor, '?status=published')).toBe(2);
    expect(await total(viewer)).toBe(2);
    await send(env, { method: 'POST', url: `/v1/products/${made.id}/unpublish`, key: editor.key });
    expect(await total(viewer)).toBe(1);
    await send(env, { method: 'DELETE', url: `/v1/products/${made.id}`, key: editor.key });
    expect(await total(editor)).toBe(4);
  });

  it('follows changes made by SQL outside the service too (the trigger is on the table)', async () => {
    expect(await total(editor, '?status=draft')).toBe(3);
    await db(`update products set status = 'published', published_at = now() where team_id = ? and name = 'Draft 0'`, [team.teamId]);
    expect(await total(editor, '?status=draft')).toBe(2);
  });

  it("keeps each team's totals apart: another team's changes neither leak in nor change them", async () => {
    const otherKey = await g.key(await g.team(), 'editable');
    expect(await total(otherKey)).toBe(0);
    const before = await total(editor);
    await gp.product(otherKey, { name: 'Elsewhere' });
    expect(await total(otherKey)).toBe(1);
    expect(await total(editor)).toBe(before);
  });

  it('a search total follows changes to the library file names it matches', async () => {
    const image = await gp.image(team, 'okapi-front.png');
    await gp.product(editor, { name: 'Plain', imageAssetIds: [image] });
    expect(await total(editor, '?search=okapi')).toBe(1);
    await db(`update library_files set name = 'zebu-front.png' where id = ?`, [image]);
    expect(await total(editor, '?search=okapi')).toBe(0);
    expect(await total(editor, '?search=zebu')).toBe(1);
    await db(`update library_files set deleted_at = now() where id = ?`, [image]);
    expect(await total(editor, '?search=zebu')).toBe(0);
  });
});
