import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { preparedSql, queryOne, queryRows, setClauses } from '../../src/core/platform/sql.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';

let env: TestEnv;
let ctx: Ctx;

// a `$1` inside a quoted literal must stay as it is
const PROBE = preparedSql('test.sqlProbe', `select ?::int as n, 'a $1 b' as literal, ?::text as t from sql_probe where id = ?`);
const PROBE_BY_ID = preparedSql('test.sqlProbeById', 'select id, label from sql_probe where id = ?');

beforeAll(async () => {
  env = await createTestEnv();
  ctx = await given(env).ctx(await given(env).key(await given(env).team(), 'manage'));
  await env.orm.em.fork().execute('create table sql_probe (id int primary key, label text not null)');
  await env.orm.em.fork().execute(`insert into sql_probe values (1, 'one')`);
});
afterAll(async () => env.close());

async function labelOf(id: number): Promise<string | null> {
  const rows = await env.orm.em.fork().execute<{ label: string }[]>('select label from sql_probe where id = ?', [id]);
  return rows[0]?.label ?? null;
}

describe('queryRows / queryOne (lean SQL)', () => {
  it('returns outside a transaction the same rows as the EntityManager, for plain and prepared SQL', async () => {
    const sql = `select ?::int as n, 'a $1 b' as literal, ?::text as t from sql_probe where id = ?`;
    const viaEm = await env.orm.em.fork().execute(sql, [7, "it's", 1]);
    expect(await queryRows(ctx, sql, [7, "it's", 1])).toEqual(viaEm);
    expect(await queryRows(ctx, PROBE, [7, "it's", 1])).toEqual(viaEm);
    expect(viaEm).toEqual([{ n: 7, literal: 'a $1 b', t: "it's" }]);
  });

  it('runs plain and prepared SQL on the open transaction, so it sees the uncommitted write and the rollback removes it', async () => {
    const rolledBack = new Error('roll back');
    await expect(
      inTransaction(ctx, async (tx) => {
        await queryRows(tx, `insert into sql_probe values (2, 'two')`);
        expect(await queryOne(tx, PROBE_BY_ID, [2])).toEqual({ id: 2, label: 'two' });
        expect(await queryOne(tx, 'select label from sql_probe where id = ?', [2])).toEqual({ label: 'two' });
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(await labelOf(2)).toBeNull();
  });

  it("throws MikroORM's exception classes outside a transaction too, so constraint mapping works alike", async () => {
    const duplicate = queryRows(ctx, `insert into sql_probe values (1, 'again')`);
    await expect(duplicate).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    expect(await labelOf(1)).toBe('one');
  });

  it('gives a request context one unit of work, the same on every use', async () => {
    const fresh = env.core.ctxFor(ctx.actor, 'sql-test');
    expect(await queryOne(fresh, PROBE_BY_ID, [1])).toEqual({ id: 1, label: 'one' });
    expect(fresh.em).toBe(fresh.em);
    expect(fresh.em.isInTransaction()).toBe(false);
  });

  it('refuses a prepared statement name declared again with other SQL, and a ? inside quotes', () => {
    expect(() => preparedSql('test.sqlProbeById', 'select 1')).toThrow(/declared twice/);
    expect(() => preparedSql('test.quotedPlaceholder', `select '?' as q where 1 = ?`)).toThrow(/inside quotes/);
    expect(preparedSql('test.sqlProbeById', 'select id, label from sql_probe where id = ?').positional).toBe('select id, label from sql_probe where id = $1');
  });
});

describe('setClauses (partial updates)', () => {
  interface Changes {
    name?: string;
    logoUrl?: string | null;
    sortOrder?: number;
  }
  const COLUMNS: readonly [keyof Changes, string][] = [
    ['name', 'name'],
    ['logoUrl', 'logo_url'],
    ['sortOrder', 'sort_order'],
  ];

  it("assigns the given fields only, in the columns' order, null included and undefined left out", () => {
    expect(setClauses<Changes>(COLUMNS, { sortOrder: 3, name: 'Acme', logoUrl: undefined })).toEqual({ sql: 'name = ?, sort_order = ?', params: ['Acme', 3] });
    expect(setClauses<Changes>(COLUMNS, { logoUrl: null })).toEqual({ sql: 'logo_url = ?', params: [null] });
  });

  it('updates exactly the given columns of a row', async () => {
    await env.orm.em.fork().execute(`insert into sql_probe values (7, 'seven')`);
    const set = setClauses([['label', 'label']] as const, { label: 'sieben' });
    await queryRows(ctx, `update sql_probe set ${set.sql} where id = ?`, [...set.params, 7]);
    expect(await labelOf(7)).toBe('sieben');
  });
});
