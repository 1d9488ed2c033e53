import { expect } from 'vitest';
import type { GivenKey } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/**
 * What the POST /v1/products files share (spec 4.5 ProductCreate, 2.5, 3.1, 7.1, 8): the product
 * world of team A (an editable key creates) and team B (`stranger`, a manage key of another
 * library), and the create helpers.
 */
export function useProductCreate(options: { template?: boolean } = {}) {
  const world: ProductWorld = useProductWorld({ team: 'A', other: 'B', ...options });

  const create = (body: unknown, key: GivenKey = world.keys.editable, headers: Record<string, string> = {}) =>
    send(world.env, { method: 'POST', url: '/v1/products', key: key.key, body, headers });
  const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);

  /** Refused writes must leave the table exactly as it was. */
  async function expectRefused(body: unknown, status: number, code: string, field?: string): Promise<void> {
    const before = await world.gp.snapshot(world.team.teamId);
    const res = await create(body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, data: null, code });
    if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await world.gp.snapshot(world.team.teamId)).toBe(before);
  }

  return { world, create, db, expectRefused };
}
