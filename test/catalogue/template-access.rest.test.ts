import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/core/access/roles.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { givenCategories } from '../support/given-categories.ts';
import { givenTemplates, templateName } from '../support/given-templates.ts';
import { type Sent, send } from '../support/http.ts';

/** Role matrix (reads any role, writes manage only) and cross-library isolation (spec 4.4, 5, 7.1). */
let env: TestEnv;
let g: ReturnType<typeof given>;
let t: ReturnType<typeof givenTemplates>;
let c: ReturnType<typeof givenCategories>;
let team: GivenTeam;
let owner: GivenKey;
const keys = {} as Record<Role, GivenKey>;

const URL = '/v1/product-info-templates';

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  t = givenTemplates(env);
  c = givenCategories(env);
  team = await g.team();
  owner = await g.key(team, 'manage');
  for (const role of ROLES) keys[role] = await g.key(team, role);
});
afterAll(async () => env.close());

type Operation = { name: string; write: boolean; request: (templateId: string) => Sent; success: number };
const operations: Operation[] = [
  { name: 'listTemplates', write: false, request: () => ({ url: URL }), success: 200 },
  { name: 'getTemplate', write: false, request: (id) => ({ url: `${URL}/${id}` }), success: 200 },
  {
    name: 'createTemplate',
    write: true,
    request: () => ({ method: 'POST', url: URL, body: { name: templateName('R'), groups: [{ name: 'G', fields: [] }] } }),
    success: 201,
  },
  { name: 'updateTemplate', write: true, request: (id) => ({ method: 'PATCH', url: `${URL}/${id}`, body: { description: 'changed' } }), success: 200 },
  { name: 'deleteTemplate', write: true, request: (id) => ({ method: 'DELETE', url: `${URL}/${id}` }), success: 200 },
];

describe('role matrix', () => {
  for (const op of operations) {
    for (const role of ROLES) {
      const allowed = !op.write || role === 'manage';
      it(`${op.name} as ${role}: ${allowed ? `${op.success}` : '403 forbidden, nothing changed'}`, async () => {
        const tpl = await t.template(owner);
        const before = await t.snapshot(team.teamId);
        const res = await send(env, { ...op.request(tpl.id), key: keys[role].key });
        if (allowed) {
          expect(res.status).toBe(op.success);
          expect(res.body.success).toBe(true);
        } else {
          expect(res.status).toBe(403);
          expect(res.body).toMatchObject({ success: false, data: null, code: 'forbidden' });
          expect(await t.snapshot(team.teamId)).toEqual(before);
        }
      });
    }
  }

  it('answers 403 before validating the body of a write by a view_only key', async () => {
    const res = await send(env, { method: 'POST', url: URL, key: keys.view_only.key, body: { nonsense: true } });
    expect(res.status).toBe(403);
  });

  it('answers 401 without a key', async () => {
    const res = await send(env, { url: URL });
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
  });
});

describe('cross-library isolation', () => {
  it("gives another library's key 404 not_found for a template's get, PATCH and DELETE, and changes nothing", async () => {
    const tpl = await t.template(owner, { isLibraryDefault: false });
    const stranger = await g.key(await g.team(), 'manage');
    const before = await t.snapshot(team.teamId);
    for (const request of [
      { url: `${URL}/${tpl.id}` },
      { method: 'PATCH' as const, url: `${URL}/${tpl.id}`, body: { description: 'x' } },
      { method: 'DELETE' as const, url: `${URL}/${tpl.id}` },
    ]) {
      const res = await send(env, { ...request, key: stranger.key });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect(await t.snapshot(team.teamId)).toEqual(before);
  });

  it("never lists another library's templates", async () => {
    const tpl = await t.template(owner);
    const stranger = await g.key(await g.team(), 'manage');
    const mine = await t.template(stranger);
    const res = await send(env, { url: `${URL}?pageSize=100`, key: stranger.key });
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([mine.id]);
    expect(res.body.data.map((x: { id: string }) => x.id)).not.toContain(tpl.id);
  });

  it("rejects binding another library's brand or category ids with 422, changing nothing in either library", async () => {
    const brand = await g.brand(owner);
    const cat = await c.category(owner, brand.id);
    const stranger = await g.key(await g.team(), 'manage');
    const own = await t.template(stranger);
    const before = [await t.snapshot(team.teamId), await t.snapshot(stranger.teamId)];
    const attempts: Sent[] = [
      { method: 'POST', url: URL, body: { name: 'Steal', groups: [{ name: 'G', fields: [] }], boundBrandIds: [brand.id] } },
      { method: 'POST', url: URL, body: { name: 'Steal', groups: [{ name: 'G', fields: [] }], boundCategoryIds: [cat.id] } },
      { method: 'PATCH', url: `${URL}/${own.id}`, body: { boundBrandIds: [brand.id] } },
      { method: 'PATCH', url: `${URL}/${own.id}`, body: { boundCategoryIds: [cat.id] } },
    ];
    for (const attempt of attempts) {
      const res = await send(env, { ...attempt, key: stranger.key });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expect([await t.snapshot(team.teamId), await t.snapshot(stranger.teamId)]).toEqual(before);
  });

  it("rejects another library's template as replacementForLibraryDefault", async () => {
    const foreign = await t.template(owner);
    const stranger = await g.key(await g.team(), 'manage');
    const def = await t.template(stranger, { isLibraryDefault: true });
    const res = await send(env, { method: 'DELETE', url: `${URL}/${def.id}`, key: stranger.key, body: { replacementForLibraryDefault: foreign.id } });
    expect(res.status).toBe(422);
  });
});
