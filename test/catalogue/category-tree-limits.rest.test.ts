import { beforeAll, describe, expect, it } from 'vitest';
import { layeredTree, seedCategories } from '../support/category-seed.ts';
import { storedCategories, treeProblems } from '../support/category-tree.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { type CategoryTreeWorld, useCategoryTree } from './category-tree.rest.support.ts';

/** A brand's category tree under load (spec 8, 2.3): the depth and node limits, and concurrent tree changes, serialized per brand. */
const { world, snapshot, create, patch, remove, read, chain } = useCategoryTree();
let env: TestEnv;
let g: CategoryTreeWorld['g'];
let team: GivenTeam;
let manager: GivenKey;

beforeAll(() => {
  ({ env, g, team, manager } = world);
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
