import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import { layeredTree, seedCategories } from '../support/category-seed.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let team: GivenTeam;
let manager: GivenKey;
let brand: BrandView;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  team = await g.team();
  manager = await g.key(team, 'manage');
  brand = await g.brand(manager, { name: 'Graph brand' });
});
afterAll(async () => env.close());

const FIELDS = 'id brandId parentId name pathKey description iconEmoji iconAssetId sortOrder isEnabled createdAt updatedAt';
const CREATE = `mutation($input: CategoryCreateInput!, $key: String) { createCategory(input: $input, idempotencyKey: $key) { etag category { ${FIELDS} } } }`;
const UPDATE = `mutation($id: Int!, $input: CategoryPatchInput!, $ifMatch: String) { updateCategory(id: $id, input: $input, ifMatch: $ifMatch) { etag category { ${FIELDS} } } }`;
const DELETE = `mutation($id: Int!, $ifMatch: String) { deleteCategory(id: $id, ifMatch: $ifMatch) { id etag } }`;
const GET = `query($id: Int!) { category(id: $id) { etag category { ${FIELDS} } } }`;

async function snapshot(teamId: number): Promise<unknown[]> {
  return env.orm.em.fork().execute('select *, updated_at::text as u, deleted_at::text as d from categories where team_id = ? order by id', [teamId]);
}

describe('GraphQL category operations (same core operations as REST)', () => {
  it('createCategory returns the category and the same ETag REST getCategory gives', async () => {
    const res = await graphql(env, manager.key, CREATE, { input: { brandId: brand.id, name: 'Shoes', iconEmoji: '👟' } });
    expect(res.body.errors).toBeUndefined();
    const { category, etag } = res.body.data.createCategory;
    expect(category).toMatchObject({ brandId: brand.id, parentId: null, name: 'Shoes', pathKey: '/Shoes', iconEmoji: '👟', sortOrder: 0, isEnabled: true });
    const rest = await send(env, { url: `/v1/categories/${category.id}`, key: manager.key });
    expect(rest.headers.etag).toBe(etag);
    expect(rest.body.data).toEqual(category);
  });

  it('createCategory replays with the same idempotencyKey and creates one category', async () => {
    const b = await g.brand(manager, { name: 'Idem' });
    const first = await graphql(env, manager.key, CREATE, { input: { brandId: b.id, name: 'Once' }, key: 'gql-once' });
    const again = await graphql(env, manager.key, CREATE, { input: { brandId: b.id, name: 'Once' }, key: 'gql-once' });
    expect(again.body.data.createCategory).toEqual(first.body.data.createCategory);
    const rows = (await snapshot(team.teamId)) as Array<{ brand_id: number }>;
    expect(rows.filter((r) => r.brand_id === b.id)).toHaveLength(1);
  });

  it('category(id) and categories(brandId) read the live tree in listing order', async () => {
    const b = await g.brand(manager, { name: 'Listed' });
    const root = await g.category(manager, { brandId: b.id, name: 'Root' });
    const child = await g.category(manager, { brandId: b.id, parentId: root.id, name: 'Child' });
    const one = await graphql(env, manager.key, GET, { id: child.id });
    expect(one.body.data.category.category).toEqual(child);
    const list = await graphql(
      env,
      manager.key,
      `query($b: Int) { categories(brandId: $b, pageSize: 10) { items { id } pagination { page pageSize totalCount totalPages } } }`,
      { b: b.id },
    );
    expect(list.body.data.categories.items.map((c: { id: number }) => c.id)).toEqual([root.id, child.id]);
    expect(list.body.data.categories.pagination).toEqual({ page: 1, pageSize: 10, totalCount: 2, totalPages: 1 });
  });

  it('updateCategory moves a category; a stale ifMatch gives precondition_failed and changes nothing', async () => {
    const b = await g.brand(manager, { name: 'Moves' });
    const a = await g.category(manager, { brandId: b.id, name: 'A' });
    const z = await g.category(manager, { brandId: b.id, name: 'Z' });
    const read = await graphql(env, manager.key, GET, { id: z.id });
    const moved = await graphql(env, manager.key, UPDATE, { id: z.id, input: { parentId: a.id }, ifMatch: read.body.data.category.etag });
    expect(moved.body.data.updateCategory.category).toMatchObject({ parentId: a.id, pathKey: '/A/Z', sortOrder: 0 });
    const before = await snapshot(team.teamId);
    const stale = await graphql(env, manager.key, UPDATE, { id: z.id, input: { name: 'Y' }, ifMatch: read.body.data.category.etag });
    expect(stale.body.errors[0].extensions.code).toBe('precondition_failed');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('updateCategory with parentId null moves to the root', async () => {
    const b = await g.brand(manager, { name: 'To root' });
    const a = await g.category(manager, { brandId: b.id, name: 'A' });
    const c = await g.category(manager, { brandId: b.id, parentId: a.id, name: 'C' });
    const res = await graphql(env, manager.key, UPDATE, { id: c.id, input: { parentId: null } });
    expect(res.body.data.updateCategory.category).toMatchObject({ parentId: null, pathKey: '/C', sortOrder: 1 });
  });

  it('deleteCategory soft-deletes the subtree; reading it then gives not_found', async () => {
    const b = await g.brand(manager, { name: 'Deletes' });
    const root = await g.category(manager, { brandId: b.id, name: 'Root' });
    const child = await g.category(manager, { brandId: b.id, parentId: root.id, name: 'Child' });
    const res = await graphql(env, manager.key, DELETE, { id: root.id });
    expect(res.body.data.deleteCategory).toEqual({ id: root.id, etag: expect.stringMatching(/^"/) });
    const gone = await graphql(env, manager.key, GET, { id: child.id });
    expect(gone.body.errors[0].extensions.code).toBe('not_found');
  });

  it('reports core errors with extensions.code: name_in_use, validation_failed with details, forbidden', async () => {
    const b = await g.brand(manager, { name: 'Errors' });
    await g.category(manager, { brandId: b.id, name: 'Taken' });
    const reader = await g.key(team, 'view_only');
    const before = await snapshot(team.teamId);
    const clash = await graphql(env, manager.key, CREATE, { input: { brandId: b.id, name: 'Taken' } });
    expect(clash.body.errors[0].extensions.code).toBe('name_in_use');
    const invalid = await graphql(env, manager.key, CREATE, { input: { brandId: b.id, name: 'a/b' } });
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'name', message: expect.any(String) }] });
    const forbidden = await graphql(env, reader.key, CREATE, { input: { brandId: b.id, name: 'Reader' } });
    expect(forbidden.body.errors[0].extensions.code).toBe('forbidden');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it('categories(brandId: 0) gives validation_failed, as REST does; a view_only key may read', async () => {
    const reader = await g.key(team, 'view_only');
    const bad = await graphql(env, reader.key, `{ categories(brandId: 0) { items { id } } }`);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'brandId', message: expect.any(String) }] });
    const good = await graphql(env, reader.key, `query($b: Int) { categories(brandId: $b) { pagination { totalCount } } }`, { b: brand.id });
    expect(good.body.errors).toBeUndefined();
  });

  it('has no brandId in CategoryPatchInput: sending one is refused before anything runs', async () => {
    const b = await g.brand(manager, { name: 'Immutable' });
    const c = await g.category(manager, { brandId: b.id, name: 'Fixed' });
    const before = await snapshot(team.teamId);
    const res = await graphql(env, manager.key, UPDATE, { id: c.id, input: { brandId: brand.id } });
    expect(res.body.errors[0].message).toContain('brandId');
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it("gives another team's key not_found for category(id) and never lists the category", async () => {
    const c = await g.category(manager, { brandId: brand.id, name: 'Private' });
    const stranger = await g.key(await g.team('Other'), 'manage');
    const one = await graphql(env, stranger.key, GET, { id: c.id });
    expect(one.body.errors[0].extensions.code).toBe('not_found');
    const list = await graphql(env, stranger.key, `{ categories(pageSize: 100) { items { id } } }`);
    expect(list.body.data.categories.items).toEqual([]);
  });
});

describe('Category.parent, Category.children and Category.brand', () => {
  it('resolve the parent, the live children in sibling order, and the brand', async () => {
    const b = await g.brand(manager, { name: 'Family' });
    const root = await g.category(manager, { brandId: b.id, name: 'Root' });
    const second = await g.category(manager, { brandId: b.id, parentId: root.id, name: 'Second' });
    const first = await g.category(manager, { brandId: b.id, parentId: root.id, name: 'First', sortOrder: 0 });
    const deleted = await g.category(manager, { brandId: b.id, parentId: root.id, name: 'Deleted' });
    await send(env, { method: 'DELETE', url: `/v1/categories/${deleted.id}`, key: manager.key });
    const res = await graphql(
      env,
      manager.key,
      `query($id: Int!) { category(id: $id) { category { name parent { id } brand { id name } children { id name parent { id name } children { id } } } } }`,
      { id: root.id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.category.category).toEqual({
      name: 'Root',
      parent: null,
      brand: { id: b.id, name: 'Family' },
      children: [
        { id: first.id, name: 'First', parent: { id: root.id, name: 'Root' }, children: [] },
        { id: second.id, name: 'Second', parent: { id: root.id, name: 'Root' }, children: [] },
      ],
    });
  });
});

describe('nested category queries load in a constant number of SQL statements (dataloaders)', () => {
  let counting: CountingApp;

  beforeAll(async () => {
    counting = await countingApp(env);
  });
  afterAll(async () => counting.close());

  // a root and nine levels of children below it, each node with its parent and brand
  const level = (depth: number): string => (depth === 0 ? 'id' : `id pathKey brand { id } parent { id } children { ${level(depth - 1)} }`);
  const TREE_QUERY = `query($root: Int!) { category(id: $root) { category { ${level(10)} } } }`;

  async function countedTreeQuery(rootId: number): Promise<{ statements: number; nodes: number }> {
    counting.statements.length = 0;
    const res = await counting.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: TREE_QUERY, variables: { root: rootId } }),
    });
    const body = res.json();
    expect(body.errors).toBeUndefined();
    const seen = new Set<number>();
    const walk = (node: { id: number; children?: unknown[] }) => {
      seen.add(node.id);
      for (const child of node.children ?? []) walk(child as { id: number });
    };
    walk(body.data.category.category);
    return { statements: counting.statements.length, nodes: seen.size };
  }

  it('uses as many statements for a 5000-node, 10-level tree as for a 10-node one', async () => {
    const large = await g.brand(manager, { name: 'Large' });
    const small = await g.brand(manager, { name: 'Small' });
    const largeIds = await seedCategories(env.orm.em.fork(), { teamId: team.teamId, brandId: large.id }, layeredTree(5000, 10, 1));
    const smallIds = await seedCategories(env.orm.em.fork(), { teamId: team.teamId, brandId: small.id }, layeredTree(10, 10, 1));
    const smallRun = await countedTreeQuery(smallIds.get('n1_0')!);
    const largeRun = await countedTreeQuery(largeIds.get('n1_0')!);
    expect(smallRun.nodes).toBe(10);
    expect(largeRun.nodes).toBe(5000);
    // the counter really sees the reads: a 10-level chain cannot load in fewer than 10 statements
    expect(smallRun.statements).toBeGreaterThanOrEqual(10);
    expect(largeRun.statements).toBe(smallRun.statements);
    // authentication, the root, then per level at most one children, one parent and one brand batch
    expect(largeRun.statements).toBeLessThanOrEqual(3 + 3 * 10);
  });
});

describe("a categories page reads its items' parents in its own statement", () => {
  let counting: CountingApp;
  let tree: BrandView;
  let ids: Map<string, number>;
  beforeAll(async () => {
    counting = await countingApp(env);
    tree = await g.brand(manager, { name: 'Paged tree' });
    // 2 roots, 3 children each, 2 leaves per child: 14 nodes; pages of 5 put parents on other pages
    const nodes = [];
    for (let r = 0; r < 2; r++) {
      nodes.push({ key: `r${r}`, parentKey: null, name: `R${r}` });
      for (let c = 0; c < 3; c++) {
        nodes.push({ key: `r${r}c${c}`, parentKey: `r${r}`, name: `C${r}${c}` });
        for (let l = 0; l < 2; l++) nodes.push({ key: `r${r}c${c}l${l}`, parentKey: `r${r}c${c}`, name: `L${r}${c}${l}` });
      }
    }
    ids = await seedCategories(env.orm.em.fork(), { teamId: team.teamId, brandId: tree.id }, nodes);
  });
  afterAll(async () => counting.close());

  async function page(n: number, items: string, fragments = ''): Promise<{ items: Array<Record<string, unknown>>; statements: number }> {
    counting.statements.length = 0;
    const res = await counting.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
      payload: {
        query: `query($b: Int!, $p: Int!) { categories(brandId: $b, page: $p, pageSize: 5) { items { ${items} } } } ${fragments}`,
        variables: { b: tree.id, p: n },
      },
    });
    const body = res.json();
    expect(body.errors).toBeUndefined();
    return { items: body.data.categories.items, statements: counting.statements.length };
  }

  it("answers every page with each item's parent (on the page or not), in as many statements as without parents", async () => {
    const byId = new Map([...ids].map(([key, id]) => [id, key]));
    for (const n of [1, 2, 3]) {
      const withParents = await page(n, 'id parentId parent { id name pathKey }');
      const without = await page(n, 'id parentId');
      expect(withParents.statements).toBe(without.statements);
      for (const item of withParents.items) {
        const parent = item.parent as { id: number; name: string; pathKey: string } | null;
        expect(parent?.id ?? null).toBe(item.parentId);
        if (parent) expect(`/${parent.pathKey.split('/').pop()}`).toBe(`/${parent.name}`);
        if (parent) expect(byId.get(item.id as number)!.startsWith(byId.get(parent.id)!)).toBe(true);
      }
    }
  });

  it('sees parent through fragments and aliases, and a parent of a parent still loads by id', async () => {
    const viaFragment = await page(3, '...Up', 'fragment Up on Category { id up: parent { id parent { id } } }');
    const without = await page(3, 'id');
    // the page's parents come with the page; the grandparents take one batch
    expect(viaFragment.statements).toBe(without.statements + 1);
    for (const item of viaFragment.items) {
      const up = item.up as { id: number; parent: { id: number } | null };
      expect(up).not.toBeNull();
      const [parent] = await env.core.catalogue.categories.findByIds(await g.ctx(manager), [up.id]);
      expect(up.parent?.id ?? null).toBe(parent!.parentId);
    }
  });

  it("answers another team's key no page and no parent of this team's tree", async () => {
    const other = await g.key(await g.team(), 'manage');
    const res = await graphql(env, other.key, `query($b: Int!) { categories(brandId: $b) { items { id parent { id } } pagination { totalCount } } }`, {
      b: tree.id,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.categories).toEqual({ items: [], pagination: { totalCount: 0 } });
  });
});
