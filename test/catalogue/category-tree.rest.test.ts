import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import type { CategoryView } from '../../src/core/catalogue/categories/category.schemas.ts';
import { childNames, storedCategories, treeProblems } from '../support/category-tree.ts';
import { layeredTree, seedCategories } from '../support/category-seed.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let team: GivenTeam;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  team = await g.team();
  manager = await g.key(team, 'manage');
});
afterAll(async () => env.close());

async function snapshot(brandId: number): Promise<unknown[]> {
  return env.orm.em.fork().execute('select *, updated_at::text as updated, deleted_at::text as deleted from categories where brand_id = ? order by id', [brandId]);
}

const create = (body: unknown) => send(env, { method: 'POST', url: '/v1/categories', key: manager.key, body });
const patch = (id: number, body: unknown) => send(env, { method: 'PATCH', url: `/v1/categories/${id}`, key: manager.key, body });
const remove = (id: number) => send(env, { method: 'DELETE', url: `/v1/categories/${id}`, key: manager.key });
const read = async (id: number): Promise<CategoryView> => (await send(env, { url: `/v1/categories/${id}`, key: manager.key })).body.data;

/** A brand holding Shoes > Running > Trail > Mud, and Bags > Kids (Kids also under Shoes). */
async function sampleTree() {
  const brand = await g.brand(manager, { name: 'Tree' });
  const add = (name: string, parent?: CategoryView) => g.category(manager, { brandId: brand.id, name, ...(parent ? { parentId: parent.id } : {}) });
  const shoes = await add('Shoes');
  const running = await add('Running', shoes);
  const trail = await add('Trail', running);
  const mud = await add('Mud', trail);
  const shoeKids = await add('Kids', shoes);
  const bags = await add('Bags');
  const bagKids = await add('Kids', bags);
  return { brand, shoes, running, trail, mud, shoeKids, bags, bagKids };
}

/** A chain of `length` categories, each the child of the previous; returns them root first. */
async function chain(brand: BrandView, length: number, prefix = 'L'): Promise<CategoryView[]> {
  const nodes: CategoryView[] = [];
  for (let i = 1; i <= length; i++) {
    nodes.push(await g.category(manager, { brandId: brand.id, name: `${prefix}${i}`, ...(nodes.length ? { parentId: nodes.at(-1)!.id } : {}) }));
  }
  return nodes;
}

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

describe('depth limit (spec 8: 10 levels per brand)', () => {
  it('accepts a tenth level and rejects an eleventh on create with 422, writing nothing', async () => {
    const brand = await g.brand(manager);
    const levels = await chain(brand, 10);
    expect(levels.at(-1)!.pathKey.split('/')).toHaveLength(11);
    const before = await snapshot(brand.id);
    const res = await create({ brandId: brand.id, parentId: levels.at(-1)!.id, name: 'L11' });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    expect(await snapshot(brand.id)).toEqual(before);
  });

  it('rejects a move whose subtree would reach below level 10 with 422, and changes nothing', async () => {
    const brand = await g.brand(manager);
    const deep = await chain(brand, 8, 'D');
    const branch = await chain(brand, 3, 'B');
    const before = await snapshot(brand.id);
    // branch root would land on level 9, its leaf on level 11
    const res = await patch(branch[0]!.id, { parentId: deep.at(-1)!.id });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe('parentId');
    expect(await snapshot(brand.id)).toEqual(before);
  });

  it('accepts a move that ends exactly on level 10', async () => {
    const brand = await g.brand(manager);
    const deep = await chain(brand, 7, 'D');
    const branch = await chain(brand, 3, 'B');
    const res = await patch(branch[0]!.id, { parentId: deep.at(-1)!.id });
    expect(res.status).toBe(200);
    const rows = await storedCategories(env, brand.id);
    expect(Math.max(...rows.map((r) => r.depth))).toBe(10);
    expect(await treeProblems(env, brand.id)).toEqual([]);
  });
});

describe('node limit (spec 8: 5000 non-deleted per brand)', () => {
  it('creates the 5000th node, rejects the 5001st with 422, and counts only non-deleted nodes', async () => {
    const brand = await g.brand(manager);
    await seedCategories(env.orm.em.fork(), { teamId: team.teamId, brandId: brand.id }, layeredTree(4999, 3, 10));
    const last = await create({ brandId: brand.id, name: 'number 5000' });
    expect(last.status).toBe(201);
    const before = await snapshot(brand.id);
    const over = await create({ brandId: brand.id, name: 'number 5001' });
    expect(over.status).toBe(422);
    expect(over.body.details).toEqual([{ field: 'brandId', message: expect.any(String) }]);
    expect(await snapshot(brand.id)).toEqual(before);
    expect((await remove(last.body.data.id)).status).toBe(200);
    expect((await create({ brandId: brand.id, name: 'fits again' })).status).toBe(201);
  });

  it('lets another brand of the team grow while one brand is full', async () => {
    const full = await g.brand(manager);
    await seedCategories(env.orm.em.fork(), { teamId: team.teamId, brandId: full.id }, layeredTree(5000, 2, 50));
    const other = await g.brand(manager);
    expect((await create({ brandId: full.id, name: 'no room' })).status).toBe(422);
    expect((await create({ brandId: other.id, name: 'room' })).status).toBe(201);
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

describe('concurrent tree changes (serialized per brand)', () => {
  it('A under B and B under A at once: exactly one succeeds and the tree stays acyclic and consistent', async () => {
    // A and B sit under different roots, so the two moves share no row but the brand's; several
    // brands race at once so the requests really overlap. (Without the brand lock, the parent
    // foreign key's row locks would make this pair deadlock and retry; the rename race below is
    // the one only the brand lock prevents.)
    const pairs = await Promise.all(
      Array.from({ length: 6 }, async (_, round) => {
        const brand = await g.brand(manager, { name: `Race ${round}` });
        const x = await g.category(manager, { brandId: brand.id, name: 'X' });
        const y = await g.category(manager, { brandId: brand.id, name: 'Y' });
        const a = await g.category(manager, { brandId: brand.id, parentId: x.id, name: 'A' });
        const b = await g.category(manager, { brandId: brand.id, parentId: y.id, name: 'B' });
        await g.category(manager, { brandId: brand.id, parentId: a.id, name: 'A child' });
        await g.category(manager, { brandId: brand.id, parentId: b.id, name: 'B child' });
        return { brand, a, b };
      }),
    );
    const results = await Promise.all(pairs.flatMap(({ a, b }) => [patch(a.id, { parentId: b.id }), patch(b.id, { parentId: a.id })]));
    for (let i = 0; i < pairs.length; i++) {
      const pair = [results[2 * i]!, results[2 * i + 1]!];
      expect(pair.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(pair.find((r) => r.status === 422)!.body.details[0].field).toBe('parentId');
      expect(await treeProblems(env, pairs[i]!.brand.id)).toEqual([]);
    }
  });

  it('a rename of an ancestor racing a move under it leaves the moved subtree with the new path', async () => {
    const trees = await Promise.all(
      Array.from({ length: 6 }, async (_, round) => {
        const brand = await g.brand(manager, { name: `Rename race ${round}` });
        const x = await g.category(manager, { brandId: brand.id, name: 'X' });
        const a = await g.category(manager, { brandId: brand.id, parentId: x.id, name: 'A' });
        const y = await g.category(manager, { brandId: brand.id, name: 'Y' });
        const b = await g.category(manager, { brandId: brand.id, parentId: y.id, name: 'B' });
        await g.category(manager, { brandId: brand.id, parentId: b.id, name: 'B child' });
        return { brand, x, a, b };
      }),
    );
    const results = await Promise.all(trees.flatMap(({ x, a, b }) => [patch(x.id, { name: 'X renamed' }), patch(b.id, { parentId: a.id })]));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    for (const { brand, b } of trees) {
      expect((await read(b.id)).pathKey).toBe('/X renamed/A/B');
      expect(await treeProblems(env, brand.id)).toEqual([]);
    }
  });

  it('many concurrent moves, renames and creates in one brand leave every path consistent with the parents', async () => {
    const brand = await g.brand(manager, { name: 'Churn' });
    const ids = await seedCategories(env.orm.em.fork(), { teamId: team.teamId, brandId: brand.id }, layeredTree(60, 4, 3));
    const all = [...ids.values()];
    const pick = (i: number) => all[(i * 7919) % all.length]!;
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i % 3 === 0) return patch(pick(i), { parentId: pick(i + 5) });
      if (i % 3 === 1) return patch(pick(i), { name: `renamed ${i}` });
      return create({ brandId: brand.id, parentId: pick(i), name: `new ${i}` });
    });
    const statuses = (await Promise.all(requests)).map((r) => r.status);
    expect(statuses.every((s) => [200, 201, 409, 422].includes(s))).toBe(true);
    expect(await treeProblems(env, brand.id)).toEqual([]);
  });

  it('two creates of the same name under one parent at once: one 201, one 409 name_in_use', async () => {
    const brand = await g.brand(manager);
    const results = await Promise.all([create({ brandId: brand.id, name: 'Twin' }), create({ brandId: brand.id, name: 'Twin' })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await treeProblems(env, brand.id)).toEqual([]);
  });
});
