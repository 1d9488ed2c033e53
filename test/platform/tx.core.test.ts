import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { DomainError } from '../../src/core/platform/errors.ts';
import { queryRows } from '../../src/core/platform/sql.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';

let env: TestEnv;
let ctx: Ctx;

beforeAll(async () => {
  env = await createTestEnv();
  ctx = await given(env).ctx(await given(env).key(await given(env).team(), 'manage'));
  await env.orm.em.fork().execute('create table tx_probe (id int primary key, n int not null)');
  await env.orm.em.fork().execute('insert into tx_probe values (1, 0), (2, 0)');
});
afterAll(async () => env.close());

/** Two SERIALIZABLE transactions that each read both rows and then write one: PostgreSQL aborts one with 40001. */
async function serializationRace(maxAttempts: number): Promise<PromiseSettledResult<unknown>[]> {
  let arrived = 0;
  let release!: () => void;
  const bothRead = new Promise<void>((resolve) => (release = resolve));
  const worker = (row: number) =>
    inTransaction(
      ctx,
      async (tx) => {
        await queryRows(tx, 'select sum(n) from tx_probe');
        if (++arrived === 2) release();
        await Promise.race([bothRead, new Promise((r) => setTimeout(r, 200))]);
        await queryRows(tx, 'update tx_probe set n = n + 1 where id = ?', [row]);
      },
      { isolation: 'serializable', maxAttempts },
    );
  return Promise.allSettled([worker(1), worker(2)]);
}

describe('inTransaction (the one transaction helper)', () => {
  it('retries a serialization failure from a fresh transaction, so both units commit', async () => {
    const results = await serializationRace(4);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const rows = await env.orm.em.fork().execute<{ total: string }[]>('select sum(n) as total from tx_probe');
    expect(Number(rows[0]!.total)).toBe(2);
  });

  it('gives write_conflict when the conflict persists past the bounded attempts, and the loser wrote nothing', async () => {
    const before = await env.orm.em.fork().execute<{ total: string }[]>('select sum(n) as total from tx_probe');
    const results = await serializationRace(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBeInstanceOf(DomainError);
    expect((rejected[0]!.reason as DomainError).code).toBe('write_conflict');
    const after = await env.orm.em.fork().execute<{ total: string }[]>('select sum(n) as total from tx_probe');
    expect(Number(after[0]!.total)).toBe(Number(before[0]!.total) + 1);
  });

  it('joins an open transaction instead of nesting, so an outer rollback undoes the inner work', async () => {
    await expect(
      inTransaction(ctx, async (outer) => {
        await inTransaction(outer, (inner) => queryRows(inner, 'update tx_probe set n = 100 where id = 1'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const rows = await env.orm.em.fork().execute<{ n: number }[]>('select n from tx_probe where id = 1');
    expect(rows[0]!.n).not.toBe(100);
  });
});
