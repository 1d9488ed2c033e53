import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  manager = await g.key(await g.team(), 'manage');
});
afterAll(async () => env.close());

const CREATE = `mutation($input: BrandCreateInput!, $key: String) { createBrand(input: $input, idempotencyKey: $key) { etag brand { id name code description sortOrder isEnabled createdAt } } }`;
const UPDATE = `mutation($id: Int!, $input: BrandPatchInput!, $ifMatch: String) { updateBrand(id: $id, input: $input, ifMatch: $ifMatch) { etag brand { id name } } }`;

describe('GraphQL brands', () => {
  it('createBrand calls the same core operation as REST: trimmed name, generated code, an etag', async () => {
    const res = await graphql(env, manager.key, CREATE, { input: { name: '  Graph  ', description: 'via gql' } });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const { brand, etag } = res.body.data.createBrand;
    expect(brand).toMatchObject({ name: 'Graph', description: 'via gql', sortOrder: 0, isEnabled: true });
    expect(brand.code).toMatch(/^B[A-Z2-9]{9}$/);
    expect(etag).toMatch(/^"/);
  });

  it('brand(id) returns the same ETag as REST getBrand', async () => {
    const created = await g.brand(manager, { name: 'Same tag' });
    const gql = await graphql(env, manager.key, `query($id: Int!) { brand(id: $id) { etag brand { name } } }`, { id: created.id });
    const rest = await env.app.inject({ url: `/v1/brands/${created.id}`, headers: { authorization: `Bearer ${manager.key}` } });
    expect(gql.body.data.brand.etag).toBe(rest.headers.etag);
  });

  it('brands lists live brands ordered by sortOrder then id, with pagination', async () => {
    const team = await g.team();
    const key = await g.key(team, 'manage');
    const b = await g.brand(key, { name: 'b', sortOrder: 2 });
    const a = await g.brand(key, { name: 'a', sortOrder: 1 });
    const res = await graphql(env, key.key, `{ brands(pageSize: 10) { items { id } pagination { page pageSize totalCount totalPages } } }`);
    expect(res.body.data.brands.items.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
    expect(res.body.data.brands.pagination).toEqual({ page: 1, pageSize: 10, totalCount: 2, totalPages: 1 });
  });

  it('updateBrand with a stale ifMatch fails with extensions.code precondition_failed and changes nothing', async () => {
    const created = await graphql(env, manager.key, CREATE, { input: { name: 'v1' } });
    const { brand, etag } = created.body.data.createBrand;
    await graphql(env, manager.key, UPDATE, { id: brand.id, input: { name: 'v2' }, ifMatch: etag });
    const stale = await graphql(env, manager.key, UPDATE, { id: brand.id, input: { name: 'v3' }, ifMatch: etag });
    expect(stale.body.errors[0].extensions.code).toBe('precondition_failed');
    const read = await graphql(env, manager.key, `query($id: Int!) { brand(id: $id) { brand { name } } }`, { id: brand.id });
    expect(read.body.data.brand.brand.name).toBe('v2');
  });

  it('deleteBrand soft-deletes; reading it afterwards gives extensions.code not_found', async () => {
    const created = await g.brand(manager, { name: 'to delete' });
    const del = await graphql(env, manager.key, `mutation($id: Int!) { deleteBrand(id: $id) { id etag } }`, { id: created.id });
    expect(del.body.data.deleteBrand.id).toBe(created.id);
    const read = await graphql(env, manager.key, `query($id: Int!) { brand(id: $id) { brand { id } } }`, { id: created.id });
    expect(read.body.errors[0].extensions.code).toBe('not_found');
  });

  it('reports validation_failed with details for invalid input and creates nothing', async () => {
    const before = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from brands');
    const res = await graphql(env, manager.key, CREATE, { input: { name: 'x'.repeat(129) } });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].extensions.details[0].field).toBe('name');
    const after = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from brands');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('replays createBrand with the same idempotencyKey', async () => {
    const first = await graphql(env, manager.key, CREATE, { input: { name: 'idem' }, key: 'gql-1' });
    const second = await graphql(env, manager.key, CREATE, { input: { name: 'idem' }, key: 'gql-1' });
    expect(second.body.data.createBrand).toEqual(first.body.data.createBrand);
  });

  it('gives forbidden to a view_only key for mutations but answers its queries', async () => {
    const viewer = await g.key({ teamId: manager.teamId }, 'view_only');
    const denied = await graphql(env, viewer.key, CREATE, { input: { name: 'nope' } });
    expect(denied.body.errors[0].extensions.code).toBe('forbidden');
    const read = await graphql(env, viewer.key, `{ brands { pagination { totalCount } } }`);
    expect(read.body.errors).toBeUndefined();
  });

  it('authenticates with the same Bearer key: none gives HTTP 401 with extensions.code invalid_credentials', async () => {
    const res = await graphql(env, null, `{ brands { pagination { totalCount } } }`);
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('invalid_credentials');
    expect(res.body.data ?? null).toBeNull();
  });

  it("never shows another team's brand: brand(id) of team A gives not_found to team B", async () => {
    const brandA = await g.brand(manager, { name: 'private' });
    const keyB = await g.key(await g.team('B'), 'manage');
    const res = await graphql(env, keyB.key, `query($id: Int!) { brand(id: $id) { brand { id } } }`, { id: brandA.id });
    expect(res.body.errors[0].extensions.code).toBe('not_found');
  });

  it('rejects page 0 with validation_failed, as REST does', async () => {
    const res = await graphql(env, manager.key, `{ brands(page: 0) { pagination { page } } }`);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
  });
});
