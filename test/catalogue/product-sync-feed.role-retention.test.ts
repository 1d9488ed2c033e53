import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import { purgeExpiredRoleChanges } from '../../src/core/catalogue/products/product-changes-retention.ts';
import { readRoleAt } from '../../src/core/catalogue/products/product-sync-feed.queries.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { FEED_TIME, type SyncClock, syncClock, unsigned } from '../support/sync-clock.ts';

/**
 * Retention of the role log the sync feed reads (api_key_role_changes, docs/products.md "Role
 * changes", "Retention"): the maintenance job purge-product-changes deletes its rows older than
 * PRODUCT_CHANGES_RETENTION_DAYS, all of them, because readRoleAt answers the role at T from the
 * first change at or after T and a feed cycle is answered only for a T inside the window
 * (purgeExpiredRoleChanges says why). The tests write a key's history with SQL, long before the
 * horizon and inside it, and check that every answer for a time inside the window is the same
 * before and after the purge, per team. Nothing waits for time to pass.
 */
const RETENTION_DAYS = 30;
const world = useProductWorld({ env: { PRODUCT_CHANGES_RETENTION_DAYS: String(RETENTION_DAYS) } });
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, g, gp } = world);
  clock = syncClock(env);
});

let clock: SyncClock;
const db = <T>(sql: string, params: unknown[] = []) => clock.db<T>(sql, params);
const ago = (interval: string) => clock.ago(interval);

/** A role change [from, to, how long ago], as the trigger would have logged it. */
type Change = [from: Role, to: Role, interval: string];

/** Writes a key's role history with SQL (oldest first); each row's `at`. */
async function history(key: GivenKey, changes: Change[]): Promise<string[]> {
  const ats: string[] = [];
  for (const [from, to, interval] of changes) {
    const rows = await db<{ at: string }>(
      `insert into api_key_role_changes (team_id, key_id, from_role, to_role, at) values (?, ?, ?, ?, clock_timestamp() - ?::interval)
       returning to_char(at at time zone 'UTC', ${FEED_TIME}) as at`,
      [key.teamId, key.keyId, from, to, interval],
    );
    ats.push(rows[0]!.at);
  }
  return ats;
}

/** A key's role-log rows, oldest first, as (at, from, to). */
async function rowsOf(key: GivenKey): Promise<string[]> {
  const rows = await db<{ row: string }>(
    `select to_char(at at time zone 'UTC', ${FEED_TIME}) || ' ' || from_role || '>' || to_role as row
       from api_key_role_changes where team_id = ? and key_id = ? order by at, id`,
    [key.teamId, key.keyId],
  );
  return rows.map((r) => r.row);
}

/** Rows of a team older than the horizon. */
async function expiredOf(teamId: number): Promise<number> {
  const rows = await db<{ n: number }>(`select count(*)::int as n from api_key_role_changes where team_id = ? and at < now() - ?::int * interval '1 day'`, [
    teamId,
    RETENTION_DAYS,
  ]);
  return rows[0]!.n;
}

const purge = (batch?: number, maxBatches?: number) =>
  purgeExpiredRoleChanges(env.core.operatorCtx(), env.config.productChangesRetentionDays, batch, maxBatches);

/** Times inside the window: from just after the horizon to now, and every logged instant inside it. */
const PROBES = [
  '29 days 23 hours 59 minutes 50 seconds',
  '29 days 23 hours',
  '29 days 12 hours',
  '20 days',
  '10 days 1 second',
  '10 days',
  '1 hour 1 second',
  '1 minute',
  '0 seconds',
];

/** readRoleAt for each time, as the feed asks it (the key's team, the cycle's updatedAfter). */
async function answers(key: GivenKey, times: string[]): Promise<Array<string | null>> {
  const ctx = await g.ctx(key);
  return Promise.all(times.map((time) => readRoleAt(ctx, key.keyId, time)));
}

describe('purgeExpiredRoleChanges (maintenance job purge-product-changes): the role log keeps PRODUCT_CHANGES_RETENTION_DAYS', () => {
  it('deletes every role change older than the horizon and keeps every one inside it, and readRoleAt answers the same for every time inside the window; another team is purged by its own rows', async () => {
    expect(env.config.productChangesRetentionDays).toBe(RETENTION_DAYS);
    const teamA = await g.team('Roles A');
    const teamB = await g.team('Roles B');
    // key a: a long history; its role at the horizon (view_only) is the from_role of its first change inside the window
    const a = await g.key(teamA, 'manage');
    const aAts = await history(a, [
      ['manage', 'view_only', '200 days'],
      ['view_only', 'usable', '100 days'],
      ['usable', 'view_only', '31 days'],
      ['view_only', 'manage', '29 days'],
      ['manage', 'usable', '10 days'],
      ['usable', 'manage', '1 hour'],
    ]);
    // key a2: changed only before the horizon, so inside the window it had its current role
    const a2 = await g.key(teamA, 'editable');
    await history(a2, [
      ['view_only', 'usable', '300 days'],
      ['usable', 'editable', '30 days 1 minute'],
    ]);
    // key a3: changed only inside the window, just after the horizon
    const a3 = await g.key(teamA, 'usable');
    const a3Ats = await history(a3, [['manage', 'usable', '29 days 23 hours 59 minutes']]);
    // team B: a key with changes at other instants on both sides of the horizon
    const b = await g.key(teamB, 'view_only');
    const bAts = await history(b, [
      ['manage', 'editable', '50 days'],
      ['editable', 'usable', '30 days 10 seconds'],
      ['usable', 'view_only', '20 days'],
    ]);
    const keys = [a, a2, a3, b];
    const timesOf = async (logged: string[]) => [...(await Promise.all(PROBES.map(ago))), ...logged];
    const times = new Map<GivenKey, string[]>([
      [a, await timesOf(aAts.slice(3))],
      [a2, await timesOf([])],
      [a3, await timesOf(a3Ats)],
      [b, await timesOf(bAts.slice(2))],
    ]);
    const rowsBefore = new Map(await Promise.all(keys.map(async (key) => [key, await rowsOf(key)] as const)));
    const before = new Map(await Promise.all(keys.map(async (key) => [key, await answers(key, times.get(key)!)] as const)));
    // what the feed must be told: a was view_only at the horizon, usable ten days ago, manage now
    expect(before.get(a)!.slice(0, 9)).toEqual(['view_only', 'view_only', 'view_only', 'manage', 'manage', 'usable', 'usable', null, null]);
    expect(before.get(a2)!.every((role) => role === null)).toBe(true);
    expect(before.get(a3)![0]).toBe('manage');
    expect(before.get(b)![0]).toBe('usable');

    const purged = await purge();

    expect(purged).toBe(3 + 2 + 2);
    expect(await expiredOf(teamA.teamId)).toBe(0);
    expect(await expiredOf(teamB.teamId)).toBe(0);
    // exactly the rows inside the window are left, of each key and each team
    expect(await rowsOf(a)).toEqual(rowsBefore.get(a)!.slice(3));
    expect(await rowsOf(a2)).toEqual([]);
    expect(await rowsOf(a3)).toEqual(rowsBefore.get(a3));
    expect(await rowsOf(b)).toEqual(rowsBefore.get(b)!.slice(2));
    for (const key of keys) expect(await answers(key, times.get(key)!), `key ${key.keyId}`).toEqual(before.get(key));
    // a second run finds nothing left to delete
    expect(await purge()).toBe(0);
  });

  it('gives a feed cycle (changes=true) from just inside the window the same pages before and after the purge', async () => {
    const team = await g.team('Roles feed');
    const key = await g.key(team, 'view_only');
    const manage = await g.key(team, 'manage');
    await gp.published(manage);
    await gp.product(manage);
    // view_only now; manage at the horizon (its first change inside the window starts from manage), so the cycle narrowed
    await history(key, [
      ['view_only', 'usable', '90 days'],
      ['usable', 'manage', '31 days'],
      ['manage', 'view_only', '29 days'],
    ]);
    const updatedAfter = await ago('29 days 23 hours 59 minutes');
    const page = async () => {
      const res = await send(env, { url: `/v1/products?sync=true&changes=true&pageSize=100&updatedAfter=${updatedAfter}`, key: key.key });
      expect(res.status).toBe(200);
      return unsigned(res.body.data) as Array<{ id: number; removed?: boolean; reason?: string }>;
    };
    const before = await page();
    // the narrowed view reports the live draft hidden: the role at updatedAfter was read as manage
    expect(before.filter((item) => item.removed).map((item) => item.reason)).toEqual(['hidden']);

    expect(await purge()).toBe(2);

    expect(await page()).toEqual(before);
  });

  it('deletes in batches of the given size, at most maxBatches per run; the next run takes up the rest', async () => {
    const team = await g.team('Roles batches');
    const key = await g.key(team, 'manage');
    await history(key, [
      ['manage', 'usable', '40 days'],
      ['usable', 'editable', '39 days'],
      ['editable', 'view_only', '38 days'],
      ['view_only', 'usable', '37 days'],
      ['usable', 'manage', '36 days'],
      ['manage', 'usable', '1 day'],
    ]);
    expect(await purge(2, 2)).toBe(4);
    expect(await rowsOf(key)).toHaveLength(2);
    expect(await purge(2, 2)).toBe(1);
    expect(await rowsOf(key)).toHaveLength(1);
    expect(await purge(2, 2)).toBe(0);
  });
});
