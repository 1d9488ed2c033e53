import type { Ctx } from './ctx.ts';

/**
 * Lean SQL through the request's EntityManager (and so its transaction, when one is open).
 * Hot reads go this way: STACK.md measured entity loading at less than half the throughput.
 */
export async function queryRows<T>(ctx: Pick<Ctx, 'em'>, sql: string, params: unknown[] = []): Promise<T[]> {
  return ctx.em.execute<T[]>(sql, params as unknown[]);
}

export async function queryOne<T>(ctx: Pick<Ctx, 'em'>, sql: string, params: unknown[] = []): Promise<T | null> {
  const rows = await queryRows<T>(ctx, sql, params);
  return rows[0] ?? null;
}
