import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/** Spec 3.2: products guard category and brand deletion (category_has_products, brand_has_dependents). */
const world = useProductWorld();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let manager: GivenKey;
let teamId: number;

beforeAll(() => {
  ({ env, g, gp } = world);
  teamId = world.team.teamId;
  manager = world.keys.manage;
});

const deleteCategory = (id: number) => send(env, { method: 'DELETE', url: `/v1/categories/${id}`, key: manager.key });
const deleteBrand = (id: number) => send(env, { method: 'DELETE', url: `/v1/brands/${id}`, key: manager.key });
const liveCategories = async (brandId: number) =>
  (await env.orm.em.fork().execute<Array<{ id: number }>>('select id from categories where brand_id = ? and deleted_at is null order by id', [brandId])).map(
    (r) => r.id,
  );

async function tree() {
  const brand = await g.brand(manager);
  const root = await g.category(manager, { brandId: brand.id, name: 'Root' });
  const child = await g.category(manager, { brandId: brand.id, name: 'Child', parentId: root.id });
  const leaf = await g.category(manager, { brandId: brand.id, name: 'Leaf', parentId: child.id });
  return { brand, root, child, leaf };
}

describe('DELETE /v1/categories/{id} with products (category_has_products)', () => {
  it('refuses with 409 when a live product references the category, deleting nothing', async () => {
    const t = await tree();
    await gp.product(manager, { brandId: t.brand.id, categoryId: t.root.id });
    const before = await liveCategories(t.brand.id);
    const res = await deleteCategory(t.root.id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('category_has_products');
    expect(await liveCategories(t.brand.id)).toEqual(before);
  });

  it('refuses with 409 when a live product references a descendant, deleting nothing of the subtree', async () => {
    const t = await tree();
    await gp.published(manager, { brandId: t.brand.id, categoryId: t.leaf.id });
    const before = await liveCategories(t.brand.id);
    expect((await deleteCategory(t.root.id)).body.code).toBe('category_has_products');
    expect((await deleteCategory(t.child.id)).body.code).toBe('category_has_products');
    expect(await liveCategories(t.brand.id)).toEqual(before);
  });

  it('allows the deletion once the product is deleted or moved out: soft-deleted products do not count', async () => {
    const t = await tree();
    const deleted = await gp.product(manager, { brandId: t.brand.id, categoryId: t.leaf.id });
    const moved = await gp.product(manager, { brandId: t.brand.id, categoryId: t.child.id });
    await send(env, { method: 'DELETE', url: `/v1/products/${deleted.id}`, key: manager.key });
    await send(env, { method: 'PATCH', url: `/v1/products/${moved.id}`, key: manager.key, body: { categoryId: null } });
    expect((await deleteCategory(t.root.id)).status).toBe(200);
    expect(await liveCategories(t.brand.id)).toEqual([]);
  });

  it('a product created while its category is being deleted never ends up in a deleted category', async () => {
    for (let round = 0; round < 5; round++) {
      const t = await tree();
      const [created, removed] = await Promise.all([
        send(env, { method: 'POST', url: '/v1/products', key: manager.key, body: { brandId: t.brand.id, categoryId: t.leaf.id } }),
        deleteCategory(t.root.id),
      ]);
      // exactly one wins: the product (and the category stays), or the deletion (and the create is refused)
      expect([created.status, removed.status].sort()).toEqual(created.status === 201 ? [201, 409] : [200, 422]);
    }
    const orphans = await env.orm.em
      .fork()
      .execute(
        'select p.id from products p join categories c on c.id = p.category_id where p.team_id = ? and p.deleted_at is null and c.deleted_at is not null',
        [teamId],
      );
    expect(orphans).toEqual([]);
  });
});

describe('DELETE /v1/brands/{id} with products (brand_has_dependents)', () => {
  it('refuses with 409 while a live product has the brand (without any category), deleting nothing', async () => {
    const brand = await g.brand(manager);
    const product = await gp.product(manager, { brandId: brand.id });
    const res = await deleteBrand(brand.id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('brand_has_dependents');
    expect((await send(env, { url: `/v1/brands/${brand.id}`, key: manager.key })).status).toBe(200);
    await send(env, { method: 'DELETE', url: `/v1/products/${product.id}`, key: manager.key });
    expect((await deleteBrand(brand.id)).status).toBe(200);
  });

  it('a product moved to another brand no longer holds the brand', async () => {
    const [b1, b2] = [await g.brand(manager), await g.brand(manager)];
    const product = await gp.product(manager, { brandId: b1.id });
    await send(env, { method: 'PATCH', url: `/v1/products/${product.id}`, key: manager.key, body: { brandId: b2.id } });
    expect((await deleteBrand(b1.id)).status).toBe(200);
    expect((await deleteBrand(b2.id)).body.code).toBe('brand_has_dependents');
  });

  it('a product created while its brand is being deleted never ends up in a deleted brand', async () => {
    for (let round = 0; round < 5; round++) {
      const brand = await g.brand(manager);
      const [created, removed] = await Promise.all([
        send(env, { method: 'POST', url: '/v1/products', key: manager.key, body: { brandId: brand.id } }),
        deleteBrand(brand.id),
      ]);
      expect([created.status, removed.status].sort()).toEqual(created.status === 201 ? [201, 409] : [200, 422]);
    }
    const orphans = await env.orm.em
      .fork()
      .execute('select p.id from products p join brands b on b.id = p.brand_id where p.team_id = ? and p.deleted_at is null and b.deleted_at is not null', [
        teamId,
      ]);
    expect(orphans).toEqual([]);
  });
});
