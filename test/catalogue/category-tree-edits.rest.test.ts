import { beforeAll, describe, expect, it } from 'vitest';
import { childNames, storedCategories, treeProblems } from '../support/category-tree.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type CategoryTreeWorld, useCategoryTree } from './category-tree.rest.support.ts';

/** A brand's category tree (spec 2.3, 3.2): renaming, moving, sibling positions and deleting a subtree. */
const { world, snapshot, create, patch, remove, read, sampleTree } = useCategoryTree();
let env: TestEnv;
let g: CategoryTreeWorld['g'];
let manager: GivenKey;

beforeAll(() => {
  ({ env, g, manager } = world);
});

describe('renaming (spec 2.3: descendant paths follow atomically)', () => {
  it('rewrites the path of every descendant and bumps their updatedAt', async () => {
    const t = await sampleTree();
    const res = await patch(t.shoes.id, { name: 'Footwear' });
    expect(res.status).toBe(200);
    expect(res.body.data.pathKey).toBe('/Footwear');
    expect((await read(t.running.id)).pathKey).toBe('/Footwear/Running');
    expect((await read(t.trail.id)).pathKey).toBe('/Footwear/Running/Trail');
    const mud = await read(t.mud.id);
    expect(mud.pathKey).toBe('/Footwear/Running/Trail/Mud');
    expect(mud.updatedAt > t.mud.updatedAt).toBe(true);
    expect((await read(t.bagKids.id)).pathKey).toBe('/Bags/Kids');
    expect(await treeProblems(env, t.brand.id)).toEqual([]);
  });

  it('leaves the paths alone when only other fields change', async () => {
    const t = await sampleTree();
    await patch(t.shoes.id, { description: 'just text' });
    expect(await read(t.mud.id)).toEqual(t.mud);
  });
});

describe('moving (PATCH parentId)', () => {
  it('moves a subtree under another parent, rewriting paths and depths of the whole subtree', async () => {
    const t = await sampleTree();
    const res = await patch(t.running.id, { parentId: t.bags.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ parentId: t.bags.id, pathKey: '/Bags/Running' });
    expect((await read(t.mud.id)).pathKey).toBe('/Bags/Running/Trail/Mud');
    const rows = await storedCategories(env, t.brand.id);
    expect(rows.find((r) => r.id === t.mud.id)!.depth).toBe(4);
    expect(await treeProblems(env, t.brand.id)).toEqual([]);
  });

  it('moves a subtree to the root with parentId null, reducing every depth', async () => {
    const t = await sampleTree();
    const res = await patch(t.trail.id, { parentId: null });
    expect(res.body.data).toMatchObject({ parentId: null, pathKey: '/Trail' });
    const rows = await storedCategories(env, t.brand.id);
    expect(rows.find((r) => r.id === t.trail.id)!.depth).toBe(1);
    expect(rows.find((r) => r.id === t.mud.id)).toMatchObject({ depth: 2, path_key: '/Trail/Mud' });
    expect(await treeProblems(env, t.brand.id)).toEqual([]);
  });

  it('moves and renames in one update', async () => {
    const t = await sampleTree();
    const res = await patch(t.trail.id, { parentId: t.bags.id, name: 'Hiking' });
    expect(res.body.data.pathKey).toBe('/Bags/Hiking');
    expect((await read(t.mud.id)).pathKey).toBe('/Bags/Hiking/Mud');
    expect(await treeProblems(env, t.brand.id)).toEqual([]);
  });

  it('appends at the destination when sortOrder is omitted and closes the gap in the old parent', async () => {
    const t = await sampleTree();
    // Shoes has Running (0) and Kids (1); Bags has Kids (0)
    const res = await patch(t.running.id, { parentId: t.bags.id });
    expect(res.body.data.sortOrder).toBe(1);
    expect(await childNames(env, t.brand.id, t.bags.id)).toEqual(['Kids', 'Running']);
    expect(await childNames(env, t.brand.id, t.shoes.id)).toEqual(['Kids']);
    expect((await read(t.shoeKids.id)).sortOrder).toBe(0);
  });

  it('inserts at the given sortOrder of the destination, shifting later siblings', async () => {
    const t = await sampleTree();
    const res = await patch(t.running.id, { parentId: t.bags.id, sortOrder: 0 });
    expect(res.body.data.sortOrder).toBe(0);
    expect(await childNames(env, t.brand.id, t.bags.id)).toEqual(['Running', 'Kids']);
    expect(await treeProblems(env, t.brand.id)).toEqual([]);
  });

  it('treats an unchanged parentId as a same-parent update, not a move', async () => {
    const t = await sampleTree();
    const res = await patch(t.running.id, { parentId: t.shoes.id, description: 'same place' });
    expect(res.body.data).toMatchObject({ parentId: t.shoes.id, sortOrder: 0 });
    expect(await childNames(env, t.brand.id, t.shoes.id)).toEqual(['Running', 'Kids']);
  });

  it('rejects a sortOrder above the destination live sibling count with 422 and changes nothing', async () => {
    const t = await sampleTree();
    const before = await snapshot(t.brand.id);
    const res = await patch(t.running.id, { parentId: t.bags.id, sortOrder: 2 });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'sortOrder', message: expect.any(String) }]);
    expect(await snapshot(t.brand.id)).toEqual(before);
  });

  it('rejects a move under the category itself with 422 validation_failed and changes nothing', async () => {
    const t = await sampleTree();
    const before = await snapshot(t.brand.id);
    const res = await patch(t.running.id, { parentId: t.running.id });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    expect(await snapshot(t.brand.id)).toEqual(before);
  });

  it('rejects a move under one of its own descendants (a cycle) with 422 and changes nothing', async () => {
    const t = await sampleTree();
    const before = await snapshot(t.brand.id);
    for (const target of [t.running, t.mud]) {
      const res = await patch(t.shoes.id, { parentId: target.id });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('parentId');
    }
    expect(await snapshot(t.brand.id)).toEqual(before);
  });

  it('rejects a move to a parent of another brand or a deleted parent with 422 and changes nothing', async () => {
    const t = await sampleTree();
    const other = await g.brand(manager, { name: 'Other' });
    const foreign = await g.category(manager, { brandId: other.id, name: 'Foreign' });
    await remove(t.bagKids.id);
    const before = await snapshot(t.brand.id);
    for (const parentId of [foreign.id, t.bagKids.id, 2147483647]) {
      const res = await patch(t.running.id, { parentId });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('parentId');
    }
    expect(await snapshot(t.brand.id)).toEqual(before);
  });

  it('rejects a move next to a live sibling of the same name with 409 name_in_use and changes nothing', async () => {
    const t = await sampleTree();
    const before = await snapshot(t.brand.id);
    const res = await patch(t.shoeKids.id, { parentId: t.bags.id });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('name_in_use');
    expect(await snapshot(t.brand.id)).toEqual(before);
  });
});

describe('sibling positions (spec 2.3 sortOrder: zero-based, contiguous)', () => {
  it('appends on create when sortOrder is omitted', async () => {
    const brand = await g.brand(manager);
    const names = ['a', 'b', 'c'];
    const made = [];
    for (const name of names) made.push(await g.category(manager, { brandId: brand.id, name }));
    expect(made.map((c) => c.sortOrder)).toEqual([0, 1, 2]);
  });

  it('inserts on create at the given index, shifting later siblings', async () => {
    const brand = await g.brand(manager);
    for (const name of ['a', 'b', 'c']) await g.category(manager, { brandId: brand.id, name });
    const res = await create({ brandId: brand.id, name: 'first', sortOrder: 0 });
    expect(res.body.data.sortOrder).toBe(0);
    const middle = await create({ brandId: brand.id, name: 'middle', sortOrder: 2 });
    expect(middle.body.data.sortOrder).toBe(2);
    const last = await create({ brandId: brand.id, name: 'last', sortOrder: 5 });
    expect(last.body.data.sortOrder).toBe(5);
    expect(await childNames(env, brand.id, null)).toEqual(['first', 'a', 'middle', 'b', 'c', 'last']);
    expect(await treeProblems(env, brand.id)).toEqual([]);
  });

  it('rejects a create sortOrder above the live sibling count with 422 and writes nothing', async () => {
    const brand = await g.brand(manager);
    await g.category(manager, { brandId: brand.id, name: 'only' });
    const before = await snapshot(brand.id);
    const res = await create({ brandId: brand.id, name: 'x', sortOrder: 2 });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'sortOrder', message: expect.any(String) }]);
    expect(await snapshot(brand.id)).toEqual(before);
  });

  it('counts only live siblings: deleted ones neither hold a position nor raise the limit', async () => {
    const brand = await g.brand(manager);
    const a = await g.category(manager, { brandId: brand.id, name: 'a' });
    await g.category(manager, { brandId: brand.id, name: 'b' });
    await remove(a.id);
    expect((await create({ brandId: brand.id, name: 'x', sortOrder: 2 })).status).toBe(422);
    const res = await create({ brandId: brand.id, name: 'y', sortOrder: 1 });
    expect(res.status).toBe(201);
    expect(await childNames(env, brand.id, null)).toEqual(['b', 'y']);
  });

  it('moves within the same parent when sortOrder is given, renumbering the siblings', async () => {
    const brand = await g.brand(manager);
    const [a, , c] = [
      await g.category(manager, { brandId: brand.id, name: 'a' }),
      await g.category(manager, { brandId: brand.id, name: 'b' }),
      await g.category(manager, { brandId: brand.id, name: 'c' }),
    ];
    expect((await patch(a!.id, { sortOrder: 2 })).body.data.sortOrder).toBe(2);
    expect(await childNames(env, brand.id, null)).toEqual(['b', 'c', 'a']);
    expect((await patch(c!.id, { sortOrder: 0 })).body.data.sortOrder).toBe(0);
    expect(await childNames(env, brand.id, null)).toEqual(['c', 'b', 'a']);
    expect(await treeProblems(env, brand.id)).toEqual([]);
  });

  it('keeps the position on a same-parent update without sortOrder', async () => {
    const brand = await g.brand(manager);
    await g.category(manager, { brandId: brand.id, name: 'a' });
    const b = await g.category(manager, { brandId: brand.id, name: 'b' });
    const res = await patch(b.id, { name: 'bee' });
    expect(res.body.data.sortOrder).toBe(1);
  });

  it('rejects a same-parent sortOrder beyond the last position with 422 and changes nothing', async () => {
    const brand = await g.brand(manager);
    const a = await g.category(manager, { brandId: brand.id, name: 'a' });
    await g.category(manager, { brandId: brand.id, name: 'b' });
    const before = await snapshot(brand.id);
    const res = await patch(a.id, { sortOrder: 2 });
    expect(res.status).toBe(422);
    expect(await snapshot(brand.id)).toEqual(before);
  });
});

describe('deleting (spec 3.2: the whole subtree)', () => {
  it('soft-deletes the category and every descendant, and renumbers the remaining siblings', async () => {
    const t = await sampleTree();
    const res = await remove(t.running.id);
    expect(res.status).toBe(200);
    const rows = await storedCategories(env, t.brand.id);
    for (const id of [t.running.id, t.trail.id, t.mud.id]) expect(rows.find((r) => r.id === id)!.deleted_at).not.toBeNull();
    for (const id of [t.shoes.id, t.shoeKids.id, t.bags.id, t.bagKids.id]) expect(rows.find((r) => r.id === id)!.deleted_at).toBeNull();
    expect((await send(env, { url: `/v1/categories/${t.mud.id}`, key: manager.key })).status).toBe(404);
    expect((await read(t.shoeKids.id)).sortOrder).toBe(0);
    expect(await treeProblems(env, t.brand.id)).toEqual([]);
  });

  it('refuses with 409 category_has_products, deleting nothing, while a registered guard finds a product in the subtree', async () => {
    const t = await sampleTree();
    // products register the real guard; this one stands in for "a live product references Mud"
    env.core.catalogue.categories.addDeleteGuard(async (_tx, ids) => ids.includes(t.mud.id));
    const before = await snapshot(t.brand.id);
    for (const id of [t.shoes.id, t.running.id, t.mud.id]) {
      const res = await remove(id);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'category_has_products' });
    }
    expect(await snapshot(t.brand.id)).toEqual(before);
    // a subtree without the referenced category is still deletable
    expect((await remove(t.bags.id)).status).toBe(200);
  });

  it('hands the guard every id of the live subtree, the category itself included', async () => {
    const t = await sampleTree();
    let seen: readonly number[] = [];
    env.core.catalogue.categories.addDeleteGuard(async (_tx, ids) => {
      if (ids.includes(t.shoes.id)) seen = [...ids];
      return false;
    });
    await remove(t.shoes.id);
    expect([...seen].sort((a, b) => a - b)).toEqual([t.shoes.id, t.running.id, t.trail.id, t.mud.id, t.shoeKids.id].sort((a, b) => a - b));
  });
});
