import type { TestEnv } from './env.ts';
import { type GivenKey, given } from './given.ts';

export interface GivenCategory {
  id: number;
  brandId: number;
  parentId: number | null;
}

/** Category fixtures through the category core (so its created hooks, e.g. default-template binding, run). */
export function givenCategories(env: TestEnv) {
  const g = given(env);
  let counter = 0;
  return {
    async category(key: GivenKey, brandId: number, input: { parentId?: number | null; name?: string } = {}): Promise<GivenCategory> {
      const ctx = await g.ctx(key);
      const outcome = await env.core.catalogue.categories.create(ctx, {
        brandId,
        name: input.name ?? `Category ${++counter}`,
        parentId: input.parentId ?? null,
      });
      const body = outcome.body as { id: number; brandId: number; parentId: number | null };
      return { id: body.id, brandId: body.brandId, parentId: body.parentId };
    },
    async deleteCategory(key: GivenKey, id: number): Promise<void> {
      await env.core.catalogue.categories.softDelete(await g.ctx(key), id);
    },
  };
}
