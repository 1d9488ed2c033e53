import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { tempDir, writeImage } from '../support/media-files.ts';

/*
 * docs/operations.md "Memory": every lease on the answer budget goes back once its answer is
 * written, over keep-alive connections as over closed ones, so a steady load never drifts into
 * 503s. Real sockets: keep-alive is what inject does not have.
 */

let env: TestEnv;
let viewer: GivenKey;
let base: string;
let files: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  env = await createTestEnv();
  const g = given(env);
  const team = await g.team();
  const manager = await g.key(team, 'manage');
  viewer = await g.key(team, 'view_only');
  const ctx = await g.ctx(manager);
  for (let i = 0; i < 30; i++) {
    const created = await env.core.catalogue.products.create(ctx, { name: `P${i}`, description: 'd'.repeat(1000) });
    await env.core.catalogue.products.publish(ctx, created.body.id);
  }
  files = await tempDir('budget-leases');
  await writeImage(join(files.path, 'a.png'), { width: 8, height: 8, colour: '#336699', format: 'png' });
  await g.libraryFile(team, { file: join(files.path, 'a.png'), description: 'x'.repeat(500) });
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await env.close();
  await files?.remove();
});

async function rounds(count: number, request: () => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let round = 0; round < count; round++) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await request();
        await res.arrayBuffer();
        return res.status;
      }),
    );
    statuses.push(...answers);
  }
  return statuses;
}

describe('answer budget leases over keep-alive connections', () => {
  it('20 rounds of 10 concurrent REST product pages: all 200, and the budget is back to 0', async () => {
    const statuses = await rounds(20, () => fetch(`${base}/v1/products?pageSize=100`, { headers: { authorization: `Bearer ${viewer.key}` } }));
    expect(new Set(statuses)).toEqual(new Set([200]));
    await expect.poll(() => env.core.platform.answerBudget.used).toBe(0);
  });

  it('20 rounds of 10 concurrent GraphQL product pages with templateFields: all 200 without errors, and the budget is back to 0', async () => {
    const query = '{ products(pageSize: 100) { items { id name templateFields } } }';
    const statuses = await rounds(20, () =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${viewer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    await expect.poll(() => env.core.platform.answerBudget.used).toBe(0);
  });

  it('a search page is admitted against the budget: with the budget taken, POST /open/search-assets waits, then gets 503 with Retry-After; after, it answers and the budget is back to 0', async () => {
    const search = () =>
      fetch(`${base}/open/search-assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${viewer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ startPoint: 0, endPoint: 100 }),
      });
    const held = await env.core.platform.answerBudget.reserve(env.core.platform.answerBudget.totalBytes);
    try {
      const refused = await search();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(JSON.stringify(await refused.json())).toContain('memory_budget_exhausted');
    } finally {
      held.release();
    }
    const answered = await search();
    expect(answered.status).toBe(200);
    expect((await answered.json()).result.assets).toHaveLength(1);
    await expect.poll(() => env.core.platform.answerBudget.used).toBe(0);
  });

  it('clients that go away mid-request (a load run stopping with requests in flight, 10 connections) leave no lease behind, REST and GraphQL', async () => {
    for (const request of [
      { url: `${base}/v1/products?pageSize=100`, method: 'GET' as const },
      {
        url: `${base}/graphql`,
        method: 'POST' as const,
        body: JSON.stringify({ query: '{ products(pageSize: 100) { items { id templateFields } } }' }),
      },
    ]) {
      const run = await autocannon({
        ...request,
        connections: 10,
        duration: 2,
        headers: { authorization: `Bearer ${viewer.key}`, 'content-type': 'application/json' },
      });
      expect(run.non2xx).toBe(0);
      await expect.poll(() => env.core.platform.answerBudget.used).toBe(0);
    }
  });
});
