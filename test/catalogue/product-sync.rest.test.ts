import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { type Received, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/**
 * GET /v1/products?sync=true (spec 4.5 synchronization rules, 2.1, 8). Time never passes in these
 * tests: rows are placed in the past with SQL, and "later" is simulated by shifting rows and the
 * saved syncedUntil back together.
 */
const world = useProductWorld();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];

const SIX_DIGITS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

beforeAll(() => {
  ({ env, g, gp } = world);
});

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);
const sync = (key: GivenKey, query = '') => send(env, { url: `/v1/products?sync=true${query}`, key: key.key });
const next = (key: GivenKey, cursor: string, extra = '') =>
  send(env, { url: `/v1/products?sync=true&cursor=${encodeURIComponent(cursor)}${extra}`, key: key.key });
const ids = (res: Received) => res.body.data.map((p: { id: number }) => p.id) as number[];

async function library(): Promise<{ team: GivenTeam; editor: GivenKey }> {
  const team = await g.team();
  return { team, editor: await g.key(team, 'editable') };
}

/** Places a team's rows an hour in the past, one millisecond apart in id order (ties on request). */
async function age(teamId: number): Promise<void> {
  await db(`update products set updated_at = now() - interval '1 hour' + (id % 1000) * interval '1 millisecond' where team_id = ?`, [teamId]);
}

/** Follows nextCursor to the end; returns every page. */
async function scan(key: GivenKey, query = ''): Promise<Received[]> {
  const pages = [await sync(key, query)];
  while (pages.at(-1)!.body.pagination.nextCursor) {
    expect(pages.at(-1)!.body.pagination.hasMore).toBe(true);
    pages.push(await next(key, pages.at(-1)!.body.pagination.nextCursor));
    expect(pages.length).toBeLessThan(200);
  }
  expect(pages.at(-1)!.body.pagination.hasMore).toBe(false);
  return pages;
}

describe('sync=true: a full scan', () => {
  it('returns every live product once, in (updatedAt, id) ascending order, following nextCursor until null', async () => {
    const lib = await library();
    for (let i = 0; i < 7; i++) await gp.product(lib.editor, { name: `S${i}` });
    await age(lib.team.teamId);
    // a tie on updatedAt: the id decides
    await db(
      `update products set updated_at = (select min(updated_at) from products where team_id = ?) where team_id = ? and id = (select max(id) from products where team_id = ?)`,
      [lib.team.teamId, lib.team.teamId, lib.team.teamId],
    );
    const expected = (await db<{ id: number }>('select id from products where team_id = ? order by updated_at, id', [lib.team.teamId])).map((r) => r.id);
    const pages = await scan(lib.editor, '&pageSize=3');
    expect(pages.map((p) => p.body.data.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap(ids)).toEqual(expected);
    for (const page of pages) expect(page.body.pagination.pageSize).toBe(3);
  });

  it('answers with the sync pagination object { pageSize, syncedUntil, nextCursor, hasMore } and six-digit updatedAt', async () => {
    const lib = await library();
    await gp.product(lib.editor, { name: 'One' });
    await age(lib.team.teamId);
    const res = await sync(lib.editor);
    expect(Object.keys(res.body.pagination).sort()).toEqual(['hasMore', 'nextCursor', 'pageSize', 'syncedUntil']);
    expect(res.body.pagination).toMatchObject({ pageSize: 20, nextCursor: null, hasMore: false });
    expect(res.body.pagination.syncedUntil).toMatch(SIX_DIGITS);
    expect(res.body.data[0].updatedAt).toMatch(SIX_DIGITS);
    expect(res.headers.etag).toBeUndefined();
  });

  it('syncedUntil is the database time of the first request minus 30 seconds, fixed for the whole scan', async () => {
    const lib = await library();
    for (let i = 0; i < 3; i++) await gp.product(lib.editor);
    await age(lib.team.teamId);
    const bound = `to_char((now() - interval '30 seconds') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    const [before] = await db<{ t: string }>(`select ${bound} as t`);
    const first = await sync(lib.editor, '&pageSize=1');
    const [after] = await db<{ t: string }>(`select ${bound} as t`);
    const until = first.body.pagination.syncedUntil;
    expect(until >= before!.t && until <= after!.t).toBe(true);
    const second = await next(lib.editor, first.body.pagination.nextCursor);
    expect(second.body.pagination.syncedUntil).toBe(until);
  });

  it('leaves out products updated within the last 30 seconds (exclusive upper bound); the next cycle from the saved syncedUntil brings them', async () => {
    const lib = await library();
    const old = await gp.product(lib.editor, { name: 'Old' });
    const recent = await gp.product(lib.editor, { name: 'Recent' });
    await db(`update products set updated_at = now() - interval '40 seconds' where id = ?`, [old.id]);
    await db(`update products set updated_at = now() - interval '20 seconds' where id = ?`, [recent.id]);
    const first = await sync(lib.editor);
    expect(ids(first)).toEqual([old.id]);
    // a minute passes: rows and the saved syncedUntil move back together
    await db(`update products set updated_at = updated_at - interval '1 minute' where team_id = ?`, [lib.team.teamId]);
    const [saved] = await db<{ t: string }>(`select to_char((?::timestamptz - interval '1 minute') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t`, [
      first.body.pagination.syncedUntil,
    ]);
    const second = await sync(lib.editor, `&updatedAfter=${saved!.t}`);
    expect(ids(second)).toEqual([recent.id]);
  });

  it('an empty window gives empty data, nextCursor null and hasMore false', async () => {
    const lib = await library();
    const res = await sync(lib.editor);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it('returns no deleted products (sync carries no deletion events)', async () => {
    const lib = await library();
    const gone = await gp.product(lib.editor);
    const kept = await gp.product(lib.editor);
    await send(env, { method: 'DELETE', url: `/v1/products/${gone.id}`, key: lib.editor.key });
    await age(lib.team.teamId);
    expect(ids(await sync(lib.editor))).toEqual([kept.id]);
  });
});

describe('sync=true: updatedAfter', () => {
  let lib: Awaited<ReturnType<typeof library>>;
  let p: number[];
  beforeAll(async () => {
    lib = await library();
    p = [];
    for (let i = 0; i < 3; i++) p.push((await gp.product(lib.editor)).id);
    const stamps = ['2026-01-01T00:00:00.123455Z', '2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123457Z'];
    for (let i = 0; i < 3; i++) await db('update products set updated_at = ?::timestamptz where id = ?', [stamps[i], p[i]]);
  });

  it('is an inclusive lower bound, to the microsecond', async () => {
    expect(ids(await sync(lib.editor, '&updatedAfter=2026-01-01T00:00:00.123456Z'))).toEqual([p[1], p[2]]);
  });

  it('accepts an offset and 0-6 fractional digits, compared without losing microseconds', async () => {
    expect(ids(await sync(lib.editor, `&updatedAfter=${encodeURIComponent('2026-01-01T02:00:00.123456+02:00')}`))).toEqual([p[1], p[2]]);
    expect(ids(await sync(lib.editor, '&updatedAfter=2026-01-01T00:00:00.123457Z'))).toEqual([p[2]]);
    expect(ids(await sync(lib.editor, '&updatedAfter=2026-01-01T00:00:00.123Z'))).toEqual(p);
    expect(ids(await sync(lib.editor, `&updatedAfter=${encodeURIComponent('2025-12-31T23:00:00.123456-01:00')}`))).toEqual([p[1], p[2]]);
  });

  it('accepts whole seconds and lower-case t and z', async () => {
    expect(ids(await sync(lib.editor, '&updatedAfter=2026-01-01t00:00:00z'))).toEqual(p);
    expect(ids(await sync(lib.editor, '&updatedAfter=2026-01-01T00:00:01Z'))).toEqual([]);
  });

  const bad = [
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-01-01T00:00:00.1234567Z',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01 00:00:00Z',
    'yesterday',
    '',
  ];
  for (const value of bad) {
    it(`rejects updatedAfter=${JSON.stringify(value)} with 422 naming updatedAfter, changing nothing`, async () => {
      const before = await gp.snapshot(lib.team.teamId);
      const res = await sync(lib.editor, `&updatedAfter=${encodeURIComponent(value)}`);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details[0].field).toBe('updatedAfter');
      expect(await gp.snapshot(lib.team.teamId)).toBe(before);
    });
  }
});

describe('sync=true: the cursor', () => {
  let lib: Awaited<ReturnType<typeof library>>;
  let brandId: number;
  beforeAll(async () => {
    lib = await library();
    const manager = await g.key(lib.team, 'manage');
    brandId = (await g.brand(manager)).id;
    for (let i = 0; i < 6; i++) await gp.product(lib.editor, { name: `C${i}`, brandId });
    await age(lib.team.teamId);
  });
  const first = () => sync(lib.editor, `&pageSize=2&brandId=${brandId}&status=draft&search=c&updatedAfter=2020-01-01T00:00:00Z`);

  it('continues with the cursor alone, or with every parameter repeated with an equivalent value', async () => {
    const page1 = await first();
    const alone = await next(lib.editor, page1.body.pagination.nextCursor);
    const repeated = await next(
      lib.editor,
      page1.body.pagination.nextCursor,
      `&pageSize=2&brandId=${brandId}&status=draft&search=%20c%20&updatedAfter=${encodeURIComponent('2020-01-01T01:00:00.000+01:00')}`,
    );
    expect(alone.status).toBe(200);
    expect(repeated.status).toBe(200);
    expect(ids(repeated)).toEqual(ids(alone));
    expect(ids(alone)).toHaveLength(2);
  });

  const changed: Array<[string, string]> = [
    ['pageSize', '&pageSize=3'],
    ['brandId', '&brandId=2147483647'],
    ['status', '&status=published'],
    ['search', '&search=d'],
    ['categoryId', '&categoryId=1'],
    ['updatedAfter', '&updatedAfter=2020-01-01T00:00:00.000001Z'],
  ];
  for (const [field, extra] of changed) {
    it(`refuses a continuation whose ${field} differs from the cursor's with 422 naming ${field}`, async () => {
      const page1 = await first();
      const res = await next(lib.editor, page1.body.pagination.nextCursor, extra);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe(field);
    });
  }

  it("refuses another key's cursor, and the same key's cursor after its role changed", async () => {
    const page1 = await first();
    const res = await next(await g.key(lib.team, 'editable'), page1.body.pagination.nextCursor);
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe('cursor');
    const key = await g.key(lib.team, 'editable');
    const mine = await sync(key, '&pageSize=1');
    await env.core.access.setKeyRole(env.core.operatorCtx(), { keyId: key.keyId, role: 'manage' });
    expect((await next(key, mine.body.pagination.nextCursor)).body.details[0].field).toBe('cursor');
  });

  it('refuses a tampered, truncated or foreign-team cursor with 422 on cursor', async () => {
    const page1 = await first();
    const cursor: string = page1.body.pagination.nextCursor;
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(
      Buffer.from(body!, 'base64url')
        .toString()
        .replace(/"id":\d+/, '"id":1'),
    ).toString('base64url');
    for (const bad of [`${forged}.${mac}`, cursor.slice(0, -2), 'not-a-cursor']) {
      const res = await next(lib.editor, bad);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('cursor');
    }
    const foreign = await library();
    expect((await next(foreign.editor, cursor)).body.details[0].field).toBe('cursor');
  });

  const refused: Array<[string, string, string]> = [
    ['page with sync=true', '/v1/products?sync=true&page=1', 'page'],
    ['a repeated sync parameter', '/v1/products?sync=true&sync=true', 'sync'],
    ['two cursors', '/v1/products?sync=true&cursor=a&cursor=b', 'cursor'],
    ['repeated updatedAfter', '/v1/products?sync=true&updatedAfter=2026-01-01T00:00:00Z&updatedAfter=2026-01-01T00:00:00Z', 'updatedAfter'],
    ['a cursor with sync=false', '/v1/products?sync=false&cursor=a', 'cursor'],
    ['a cursor without sync', '/v1/products?cursor=a', 'cursor'],
    ['an empty cursor', '/v1/products?sync=true&cursor=', 'cursor'],
    ['an 8193-character cursor', `/v1/products?sync=true&cursor=${'a'.repeat(8193)}`, 'cursor'],
    ['an invalid status', '/v1/products?sync=true&status=all', 'status'],
  ];
  for (const [label, url, field] of refused) {
    it(`refuses ${label} with 422 naming ${field}, changing nothing`, async () => {
      const before = await gp.snapshot(lib.team.teamId);
      const res = await send(env, { url, key: lib.editor.key });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await gp.snapshot(lib.team.teamId)).toBe(before);
    });
  }

  it('caps pageSize at 100 and binds the capped value', async () => {
    const res = await sync(lib.editor, '&pageSize=500');
    expect(res.body.pagination.pageSize).toBe(100);
  });
});

describe('sync=true: filters and visibility', () => {
  it('applies brandId, categoryId, status and search, and shows view_only and usable keys published products only', async () => {
    const lib = await library();
    const manager = await g.key(lib.team, 'manage');
    const brand = await g.brand(manager);
    const category = await g.category(manager, { brandId: brand.id, name: 'Cat' });
    const a = await gp.published(lib.editor, { name: 'Alpha', brandId: brand.id, categoryId: category.id });
    const b = await gp.product(lib.editor, { name: 'Beta', brandId: brand.id });
    const c = await gp.published(lib.editor, { name: 'Gamma' });
    await age(lib.team.teamId);
    expect(ids(await sync(lib.editor, `&brandId=${brand.id}`))).toEqual([a.id, b.id]);
    expect(ids(await sync(lib.editor, `&categoryId=${category.id}`))).toEqual([a.id]);
    expect(ids(await sync(lib.editor, '&status=draft'))).toEqual([b.id]);
    expect(ids(await sync(lib.editor, '&search=MM'))).toEqual([c.id]);
    for (const role of ['view_only', 'usable'] as const) {
      const key = await g.key(lib.team, role);
      expect(ids(await sync(key))).toEqual([a.id, c.id]);
      expect(ids(await sync(key, '&status=draft'))).toEqual([]);
    }
  });
});

describe('sync=true: exactly once under concurrent updates', () => {
  it('a scan that follows cursors to the end sees every product exactly once while products are updated concurrently; the next cycle brings the updated ones', async () => {
    const lib = await library();
    const all: number[] = [];
    for (let i = 0; i < 40; i++) all.push((await gp.product(lib.editor, { name: `E${i}` })).id);
    await age(lib.team.teamId);
    const touched = new Set<number>();
    const scanner = (async () => scan(lib.editor, '&pageSize=3'))();
    const updater = (async () => {
      // every fourth product, in an order that mixes already-scanned and not-yet-scanned rows
      for (const id of [...all].reverse().filter((_, i) => i % 4 === 0)) {
        touched.add(id);
        const res = await send(env, { method: 'PATCH', url: `/v1/products/${id}`, key: lib.editor.key, body: { description: `touched ${id}` } });
        expect(res.status).toBe(200);
      }
    })();
    const [pages] = await Promise.all([scanner, updater]);
    const seen = pages.flatMap(ids);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of all) if (!touched.has(id)) expect(seen).toContain(id);
    const syncedUntil: string = pages[0]!.body.pagination.syncedUntil;
    // two minutes pass: rows and the saved syncedUntil move back together
    await db(`update products set updated_at = updated_at - interval '2 minutes' where team_id = ?`, [lib.team.teamId]);
    const [saved] = await db<{ t: string }>(
      `select to_char((?::timestamptz - interval '2 minutes') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t`,
      [syncedUntil],
    );
    const cycle2 = (await scan(lib.editor, `&pageSize=3&updatedAfter=${saved!.t}`)).flatMap(ids);
    expect(cycle2.sort((x, y) => x - y)).toEqual([...touched].sort((x, y) => x - y));
    // merged by id, the two cycles hold every product, the touched ones in their updated version
    const merged = new Set([...seen, ...cycle2]);
    expect([...merged].sort((x, y) => x - y)).toEqual([...all].sort((x, y) => x - y));
  });
});
