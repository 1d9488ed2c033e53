import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/core/access/roles.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { type Received, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/** Role matrix (spec 4.5, 5: reads for any role within visibility; writes for editable and manage) and cross-team isolation. */
const world = useProductWorld({ team: 'A' });
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let team: GivenTeam;
let keys: Record<Role, GivenKey>;
let editor: GivenKey;

beforeAll(() => {
  ({ env, g, gp, team, keys } = world);
  editor = keys.editable;
});

type Operation = (key: GivenKey, draftId: number, publishedId: number) => Promise<Received>;

const operations: Record<string, { run: Operation; allowed: Role[]; success: number; writes: boolean }> = {
  'GET /v1/products': { run: (k) => send(env, { url: '/v1/products', key: k.key }), allowed: [...ROLES], success: 200, writes: false },
  'GET /v1/products?sync=true': { run: (k) => send(env, { url: '/v1/products?sync=true', key: k.key }), allowed: [...ROLES], success: 200, writes: false },
  'GET /v1/products/{published id}': {
    run: (k, _d, p) => send(env, { url: `/v1/products/${p}`, key: k.key }),
    allowed: [...ROLES],
    success: 200,
    writes: false,
  },
  'POST /v1/products/visibility': {
    run: (k, d) => send(env, { method: 'POST', url: '/v1/products/visibility', key: k.key, body: { ids: [d] } }),
    allowed: [...ROLES],
    success: 200,
    writes: false,
  },
  'POST /v1/products': {
    run: (k) => send(env, { method: 'POST', url: '/v1/products', key: k.key, body: { name: 'New' } }),
    allowed: ['editable', 'manage'],
    success: 201,
    writes: true,
  },
  'PATCH /v1/products/{id}': {
    run: (k, d) => send(env, { method: 'PATCH', url: `/v1/products/${d}`, key: k.key, body: { name: 'Renamed' } }),
    allowed: ['editable', 'manage'],
    success: 200,
    writes: true,
  },
  'POST /v1/products/{id}/publish': {
    run: (k, d) => send(env, { method: 'POST', url: `/v1/products/${d}/publish`, key: k.key }),
    allowed: ['editable', 'manage'],
    success: 200,
    writes: true,
  },
  'POST /v1/products/{id}/unpublish': {
    run: (k, _d, p) => send(env, { method: 'POST', url: `/v1/products/${p}/unpublish`, key: k.key }),
    allowed: ['editable', 'manage'],
    success: 200,
    writes: true,
  },
  'DELETE /v1/products/{id}': {
    run: (k, d) => send(env, { method: 'DELETE', url: `/v1/products/${d}`, key: k.key }),
    allowed: ['editable', 'manage'],
    success: 200,
    writes: true,
  },
};

describe('role matrix', () => {
  for (const [name, operation] of Object.entries(operations)) {
    for (const role of ROLES) {
      const allowed = operation.allowed.includes(role);
      it(`${name} by ${role}: ${allowed ? operation.success : '403 forbidden, nothing changed'}`, async () => {
        const draft = await gp.product(editor, { name: 'Draft' });
        const published = await gp.published(editor);
        const before = await gp.snapshot(team.teamId);
        const res = await operation.run(keys[role], draft.id, published.id);
        if (allowed) {
          expect(res.status).toBe(operation.success);
        } else {
          expect(res.status).toBe(403);
          expect(res.body.code).toBe('forbidden');
          expect(await gp.snapshot(team.teamId)).toBe(before);
        }
      });
    }
  }

  it('a draft is 404 for view_only and usable, and readable for editable and manage', async () => {
    const draft = await gp.product(editor, { name: 'Hidden' });
    for (const role of ROLES) {
      const res = await send(env, { url: `/v1/products/${draft.id}`, key: keys[role].key });
      expect(res.status).toBe(role === 'view_only' || role === 'usable' ? 404 : 200);
    }
  });

  it('media objects carry downloadUrl only for usable and above (spec 5)', async () => {
    const image = await gp.image(team);
    const product = await gp.published(editor, { imageAssetIds: [image] });
    for (const role of ROLES) {
      const cover = (await send(env, { url: `/v1/products/${product.id}`, key: keys[role].key })).body.data.cover;
      expect(cover.previewUrl).toMatch(/^http/);
      if (role === 'view_only') expect(cover).not.toHaveProperty('downloadUrl');
      else expect(cover.downloadUrl).toMatch(/\/download\?/);
    }
  });
});

describe('cross-team isolation', () => {
  let intruder: GivenKey;
  let mine: { draft: number; published: number };
  beforeAll(async () => {
    intruder = await g.key(await g.team('B'), 'manage');
    mine = { draft: (await gp.product(editor, { name: 'Secret' })).id, published: (await gp.published(editor, { name: 'Secret published' })).id };
  });

  const byId: Array<[string, (key: GivenKey, id: number) => Promise<Received>]> = [
    ['GET', (k, id) => send(env, { url: `/v1/products/${id}`, key: k.key })],
    ['PATCH', (k, id) => send(env, { method: 'PATCH', url: `/v1/products/${id}`, key: k.key, body: { name: 'Stolen' } })],
    ['publish', (k, id) => send(env, { method: 'POST', url: `/v1/products/${id}/publish`, key: k.key })],
    ['unpublish', (k, id) => send(env, { method: 'POST', url: `/v1/products/${id}/unpublish`, key: k.key })],
    ['DELETE', (k, id) => send(env, { method: 'DELETE', url: `/v1/products/${id}`, key: k.key })],
  ];
  for (const [name, run] of byId) {
    it(`${name} with another team's key gives 404 not_found for this team's products and changes nothing`, async () => {
      for (const id of [mine.draft, mine.published]) {
        const before = await gp.snapshot(team.teamId);
        const res = await run(intruder, id);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
        expect(await gp.snapshot(team.teamId)).toBe(before);
      }
    });
  }

  it("lists, sync scans and searches of another team never show this team's products; visibility says not_visible", async () => {
    await env.orm.em.fork().execute(`update products set updated_at = updated_at - interval '1 hour' where team_id = ?`, [team.teamId]);
    for (const url of ['/v1/products?pageSize=100', '/v1/products?sync=true&pageSize=100', '/v1/products?search=Secret']) {
      const res = await send(env, { url, key: intruder.key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
    const res = await send(env, { method: 'POST', url: '/v1/products/visibility', key: intruder.key, body: { ids: [mine.draft, mine.published] } });
    expect(res.body.data.map((v: { result: string }) => v.result)).toEqual(['not_visible', 'not_visible']);
  });

  it("a PATCH naming another team's file is 422 and writes nothing", async () => {
    const foreignFile = await gp.image(await g.team('C'));
    const before = await gp.snapshot(team.teamId);
    const res = await send(env, { method: 'PATCH', url: `/v1/products/${mine.draft}`, key: editor.key, body: { relatedAssetIds: [foreignFile] } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe('relatedAssetIds[0]');
    expect(await gp.snapshot(team.teamId)).toBe(before);
  });
});
