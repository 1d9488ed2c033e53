import { beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredProductChanges } from '../../src/core/catalogue/products/product-changes-retention.ts';
import { decodeCursor, encodeCursor } from '../../src/core/catalogue/products/sync-cursor.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { graphql, type Received, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { FEED_TIME, type SyncClock, syncClock } from '../support/sync-clock.ts';

/**
 * Retention of the sync feed's change log (docs/products.md "Sync feed", "Retention"): the
 * maintenance purge deletes product_changes entries older than PRODUCT_CHANGES_RETENTION_DAYS,
 * and a feed cycle (changes=true) whose updatedAfter lies before that horizon, sent or carried by
 * a cursor, is refused with 422 validation_failed on updatedAfter over REST and GraphQL, since the
 * deletions before it are forgotten. A full scan keeps working.
 *
 * The world runs with a 30-day retention, so the tests also show the setting reaches the feed and
 * the purge. Old entries are written with SQL; nothing waits for time to pass.
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

/** Writes a change-log entry with SQL, `interval` before now (kind 1 deleted, 3 linked); its `at`. */
async function logged(teamId: number, productId: number, interval: string, kind = 3): Promise<string> {
  const rows = await db<{ at: string }>(
    `insert into product_changes (team_id, product_id, kind, was_published, at) values (?, ?, ?, true, clock_timestamp() - ?::interval)
     returning to_char(at at time zone 'UTC', ${FEED_TIME}) as at`,
    [teamId, productId, kind, interval],
  );
  return rows[0]!.at;
}

/** A team's change-log entries, oldest first. */
async function entriesOf(teamId: number): Promise<string[]> {
  const rows = await db<{ at: string }>(`select to_char(at at time zone 'UTC', ${FEED_TIME}) as at from product_changes where team_id = ? order by at`, [
    teamId,
  ]);
  return rows.map((row) => row.at);
}

async function logSize(): Promise<number> {
  return (await db<{ n: number }>('select count(*)::int as n from product_changes'))[0]!.n;
}

const purge = (batch?: number, maxBatches?: number) =>
  purgeExpiredProductChanges(env.core.operatorCtx(), env.config.productChangesRetentionDays, batch, maxBatches);

describe('purgeExpiredProductChanges (maintenance job purge-product-changes): PRODUCT_CHANGES_RETENTION_DAYS', () => {
  let teamA: GivenTeam;
  let teamB: GivenTeam;
  let productA: number;
  let productB: number;

  beforeAll(async () => {
    teamA = await g.team('Purge A');
    teamB = await g.team('Purge B');
    productA = (await gp.published(await g.key(teamA, 'manage'))).id;
    productB = (await gp.published(await g.key(teamB, 'manage'))).id;
  });

  it('deletes the entries of every team older than the retention, and only those: newer entries of every team stay', async () => {
    expect(env.config.productChangesRetentionDays).toBe(RETENTION_DAYS);
    for (const interval of ['31 days', '30 days 1 minute']) await logged(teamA.teamId, productA, interval);
    const keptA = [await logged(teamA.teamId, productA, '29 days 23 hours'), await logged(teamA.teamId, productA, '1 hour')];
    for (const interval of ['400 days', '30 days 10 seconds']) await logged(teamB.teamId, productB, interval, 1);
    const keptB = [await logged(teamB.teamId, productB, '29 days 23 hours 59 minutes', 1), await logged(teamB.teamId, productB, '1 minute', 1)];
    const before = await logSize();

    const purged = await purge();

    expect(await entriesOf(teamA.teamId)).toEqual(keptA);
    expect(await entriesOf(teamB.teamId)).toEqual(keptB);
    expect(purged).toBeGreaterThanOrEqual(4);
    expect(await logSize()).toBe(before - purged);
    // a second run finds nothing left to delete
    expect(await purge()).toBe(0);
    expect(await entriesOf(teamA.teamId)).toEqual(keptA);
  });

  it('deletes in batches of the given size until none older is left, at most maxBatches per run; the next run takes up the rest', async () => {
    const kept = await entriesOf(teamA.teamId);
    for (let day = 31; day < 36; day++) await logged(teamA.teamId, productA, `${day} days`);

    expect(await purge(2, 2)).toBe(4);
    expect(await entriesOf(teamA.teamId)).toHaveLength(kept.length + 1);
    expect(await purge(2, 2)).toBe(1);
    expect(await entriesOf(teamA.teamId)).toEqual(kept);
  });
});

/** Ids of a page's tombstones (REST items carry `removed: true`). */
function tombstoneIds(items: Array<{ id: number; removed?: boolean }>): number[] {
  return items.filter((item) => item.removed).map((item) => item.id);
}

/** The cursor with its scan's lower bound (the cycle's updatedAfter) replaced, signed with the service secret. */
function withLower(cursor: string, lower: string): string {
  const secret = env.config.linkSigningSecret!;
  const opened = decodeCursor(secret, cursor);
  return encodeCursor(secret, { ...opened.scope, lower }, opened.position);
}

function expectRetentionRefusal(details: Array<{ field: string; message: string }>): void {
  expect(details).toEqual([{ field: 'updatedAfter', message: expect.stringContaining(`the change log keeps ${RETENTION_DAYS} days`) }]);
  expect(details[0]!.message).toContain('run a full scan (omit updatedAfter and cursor)');
}

describe('GET /v1/products?sync=true&changes=true: an updatedAfter before the change log retention', () => {
  let key: GivenKey;
  /** Deleted 29 days ago: its tombstone is inside the window. */
  let recent: number;
  /** Deleted 31 days ago: its tombstone is past the horizon (until the purge deletes it). */
  let expired: number;

  const get = (query: string) => send(env, { url: `/v1/products?${query}`, key: key.key });

  beforeAll(async () => {
    const team = await g.team('Feed retention');
    key = await g.key(team, 'manage');
    const ctx = await g.ctx(key);
    const products = env.core.catalogue.products;
    [recent, expired] = [(await gp.published(key)).id, (await gp.published(key)).id];
    for (const id of [recent, expired]) await products.softDelete(ctx, id);
    await db(`update product_changes set at = clock_timestamp() - interval '29 days' where product_id = ?`, [recent]);
    await db(`update product_changes set at = clock_timestamp() - interval '31 days' where product_id = ?`, [expired]);
    // two live products an hour old, so a scan from inside the window has more than one page
    for (let i = 0; i < 2; i++) await gp.published(key);
    await db(`update products set updated_at = updated_at - interval '1 hour' where team_id = ? and deleted_at is null`, [team.teamId]);
  });

  it('refuses it with 422 validation_failed on updatedAfter: the change log keeps 30 days, run a full scan; nothing is returned', async () => {
    for (const interval of ['30 days 1 minute', '31 days', '10 years']) {
      const res = await get(`sync=true&changes=true&updatedAfter=${await ago(interval)}`);
      expect(res.status, interval).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'validation_failed' });
      expect(res.body.data).toBeNull();
      expectRetentionRefusal(res.body.details);
    }
  });

  it('answers an updatedAfter just inside the retention, with the tombstones logged since', async () => {
    const res = await get(`sync=true&changes=true&pageSize=100&updatedAfter=${await ago('29 days 23 hours 59 minutes')}`);
    expect(res.status).toBe(200);
    expect(tombstoneIds(res.body.data)).toEqual([recent]);
  });

  it('refuses a continuation whose cursor carries an updatedAfter the horizon has passed since (the window expired mid-cycle)', async () => {
    const first = await get(`sync=true&changes=true&pageSize=1&updatedAfter=${await ago('29 days 23 hours')}`);
    expect(first.status).toBe(200);
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));

    const stale = await get(`sync=true&cursor=${encodeURIComponent(withLower(cursor, await ago('30 days 1 second')))}`);
    expect(stale.status).toBe(422);
    expect(stale.body).toMatchObject({ success: false, code: 'validation_failed' });
    expectRetentionRefusal(stale.body.details);
    // the cycle's own cursor, still inside the window, continues
    expect((await get(`sync=true&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
  });

  it('leaves plain sync (without changes=true) alone: it reads no change log, so an old updatedAfter is answered', async () => {
    const res = await get(`sync=true&updatedAfter=${await ago('10 years')}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
  });

  it('answers a full scan (no updatedAfter) with changes=true, reporting the tombstones still logged and not the purged ones', async () => {
    const before = await get('sync=true&changes=true&pageSize=100');
    expect(before.status).toBe(200);
    expect(tombstoneIds(before.body.data)).toEqual([expired, recent]);

    await purge();

    const after = await get('sync=true&changes=true&pageSize=100');
    expect(after.status).toBe(200);
    expect(tombstoneIds(after.body.data)).toEqual([recent]);
    expect(after.body.data.filter((item: { removed?: boolean }) => !item.removed)).toHaveLength(2);
  });
});

const SYNC = `query($cursor: String, $pageSize: Int, $updatedAfter: String, $changes: Boolean) {
  productSync(cursor: $cursor, pageSize: $pageSize, updatedAfter: $updatedAfter, changes: $changes) {
    items { __typename ... on Product { id } ... on ProductTombstone { id reason at } }
    pagination { nextCursor }
  }
}`;

describe('productSync(changes: true): an updatedAfter before the change log retention', () => {
  let key: GivenKey;
  let recent: number;
  const sync = (vars: Record<string, unknown>) => graphql(env, key.key, SYNC, vars);

  function refusal(res: Received): Array<{ field: string; message: string }> {
    expect(res.body.data?.productSync ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    return res.body.errors[0].extensions.details;
  }

  beforeAll(async () => {
    const team = await g.team('GraphQL retention');
    key = await g.key(team, 'manage');
    recent = (await gp.published(key)).id;
    await env.core.catalogue.products.softDelete(await g.ctx(key), recent);
    await db(`update product_changes set at = clock_timestamp() - interval '29 days' where product_id = ?`, [recent]);
    for (let i = 0; i < 2; i++) await gp.published(key);
    await db(`update products set updated_at = updated_at - interval '1 hour' where team_id = ? and deleted_at is null`, [team.teamId]);
  });

  it('is validation_failed with details on updatedAfter: the change log keeps 30 days, run a full scan', async () => {
    for (const interval of ['30 days 1 minute', '10 years']) {
      expectRetentionRefusal(refusal(await sync({ changes: true, updatedAfter: await ago(interval) })));
    }
  });

  it('answers an updatedAfter just inside the retention, with the tombstones logged since', async () => {
    const res = await sync({ changes: true, pageSize: 100, updatedAfter: await ago('29 days 23 hours 59 minutes') });
    expect(res.body.errors).toBeUndefined();
    const tombstones = res.body.data.productSync.items.filter((item: { __typename: string }) => item.__typename === 'ProductTombstone');
    expect(tombstones.map((item: { id: number }) => item.id)).toEqual([recent]);
  });

  it('refuses a continuation whose cursor carries an updatedAfter the horizon has passed since', async () => {
    const first = await sync({ changes: true, pageSize: 1, updatedAfter: await ago('29 days 23 hours') });
    expect(first.body.errors).toBeUndefined();
    const cursor = first.body.data.productSync.pagination.nextCursor as string;
    expectRetentionRefusal(refusal(await sync({ cursor: withLower(cursor, await ago('30 days 1 second')) })));
    expect((await sync({ cursor })).body.errors).toBeUndefined();
  });

  it('answers a full scan with changes: true', async () => {
    const res = await sync({ changes: true, pageSize: 100 });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.productSync.items.map((item: { id: number }) => item.id)).toContain(recent);
  });
});

describe('the published descriptions of updatedAfter name the change log retention', () => {
  it('in the OpenAPI document (GET /v1/products updatedAfter) and in GraphQL (productSync updatedAfter)', async () => {
    const doc = (await send(env, { url: '/v1/openapi.json' })).body;
    const parameter = doc.paths['/v1/products'].get.parameters.find((p: { name: string }) => p.name === 'updatedAfter');
    expect(parameter.schema.description ?? parameter.description).toContain('PRODUCT_CHANGES_RETENTION_DAYS, 400 days by default');
    const res = await graphql(env, world.keys.view_only.key, '{ __type(name: "Query") { fields { name args { name description } } } }');
    const productSync = res.body.data.__type.fields.find((f: { name: string }) => f.name === 'productSync');
    const arg = productSync.args.find((a: { name: string }) => a.name === 'updatedAfter');
    expect(arg.description).toContain('PRODUCT_CHANGES_RETENTION_DAYS, 400 days by default');
  });
});
