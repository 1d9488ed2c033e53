import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapDatabaseError } from '../../src/core/platform/db-errors.ts';
import { DomainError } from '../../src/core/platform/errors.ts';
import { queryOne } from '../../src/core/platform/sql.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let team: GivenTeam;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  team = await g.team();
  manager = await g.key(team, 'manage');
});
afterAll(async () => env.close());

async function teamRows(): Promise<unknown[]> {
  const em = env.orm.em.fork();
  return [
    await em.execute('select *, updated_at::text as u, deleted_at::text as d from categories where team_id = ? order by id', [team.teamId]),
    await em.execute('select id from idempotency_records where team_id = ? order by id', [team.teamId]),
  ];
}

describe('CategoryService.addCreatedHook', () => {
  it('runs each hook once per create, inside the create transaction, after the insert', async () => {
    const brand = await g.brand(manager, { name: 'Hooked' });
    const seen: Array<{ id: number; brandId: number; visibleInTx: string | null; visibleOutside: number }> = [];
    env.core.catalogue.categories.addCreatedHook(async (tx, category) => {
      if (category.brandId !== brand.id) return;
      const inTx = await queryOne<{ name: string }>(tx, 'select name from categories where id = ?', [category.id]);
      const outside = await env.orm.em.fork().execute<unknown[]>('select 1 from categories where id = ?', [category.id]);
      seen.push({ ...category, visibleInTx: inTx?.name ?? null, visibleOutside: outside.length });
    });
    const res = await send(env, { method: 'POST', url: '/v1/categories', key: manager.key, body: { brandId: brand.id, name: 'New' } });
    expect(res.status).toBe(201);
    // the hook saw the row through its transaction while no other connection could
    expect(seen).toEqual([{ id: res.body.data.id, brandId: brand.id, visibleInTx: 'New', visibleOutside: 0 }]);
  });

  it('does not run again when an Idempotency-Key replays the create', async () => {
    const brand = await g.brand(manager, { name: 'Replayed' });
    let calls = 0;
    env.core.catalogue.categories.addCreatedHook(async (_tx, category) => {
      if (category.brandId === brand.id) calls++;
    });
    const headers = { 'idempotency-key': 'hooked-once' };
    for (let i = 0; i < 2; i++) {
      const res = await send(env, { method: 'POST', url: '/v1/categories', key: manager.key, body: { brandId: brand.id, name: 'Once' }, headers });
      expect(res.status).toBe(201);
    }
    expect(calls).toBe(1);
  });

  it('rolls the create back, writing nothing, when a hook fails', async () => {
    const brand = await g.brand(manager, { name: 'Refusing' });
    env.core.catalogue.categories.addCreatedHook(async (_tx, category) => {
      if (category.brandId === brand.id) throw new DomainError('validation_failed', 'hook refused', [{ field: 'brandId', message: 'hook refused' }]);
    });
    const before = await teamRows();
    const res = await send(env, {
      method: 'POST',
      url: '/v1/categories',
      key: manager.key,
      body: { brandId: brand.id, name: 'Never' },
      headers: { 'idempotency-key': 'refused-create' },
    });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'brandId', message: 'hook refused' }]);
    expect(await teamRows()).toEqual(before);
  });
});

describe('deleteBrand with categories (spec 3.2 brand_has_dependents)', () => {
  it('refuses with 409 brand_has_dependents while the brand has a live category, and deletes nothing', async () => {
    const brand = await g.brand(manager, { name: 'Parent brand' });
    await g.category(manager, { brandId: brand.id, name: 'Live' });
    const before = await teamRows();
    const res = await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('brand_has_dependents');
    expect(await teamRows()).toEqual(before);
    expect((await send(env, { url: `/v1/brands/${brand.id}`, key: manager.key })).status).toBe(200);
  });

  it('deletes the brand once all its categories were deleted', async () => {
    const brand = await g.brand(manager, { name: 'Emptied' });
    const root = await g.category(manager, { brandId: brand.id, name: 'Root' });
    await g.category(manager, { brandId: brand.id, parentId: root.id, name: 'Child' });
    expect((await send(env, { method: 'DELETE', url: `/v1/categories/${root.id}`, key: manager.key })).status).toBe(200);
    const res = await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key });
    expect(res.status).toBe(200);
  });

  it('never leaves a live category under a deleted brand when a create races the brand deletion', async () => {
    const brands = await Promise.all(Array.from({ length: 6 }, (_, i) => g.brand(manager, { name: `Racing ${i}` })));
    const results = await Promise.all(
      brands.flatMap((brand) => [
        send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key }),
        send(env, { method: 'POST', url: '/v1/categories', key: manager.key, body: { brandId: brand.id, name: 'Late' } }),
      ]),
    );
    for (let i = 0; i < brands.length; i++) {
      const [deleted, created] = [results[2 * i]!, results[2 * i + 1]!];
      expect([
        [200, 422],
        [409, 201],
      ]).toContainEqual([deleted.status, created.status]);
    }
    const orphans = await env.orm.em
      .fork()
      .execute<unknown[]>(`select c.id from categories c join brands b on b.id = c.brand_id where c.deleted_at is null and b.deleted_at is not null`);
    expect(orphans).toEqual([]);
  });
});

describe('name_in_use from the live-sibling unique index (the one database-error table, platform/db-errors.ts)', () => {
  it('maps a real violation of categories_live_sibling_name_unique to 409 name_in_use', async () => {
    const brand = await g.brand(manager, { name: 'Index' });
    await g.category(manager, { brandId: brand.id, name: 'Dup' });
    let violation: unknown;
    try {
      await env.orm.em
        .fork()
        .execute(`insert into categories (team_id, brand_id, name, path_key, depth) values (?, ?, 'Dup', '/Dup', 1)`, [team.teamId, brand.id]);
    } catch (e) {
      violation = e;
    }
    expect(violation).toBeDefined();
    const mapped = mapDatabaseError(violation);
    expect(mapped).toBeInstanceOf(DomainError);
    expect(mapped).toMatchObject({ code: 'name_in_use' });
  });

  it('passes any other error through unchanged', () => {
    const other = new Error('something else');
    expect(mapDatabaseError(other)).toBe(other);
  });
});

describe('batch reads for dataloaders', () => {
  it("findByIds and findChildrenByParentIds return nothing of another team's tree", async () => {
    const brand = await g.brand(manager, { name: 'Batch' });
    const root = await g.category(manager, { brandId: brand.id, name: 'Root' });
    const child = await g.category(manager, { brandId: brand.id, parentId: root.id, name: 'Child' });
    const own = await g.ctx(manager);
    expect((await env.core.catalogue.categories.findByIds(own, [root.id, child.id])).map((c) => c.id).sort()).toEqual([root.id, child.id].sort());
    expect((await env.core.catalogue.categories.findChildrenByParentIds(own, [root.id, child.id])).map((list) => list.map((c) => c.id))).toEqual([
      [child.id],
      [],
    ]);
    const stranger = await g.ctx(await g.key(await g.team('Other'), 'manage'));
    expect(await env.core.catalogue.categories.findByIds(stranger, [root.id, child.id])).toEqual([]);
    expect(await env.core.catalogue.categories.findChildrenByParentIds(stranger, [root.id])).toEqual([[]]);
  });
});

describe('CategoryService.findWithBrands', () => {
  it("reads the caller's team's live brands and categories only, as findByIds reads them", async () => {
    const brand = await g.brand(manager, { name: 'Referenced' });
    const category = await g.category(manager, { brandId: brand.id, name: 'Referenced category' });
    const gone = await g.category(manager, { brandId: brand.id, name: 'Gone' });
    expect((await send(env, { method: 'DELETE', url: `/v1/categories/${gone.id}`, key: manager.key })).status).toBe(200);
    const other = await g.team();
    const otherKey = await g.key(other, 'manage');
    const otherBrand = await g.brand(otherKey, { name: 'Theirs' });
    const otherCategory = await g.category(otherKey, { brandId: otherBrand.id, name: 'Theirs' });
    const ctx = await g.ctx(manager);
    const found = await env.core.catalogue.categories.findWithBrands(ctx, [brand.id, otherBrand.id], [category.id, gone.id, otherCategory.id]);
    expect(found.brands).toEqual(await env.core.catalogue.brands.findByIds(ctx, [brand.id]));
    expect(found.categories).toEqual(await env.core.catalogue.categories.findByIds(ctx, [category.id]));
    expect(await env.core.catalogue.categories.findWithBrands(ctx, [], [])).toEqual({ brands: [], categories: [] });
  });
});
