import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type CategoryRestWorld, useCategoryRest } from './category.rest.support.ts';

/** GET /v1/categories and /v1/categories/{id}, who may read and write (spec 4.3), and cross-team isolation. */
const { world, snapshot, create, patch, remove, read, freshBrand } = useCategoryRest();
let env: TestEnv;
let g: CategoryRestWorld['g'];
let team: GivenTeam;
let manager: GivenKey;

beforeAll(() => {
  ({ env, g, team, manager } = world);
});

describe('GET /v1/categories (listCategorys)', () => {
  it('lists the flat live tree ordered by brandId, parentId (roots first), sortOrder, id, without ETag', async () => {
    const t = await g.team();
    const owner = await g.key(t, 'manage');
    const reader = await g.key(t, 'view_only');
    const b1 = await g.brand(owner, { name: 'B1' });
    const b2 = await g.brand(owner, { name: 'B2' });
    const r2 = await g.category(owner, { brandId: b2.id, name: 'R2' });
    const r1b = await g.category(owner, { brandId: b1.id, name: 'R1b' });
    const r1a = await g.category(owner, { brandId: b1.id, name: 'R1a', sortOrder: 0 });
    const c1 = await g.category(owner, { brandId: b1.id, parentId: r1b.id, name: 'C1' });
    const c0 = await g.category(owner, { brandId: b1.id, parentId: r1b.id, name: 'C0', sortOrder: 0 });
    const d = await g.category(owner, { brandId: b1.id, parentId: r1a.id, name: 'D' });
    const res = await send(env, { url: '/v1/categories?pageSize=100', key: reader.key });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    // r1b was created before r1a, so its id is lower: children of r1b come before children of r1a
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([r1a.id, r1b.id, c0.id, c1.id, d.id, r2.id]);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 100, totalCount: 6, totalPages: 1 });
  });

  it('pages through the list with ordinary pagination', async () => {
    const t = await g.team();
    const owner = await g.key(t, 'manage');
    const b = await g.brand(owner);
    const made = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) made.push(await g.category(owner, { brandId: b.id, name }));
    const page2 = await send(env, { url: '/v1/categories?pageSize=2&page=2', key: owner.key });
    expect(page2.body.data.map((c: { name: string }) => c.name)).toEqual(['c', 'd']);
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, totalCount: 5, totalPages: 3 });
    const past = await send(env, { url: '/v1/categories?pageSize=2&page=9', key: owner.key });
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.totalCount).toBe(5);
  });

  it('filters by brandId, and leaves out deleted categories', async () => {
    const b = await freshBrand();
    const keep = await g.category(manager, { brandId: b.id, name: 'Keep' });
    const gone = await g.category(manager, { brandId: b.id, name: 'Gone' });
    await remove(manager.key, gone.id);
    const res = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: manager.key });
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([keep.id]);
    expect(res.body.pagination.totalCount).toBe(1);
  });

  it('caps pageSize above 100 at 100 and ignores unknown query parameters', async () => {
    const res = await send(env, { url: '/v1/categories?pageSize=500&colour=red', key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.pagination.pageSize).toBe(100);
  });

  for (const query of ['page=0', 'pageSize=0', 'page=abc', 'brandId=0', 'brandId=abc', 'brandId=2147483648']) {
    it(`rejects ${query} with 422 validation_failed`, async () => {
      const res = await send(env, { url: `/v1/categories?${query}`, key: manager.key });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    });
  }
});

describe('GET /v1/categories/{id} (getCategory)', () => {
  it('returns the category with the ETag it was created with', async () => {
    const b = await freshBrand();
    const created = await create(manager.key, { brandId: b.id, name: 'Read me' });
    const res = await read(manager.key, created.body.data.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(created.body.data);
    expect(res.headers.etag).toBe(created.headers.etag);
  });

  it('gives 404 not_found for a missing or deleted category', async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Gone' });
    await remove(manager.key, c.id);
    for (const id of [2147483647, c.id]) {
      const res = await read(manager.key, id);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'not_found' });
    }
  });

  for (const id of ['0', '-1', 'abc', '2147483648']) {
    it(`rejects the path id ${id} with 422 validation_failed`, async () => {
      const res = await read(manager.key, id as unknown as number);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('id');
    });
  }
});

describe('roles (spec 4.3: reads any role, writes manage only)', () => {
  const roles: Role[] = ['view_only', 'usable', 'editable', 'manage'];
  for (const role of roles) {
    it(`${role}: can list and get categories`, async () => {
      const key = await g.key(team, role);
      const b = await freshBrand();
      const c = await g.category(manager, { brandId: b.id, name: 'Visible' });
      const list = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: key.key });
      expect(list.status).toBe(200);
      expect(list.body.data.map((x: { id: number }) => x.id)).toEqual([c.id]);
      const one = await read(key.key, c.id);
      expect(one.status).toBe(200);
    });

    const allowed = role === 'manage';
    it(`${role}: ${allowed ? 'can' : 'cannot (403 forbidden, nothing changes)'} create, update and delete`, async () => {
      const key = await g.key(team, role);
      const b = await freshBrand();
      const c = await g.category(manager, { brandId: b.id, name: 'Target' });
      const before = await snapshot(team.teamId);
      const created = await create(key.key, { brandId: b.id, name: 'New' });
      const updated = await patch(key.key, c.id, { name: 'Renamed' });
      const deleted = await remove(key.key, c.id);
      if (allowed) {
        expect([created.status, updated.status, deleted.status]).toEqual([201, 200, 200]);
      } else {
        for (const res of [created, updated, deleted]) {
          expect(res.status).toBe(403);
          expect(res.body.code).toBe('forbidden');
        }
        expect(await snapshot(team.teamId)).toEqual(before);
      }
    });
  }

  it('checks the role before the body: a view_only key with an invalid body gets 403, not 422', async () => {
    const key = await g.key(team, 'view_only');
    const res = await create(key.key, { name: '' });
    expect(res.status).toBe(403);
  });

  it('refuses a request without a key with 401', async () => {
    const res = await send(env, { url: '/v1/categories' });
    expect(res.status).toBe(401);
  });
});

describe('cross-team isolation', () => {
  it("gives a key of team B 404 for team A's category on get, update and delete, and changes nothing", async () => {
    const b = await freshBrand();
    const c = await g.category(manager, { brandId: b.id, name: 'Private' });
    const other = await g.key(await g.team('B'), 'manage');
    const before = await snapshot(team.teamId);
    expect((await read(other.key, c.id)).status).toBe(404);
    expect((await patch(other.key, c.id, { name: 'Stolen' })).status).toBe(404);
    expect((await remove(other.key, c.id)).status).toBe(404);
    expect(await snapshot(team.teamId)).toEqual(before);
  });

  it("never lists team A's categories to team B, even when filtering by A's brand id", async () => {
    const b = await freshBrand();
    await g.category(manager, { brandId: b.id, name: 'Private' });
    const other = await g.key(await g.team('B'), 'manage');
    const all = await send(env, { url: '/v1/categories?pageSize=100', key: other.key });
    const filtered = await send(env, { url: `/v1/categories?brandId=${b.id}`, key: other.key });
    expect(all.body.data).toEqual([]);
    expect(filtered.body.data).toEqual([]);
    expect(filtered.body.pagination.totalCount).toBe(0);
  });

  it("rejects team A's brand or parent in team B's create or move with 422 validation_failed, and changes nothing", async () => {
    const aBrand = await freshBrand();
    const aParent = await g.category(manager, { brandId: aBrand.id, name: 'A parent' });
    const bTeam = await g.team('B');
    const bKey = await g.key(bTeam, 'manage');
    const bBrand = await g.brand(bKey, { name: 'B brand' });
    const bCategory = await g.category(bKey, { brandId: bBrand.id, name: 'B cat' });
    const beforeA = await snapshot(team.teamId);
    const beforeB = await snapshot(bTeam.teamId);
    const viaBrand = await create(bKey.key, { brandId: aBrand.id, name: 'x' });
    const viaParent = await create(bKey.key, { brandId: bBrand.id, parentId: aParent.id, name: 'x' });
    const viaMove = await patch(bKey.key, bCategory.id, { parentId: aParent.id });
    expect(viaBrand.body.details).toEqual([{ field: 'brandId', message: expect.any(String) }]);
    expect(viaParent.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    expect(viaMove.body.details).toEqual([{ field: 'parentId', message: expect.any(String) }]);
    for (const res of [viaBrand, viaParent, viaMove]) expect(res.status).toBe(422);
    expect(await snapshot(team.teamId)).toEqual(beforeA);
    expect(await snapshot(bTeam.teamId)).toEqual(beforeB);
  });
});
