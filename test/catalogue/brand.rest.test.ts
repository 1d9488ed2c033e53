import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let manager: GivenKey;
let g: ReturnType<typeof given>;

beforeAll(async () => {
  env = await createTestEnv({ LOGO_HOST_ALLOWLIST: 'cdn.example.com' });
  g = given(env);
  const team = await g.team();
  manager = await g.key(team, 'manage');
});
afterAll(async () => env.close());

async function brandCount(teamId: number): Promise<number> {
  const rows = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from brands where team_id = ?', [teamId]);
  return Number(rows[0]!.n);
}

async function storedLogo(id: number): Promise<string | null> {
  const rows = await env.orm.em.fork().execute<{ logo_url: string | null }[]>('select logo_url from brands where id = ?', [id]);
  return rows[0]!.logo_url;
}

describe('POST /v1/brands (createBrand)', () => {
  it('creates a brand with 201, the envelope, an ETag and a server-generated code', async () => {
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Acme', description: 'Tools' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, code: null, message: null, data: { name: 'Acme', description: 'Tools', sortOrder: 0, isEnabled: true } });
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.body.data.code).toMatch(/^B[A-Z2-9]{9}$/);
    expect(res.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('trims the name before validating it, and allows duplicate names with distinct codes', async () => {
    const a = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: '  Twin  ' } });
    const b = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Twin' } });
    expect(a.body.data.name).toBe('Twin');
    expect(b.body.data.name).toBe('Twin');
    expect(a.body.data.code).not.toBe(b.body.data.code);
  });

  it('accepts a 128-character name and a name of 128 characters surrounded by spaces', async () => {
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: `  ${'n'.repeat(128)}  ` } });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toHaveLength(128);
  });

  it('never echoes logoUrl, and stores it without query and fragment', async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: manager.key,
      body: { name: 'Logo', logoUrl: 'https://cdn.example.com/a/logo.png?v=1#top' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).not.toHaveProperty('logoUrl');
    expect(JSON.stringify(res.body)).not.toContain('cdn.example.com');
    expect(await storedLogo(res.body.data.id)).toBe('https://cdn.example.com/a/logo.png');
    const read = await send(env, { url: `/v1/brands/${res.body.data.id}`, key: manager.key });
    expect(read.text).not.toContain('cdn.example.com');
  });

  it("allows logo hosts on the service's own storage host", async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: manager.key,
      body: { name: 'Own', logoUrl: 'http://127.0.0.1:8080/files/logo.png' },
    });
    expect(res.status).toBe(201);
  });

  it('treats an empty logoUrl as no logo', async () => {
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'NoLogo', logoUrl: '' } });
    expect(res.status).toBe(201);
    expect(await storedLogo(res.body.data.id)).toBeNull();
  });

  const badBodies: Array<[string, unknown, string]> = [
    ['a missing name', {}, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a 129-character name', { name: 'n'.repeat(129) }, 'name'],
    ['a non-string name', { name: 5 }, 'name'],
    ['a 513-character description', { name: 'x', description: 'd'.repeat(513) }, 'description'],
    ['an unknown field', { name: 'x', colour: 'red' }, 'colour'],
    ['a client-chosen code', { name: 'x', code: 'MINE' }, 'code'],
    ['a logoUrl with ftp scheme', { name: 'x', logoUrl: 'ftp://cdn.example.com/a.png' }, 'logoUrl'],
    ['a logoUrl with credentials', { name: 'x', logoUrl: 'https://user:pw@cdn.example.com/a.png' }, 'logoUrl'],
    ['a logoUrl on a host not on the allowlist', { name: 'x', logoUrl: 'https://evil.example.org/a.png' }, 'logoUrl'],
    ['a relative logoUrl', { name: 'x', logoUrl: '/a.png' }, 'logoUrl'],
    ['a logoUrl over 512 characters', { name: 'x', logoUrl: `https://cdn.example.com/${'a'.repeat(500)}` }, 'logoUrl'],
    ['a negative sortOrder', { name: 'x', sortOrder: -1 }, 'sortOrder'],
    ['a fractional sortOrder', { name: 'x', sortOrder: 1.5 }, 'sortOrder'],
    ['a string isEnabled', { name: 'x', isEnabled: 'yes' }, 'isEnabled'],
    ['a website that is not http(s)', { name: 'x', website: 'javascript:alert(1)' }, 'website'],
    ['an array body', [{ name: 'x' }], '(body)'],
  ];
  for (const [label, body, field] of badBodies) {
    it(`rejects ${label} with 422 validation_failed naming ${field}, and writes nothing`, async () => {
      const before = await brandCount(manager.teamId);
      const res = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'validation_failed' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await brandCount(manager.teamId)).toBe(before);
    });
  }

  it('rejects malformed JSON with 422 validation_failed and writes nothing', async () => {
    const before = await brandCount(manager.teamId);
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(await brandCount(manager.teamId)).toBe(before);
  });

  it('rejects a non-JSON content type with 422 validation_failed', async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: manager.key,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe('Content-Type');
  });
});

describe('GET /v1/brands (listBrands)', () => {
  it('orders live brands by sortOrder then id and paginates', async () => {
    const team = await g.team();
    const key = await g.key(team, 'view_only');
    const owner = await g.key(team, 'manage');
    const c = await g.brand(owner, { name: 'C', sortOrder: 2 });
    const a = await g.brand(owner, { name: 'A', sortOrder: 1 });
    const b = await g.brand(owner, { name: 'B', sortOrder: 1 });
    const res = await send(env, { url: '/v1/brands?pageSize=2', key: key.key });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 2, totalCount: 3, totalPages: 2 });
    const page2 = await send(env, { url: '/v1/brands?pageSize=2&page=2', key: key.key });
    expect(page2.body.data.map((x: { id: number }) => x.id)).toEqual([c.id]);
    expect(res.headers.etag).toBeUndefined();
  });

  it('caps pageSize above 100 at 100 and defaults to page 1 of 20', async () => {
    const capped = await send(env, { url: '/v1/brands?pageSize=500', key: manager.key });
    expect(capped.body.pagination.pageSize).toBe(100);
    const defaults = await send(env, { url: '/v1/brands', key: manager.key });
    expect(defaults.body.pagination).toMatchObject({ page: 1, pageSize: 20 });
  });

  it('reports the total of an empty page past the end', async () => {
    const res = await send(env, { url: '/v1/brands?page=999', key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination.totalCount).toBeGreaterThan(0);
  });

  it('ignores unknown query parameters', async () => {
    const res = await send(env, { url: '/v1/brands?colour=red&page=1', key: manager.key });
    expect(res.status).toBe(200);
  });

  for (const query of ['page=0', 'page=-1', 'page=abc', 'pageSize=0', 'pageSize=1.5', 'page=2147483648']) {
    it(`rejects ${query} with 422 validation_failed`, async () => {
      const res = await send(env, { url: `/v1/brands?${query}`, key: manager.key });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    });
  }
});

describe('GET /v1/brands/{id} (getBrand)', () => {
  it('returns the brand with a strong ETag that matches the one from creation', async () => {
    const created = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Read me' } });
    const res = await send(env, { url: `/v1/brands/${created.body.data.id}`, key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(created.body.data);
    expect(res.headers.etag).toBe(created.headers.etag);
  });

  it('gives 404 not_found for an id that does not exist', async () => {
    const res = await send(env, { url: '/v1/brands/2147483647', key: manager.key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, data: null, code: 'not_found' });
  });

  for (const id of ['0', '-3', 'abc', '2147483648', '1.5']) {
    it(`rejects the path id ${id} with 422 validation_failed`, async () => {
      const res = await send(env, { url: `/v1/brands/${id}`, key: manager.key });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('id');
    });
  }
});

describe('PATCH /v1/brands/{id} (updateBrand)', () => {
  it('changes only the given fields, bumps updatedAt and returns a new ETag', async () => {
    const brand = await g.brand(manager, { name: 'Old', description: 'keep' });
    const res = await send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: manager.key, body: { name: ' New ' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'New', description: 'keep', code: brand.code });
    expect(res.body.data.updatedAt > brand.updatedAt).toBe(true);
    expect(res.headers.etag).toMatch(/^"/);
  });

  it('clears the logo when logoUrl is null', async () => {
    const brand = await g.brand(manager, { logoUrl: 'https://cdn.example.com/l.png' });
    const res = await send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: manager.key, body: { logoUrl: null } });
    expect(res.status).toBe(200);
    expect(await storedLogo(brand.id)).toBeNull();
  });

  it('applies the change when If-Match carries the current ETag', async () => {
    const created = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Tagged' } });
    const res = await send(env, {
      method: 'PATCH',
      url: `/v1/brands/${created.body.data.id}`,
      key: manager.key,
      body: { description: 'Tagged once' },
      headers: { 'if-match': created.headers.etag! },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.description).toBe('Tagged once');
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const created = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Stale' } });
    const id = created.body.data.id;
    await send(env, { method: 'PATCH', url: `/v1/brands/${id}`, key: manager.key, body: { name: 'Changed elsewhere' } });
    const res = await send(env, {
      method: 'PATCH',
      url: `/v1/brands/${id}`,
      key: manager.key,
      body: { name: 'Mine' },
      headers: { 'if-match': created.headers.etag! },
    });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('precondition_failed');
    const read = await send(env, { url: `/v1/brands/${id}`, key: manager.key });
    expect(read.body.data.name).toBe('Changed elsewhere');
  });

  it('lets the later write win when If-Match is omitted', async () => {
    const brand = await g.brand(manager, { name: 'First' });
    await send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: manager.key, body: { name: 'Second' } });
    const res = await send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: manager.key, body: { name: 'Third' } });
    expect(res.body.data.name).toBe('Third');
  });

  const badPatches: Array<[string, unknown, string]> = [
    ['an empty body', {}, '(body)'],
    ['an unknown field', { nme: 'x' }, 'nme'],
    ['a blank name', { name: ' ' }, 'name'],
    ['a 513-character description', { description: 'd'.repeat(513) }, 'description'],
    ['a logoUrl off the allowlist', { logoUrl: 'https://elsewhere.example.net/l.png' }, 'logoUrl'],
  ];
  for (const [label, body, field] of badPatches) {
    it(`rejects ${label} with 422 validation_failed and changes nothing`, async () => {
      const brand = await g.brand(manager, { name: 'Unchanged' });
      const res = await send(env, { method: 'PATCH', url: `/v1/brands/${brand.id}`, key: manager.key, body });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      const read = await send(env, { url: `/v1/brands/${brand.id}`, key: manager.key });
      expect(read.body.data).toEqual(brand);
    });
  }
});

describe('DELETE /v1/brands/{id} (deleteBrand)', () => {
  it('soft-deletes: 200 with data {id} and an ETag; the brand then reads and lists as absent', async () => {
    const brand = await g.brand(manager, { name: 'Gone' });
    const res = await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: brand.id });
    expect(res.headers.etag).toMatch(/^"/);
    expect((await send(env, { url: `/v1/brands/${brand.id}`, key: manager.key })).status).toBe(404);
    const list = await send(env, { url: '/v1/brands?pageSize=100', key: manager.key });
    expect(list.body.data.map((b: { id: number }) => b.id)).not.toContain(brand.id);
    const rows = await env.orm.em.fork().execute<{ deleted_at: string | null }[]>('select deleted_at from brands where id = ?', [brand.id]);
    expect(rows[0]!.deleted_at).not.toBeNull();
  });

  it('gives 404 on a second delete', async () => {
    const brand = await g.brand(manager);
    await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key });
    const again = await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key });
    expect(again.status).toBe(404);
  });

  it('refuses a stale If-Match with 412 and deletes nothing', async () => {
    const created = await send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: { name: 'Keep' } });
    await send(env, { method: 'PATCH', url: `/v1/brands/${created.body.data.id}`, key: manager.key, body: { description: 'Changed' } });
    const res = await send(env, {
      method: 'DELETE',
      url: `/v1/brands/${created.body.data.id}`,
      key: manager.key,
      headers: { 'if-match': created.headers.etag! },
    });
    expect(res.status).toBe(412);
    expect((await send(env, { url: `/v1/brands/${created.body.data.id}`, key: manager.key })).status).toBe(200);
  });

  it('refuses with 409 brand_has_dependents, deleting nothing, while a registered dependent check finds live dependents', async () => {
    const brand = await g.brand(manager, { name: 'Parent' });
    // categories and products register real checks; this one stands in for "a live dependent exists"
    env.core.catalogue.brands.addDependentCheck(async (_tx, brandId) => brandId === brand.id);
    const res = await send(env, { method: 'DELETE', url: `/v1/brands/${brand.id}`, key: manager.key });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('brand_has_dependents');
    expect((await send(env, { url: `/v1/brands/${brand.id}`, key: manager.key })).status).toBe(200);
  });
});

describe('brand bodies over REST take exactly the fields of spec 4.2', () => {
  it.each([
    ['website', { name: 'Site', website: 'https://acme.example.com' }],
    ['sortOrder', { name: 'Sorted', sortOrder: 3 }],
    ['isEnabled', { name: 'Off', isEnabled: false }],
  ])('refuses %s on POST /v1/brands with 422 validation_failed naming it, and stores nothing', async (field, body) => {
    const key = await given(env).key(await given(env).team(), 'manage');
    const res = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ field, message: 'unknown field' }] });
    expect((await send(env, { url: '/v1/brands', key: key.key })).body.pagination.totalCount).toBe(0);
  });

  it('refuses sortOrder on PATCH /v1/brands/{id} with 422 and leaves the brand as it was', async () => {
    const key = await given(env).key(await given(env).team(), 'manage');
    const created = await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'Steady' } });
    const res = await send(env, { method: 'PATCH', url: `/v1/brands/${created.body.data.id}`, key: key.key, body: { sortOrder: 9 } });
    expect(res).toMatchObject({ status: 422, body: { details: [{ field: 'sortOrder' }] } });
    expect((await send(env, { url: `/v1/brands/${created.body.data.id}`, key: key.key })).body.data.sortOrder).toBe(0);
  });

  it('keeps website, sortOrder and isEnabled settable through GraphQL for signed-in frontends', async () => {
    const key = await given(env).key(await given(env).team(), 'manage');
    const res = await graphqlOf(
      key.key,
      'mutation { createBrand(input: { name: "Front", website: "https://front.example.com", sortOrder: 2, isEnabled: false }) { brand { website sortOrder isEnabled } } }',
    );
    expect(res.body.data.createBrand.brand).toEqual({ website: 'https://front.example.com', sortOrder: 2, isEnabled: false });
  });
});

function graphqlOf(key: string, query: string) {
  return send(env, { method: 'POST', url: '/graphql', key, body: { query } });
}
