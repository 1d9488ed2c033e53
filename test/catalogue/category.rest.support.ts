import { afterAll, beforeAll } from 'vitest';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';

/** What the /v1/categories files share: a team with a manage key and a brand 'Acme', in an environment with a storage directory (category icons). */
export interface CategoryRestWorld {
  env: TestEnv;
  g: ReturnType<typeof given>;
  team: GivenTeam;
  manager: GivenKey;
  brand: BrandView;
}

/**
 * Registers the hooks that build the world above before a file's tests and remove it after them,
 * and returns it (its fields set once the file's first beforeAll has run) with the request helpers.
 */
export function useCategoryRest() {
  const world = {} as CategoryRestWorld;
  let storage: Awaited<ReturnType<typeof tempDir>> | undefined;
  beforeAll(async () => {
    storage = await tempDir('categories');
    world.env = await createTestEnv({ STORAGE_DIR: storage.path });
    world.g = given(world.env);
    world.team = await world.g.team();
    world.manager = await world.g.key(world.team, 'manage');
    world.brand = await world.g.brand(world.manager, { name: 'Acme' });
  });
  afterAll(async () => {
    await world.env?.close();
    await storage?.remove();
  });

  /** Every category row of a team, deleted ones and timestamps included: any write changes it. */
  async function snapshot(teamId: number): Promise<unknown[]> {
    return world.env.orm.em
      .fork()
      .execute('select *, updated_at::text as updated, deleted_at::text as deleted from categories where team_id = ? order by id', [teamId]);
  }

  const create = (key: string, body: unknown, headers?: Record<string, string>) =>
    send(world.env, { method: 'POST', url: '/v1/categories', key, body, headers });
  const patch = (key: string, id: number, body: unknown, headers?: Record<string, string>) =>
    send(world.env, { method: 'PATCH', url: `/v1/categories/${id}`, key, body, headers });
  const remove = (key: string, id: number, headers?: Record<string, string>) =>
    send(world.env, { method: 'DELETE', url: `/v1/categories/${id}`, key, headers });
  const read = (key: string, id: number) => send(world.env, { url: `/v1/categories/${id}`, key });

  async function freshBrand(name = 'Fresh'): Promise<BrandView> {
    return world.g.brand(world.manager, { name });
  }

  return { world, snapshot, create, patch, remove, read, freshBrand };
}
