import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

/*
 * docs/operations.md "Memory": a large request body takes a share of the memory budget before it is
 * read. When the budget stays taken, a large body gets 503 service_unavailable with Retry-After
 * and nothing is written, while small requests pass beside it.
 */

let env: TestEnv;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv({ ANSWER_MEMORY_BUDGET_MB: '8' });
  manager = await given(env).key(await given(env).team(), 'manage');
});
afterAll(async () => env.close());

/** A valid template body of about `kilobytes` KB (select options with long labels). */
function templateOfSize(name: string, kilobytes: number): Record<string, unknown> {
  const options = Math.max(1, Math.floor((kilobytes * 1024) / 220));
  const fields = Array.from({ length: Math.ceil(options / 1000) }, (_, f) => ({
    key: `f${f}`,
    name: `F${f}`,
    type: 'select',
    config: {
      options: Array.from({ length: Math.min(1000, options - f * 1000) }, (_, j) => ({
        value: `v${j}-${'x'.repeat(90)}`,
        label: `L${j}-${'y'.repeat(90)}`,
        sortOrder: j,
      })),
    },
  }));
  return { name, groups: [{ name: 'G', fields }] };
}

async function templateCount(): Promise<number> {
  const rows = await env.orm.em.fork().execute('select count(*)::int as n from product_info_templates where team_id = ?', [manager.teamId]);
  return rows[0]!.n;
}

describe('large request bodies under the memory budget', () => {
  it('a 600 KB createTemplate is answered 201 while the budget has room', async () => {
    const res = await send(env, { method: 'POST', url: '/v1/product-info-templates', key: manager.key, body: templateOfSize('Large fits', 600) });
    expect(res.status).toBe(201);
    expect(env.core.platform.answerBudget.used).toBe(0);
  });

  it('with the budget taken, a 600 KB createTemplate waits, then gets 503 service_unavailable with Retry-After and creates nothing; a small one passes', async () => {
    const before = await templateCount();
    const held = await env.core.platform.answerBudget.reserve(8 * 1024 * 1024);
    try {
      const small = await send(env, { method: 'POST', url: '/v1/product-info-templates', key: manager.key, body: templateOfSize('Small passes', 4) });
      expect(small.status).toBe(201);
      const large = await send(env, { method: 'POST', url: '/v1/product-info-templates', key: manager.key, body: templateOfSize('Large waits', 600) });
      expect(large.status).toBe(503);
      expect(large.body).toMatchObject({ success: false, code: 'service_unavailable' });
      expect(large.headers['retry-after']).toBe('2');
      expect(await templateCount()).toBe(before + 1);
    } finally {
      held.release();
    }
    expect(env.core.platform.answerBudget.used).toBe(0);
  });

  it('GraphQL: a large createTemplate mutation with the budget taken gets service_unavailable (HTTP 503, Retry-After)', async () => {
    const held = await env.core.platform.answerBudget.reserve(8 * 1024 * 1024);
    try {
      const input = templateOfSize('Large GraphQL', 600);
      const res = await env.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ query: 'mutation($input: TemplateCreateInput!) { createTemplate(input: $input) { etag } }', variables: { input } }),
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().errors[0].extensions.code).toBe('service_unavailable');
      expect(res.headers['retry-after']).toBe('2');
    } finally {
      held.release();
    }
  });
});
