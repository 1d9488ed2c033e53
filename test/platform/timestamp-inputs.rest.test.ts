import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorableTimestamp } from '../../src/core/platform/timestamps.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';

/*
 * Every timestamp input goes through one rule (src/core/platform/timestamps.ts): an impossible
 * date or time, or an offset PostgreSQL refuses, is the area's validation failure naming the field,
 * never a 500 from inside a query, and nothing is written.
 */

let env: TestEnv;
let team: GivenTeam;
let manager: GivenKey;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  storage = await tempDir('timestamps-storage');
  inputs = await tempDir('timestamps-inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  team = await given(env).team('Clock');
  manager = await given(env).key(team, 'manage');
});
afterAll(async () => {
  await env.close();
  await storage.remove();
  await inputs.remove();
});

const count = async (table: string) => (await env.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from ${table}`))[0]!.n;
const nextYear = new Date().getUTCFullYear() + 1;

describe('isStorableTimestamp: the one rule of timestamp inputs', () => {
  it.each([
    '2024-02-29T00:00:00Z',
    '2000-02-29T12:00:00Z',
    '2026-01-31T23:59:59.999999Z',
    '2026-06-01t08:00:00z',
    '2026-06-01T08:00:00+15:59',
    '2026-06-01T08:00:00-12:00',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999Z',
  ])('accepts %s', (value) => {
    expect(isStorableTimestamp(value)).toBe(true);
  });

  it.each([
    ['February 30', '2024-02-30T00:00:00Z'],
    ['February 29 of a common year', '2023-02-29T00:00:00Z'],
    ['February 29 of a century not divisible by 400', '1900-02-29T00:00:00Z'],
    ['April 31', '2026-04-31T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['day 0', '2026-01-00T00:00:00Z'],
    ['hour 24', '2024-01-01T24:00:00Z'],
    ['hour 25', '2024-01-01T25:00:00Z'],
    ['minute 60', '2024-01-01T23:60:00Z'],
    ['second 60', '2024-01-01T23:59:60Z'],
    ['an offset past 15:59', '2024-01-01T00:00:00+16:00'],
    ['offset minute 60', '2024-01-01T00:00:00+01:60'],
    ['year 0000', '0000-06-01T00:00:00Z'],
    ['a UTC instant before year 0001', '0001-01-01T00:00:00+01:00'],
    ['a UTC instant after year 9999', '9999-12-31T23:00:00-10:00'],
    ['seven fractional digits', '2026-01-01T00:00:00.1234567Z'],
    ['no offset', '2026-01-01T00:00:00'],
    ['a date only', '2026-01-01'],
  ])('refuses %s (%s)', (_what, value) => {
    expect(isStorableTimestamp(value)).toBe(false);
  });
});

describe('an impossible timestamp is 422 validation_failed naming the field, with nothing written', () => {
  it('refuses POST /v1/activity-records/purge {"before":"2024-02-30T00:00:00Z"} and deletes nothing', async () => {
    await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Logged' } });
    const before = await count('activity_records');
    const res = await send(env, { method: 'POST', url: '/v1/activity-records/purge', key: manager.key, body: { before: '2024-02-30T00:00:00Z' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'validation_failed', details: [{ field: 'before', message: expect.stringContaining('RFC 3339') }] });
    expect(await count('activity_records')).toBe(before);
  });

  it('refuses GET /v1/activity-records?to=2024-01-01T25:00:00Z and a from with an offset PostgreSQL refuses', async () => {
    const to = await send(env, { url: '/v1/activity-records?to=2024-01-01T25:00:00Z', key: manager.key });
    expect(to).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'to' }] } });
    const from = await send(env, { url: '/v1/activity-records?from=2024-01-01T00:00:00%2B20:00', key: manager.key });
    expect(from).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'from' }] } });
  });

  it('refuses GraphQL activityRecords with a February 29 of a common year', async () => {
    const res = await graphql(env, manager.key, '{ activityRecords(from: "2023-02-29T00:00:00Z") { items { id } } }');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'from' }] });
  });

  it('refuses a product share expiring on a future February 30 and stores no share', async () => {
    const product = await send(env, { method: 'POST', url: '/v1/products', key: manager.key, body: { name: 'Shared' } });
    const res = await send(env, {
      method: 'POST',
      url: `/v1/products/${product.body.data.id}/shares`,
      key: manager.key,
      body: { expiresAt: `${nextYear}-02-30T00:00:00Z` },
    });
    expect(res).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'expiresAt' }] } });
    expect(await count('product_shares')).toBe(0);
  });

  it('refuses a sync updatedAfter with an offset of +20:00 (it used to reach PostgreSQL)', async () => {
    const res = await send(env, { url: '/v1/products?sync=true&updatedAfter=2024-01-01T00:00:00%2B20:00', key: manager.key });
    expect(res).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [{ field: 'updatedAfter' }] } });
  });

  it('refuses a file validity ending on April 31 and leaves the file permanent', async () => {
    await writeImage(join(inputs.path, 'a.png'), { width: 4, height: 4, colour: '#00ff00', format: 'png' });
    const file = await given(env).libraryFile(team, { file: join(inputs.path, 'a.png') });
    const ctx = await given(env).ctx(manager);
    await expect(env.core.assets.fileValidity.set(ctx, file.id, { endTime: `${nextYear}-04-31T00:00:00Z` })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'endTime' }],
    });
    const [row] = await env.orm.em.fork().execute('select validity_start, validity_end from library_files where id = ?', [file.id]);
    expect(row).toEqual({ validity_start: null, validity_end: null });
  });

  it('refuses a key (CLI key create --expires-at) expiring at hour 24 and issues no key', async () => {
    const before = await count('api_keys');
    await expect(env.core.access.createKey(env.core.operatorCtx(), { teamId: team.teamId, expiresAt: `${nextYear}-01-01T24:00:00Z` })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'expiresAt' }],
    });
    expect(await count('api_keys')).toBe(before);
  });
});
