import { afterAll, beforeAll } from 'vitest';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import type { CategoryView } from '../../src/core/catalogue/categories/category.schemas.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { send } from '../support/http.ts';

/** What the category tree files share: an environment and a team with a manage key. */
export interface CategoryTreeWorld {
  env: TestEnv;
  g: ReturnType<typeof given>;
  team: GivenTeam;
  manager: GivenKey;
}

/**
 * Registers the hooks that build the world above before a file's tests and close it after them,
 * and returns it (its fields set once the file's first beforeAll has run) with the helpers, which
 * all act with the manage key.
 */
export function useCategoryTree() {
  const world = {} as CategoryTreeWorld;
  beforeAll(async () => {
    world.env = await createTestEnv();
    world.g = given(world.env);
    world.team = await world.g.team();
    world.manager = await world.g.key(world.team, 'manage');
  });
  afterAll(async () => world.env?.close());

  async function snapshot(brandId: number): Promise<unknown[]> {
    return world.env.orm.em
      .fork()
      .execute('select *, updated_at::text as updated, deleted_at::text as deleted from categories where brand_id = ? order by id', [brandId]);
  }

  const create = (body: unknown) => send(world.env, { method: 'POST', url: '/v1/categories', key: world.manager.key, body });
  const patch = (id: number, body: unknown) => send(world.env, { method: 'PATCH', url: `/v1/categories/${id}`, key: world.manager.key, body });
  const remove = (id: number) => send(world.env, { method: 'DELETE', url: `/v1/categories/${id}`, key: world.manager.key });
  const read = async (id: number): Promise<CategoryView> => (await send(world.env, { url: `/v1/categories/${id}`, key: world.manager.key })).body.data;

  /** A brand holding Shoes > Running > Trail > Mud, and Bags > Kids (Kids also under Shoes). */
  async function sampleTree() {
    const { g, manager } = world;
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
      nodes.push(await world.g.category(world.manager, { brandId: brand.id, name: `${prefix}${i}`, ...(nodes.length ? { parentId: nodes.at(-1)!.id } : {}) }));
    }
    return nodes;
  }

  return { world, snapshot, create, patch, remove, read, sampleTree, chain };
}
