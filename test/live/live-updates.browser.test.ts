import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';
import { freePort } from '../support/private-redis.ts';
import { openStreams } from './live-support.ts';

/*
 * docs/graphql.md "A browser page", run as written in Debian's Chromium: EventSource with a stream
 * token, updates as they commit, and EventSource's own reconnection with Last-Event-ID after the
 * connection is cut.
 */

let env: TestEnv;
let browser: Browser;
let origin: string;
let example: string;
let key: GivenKey;

beforeAll(async () => {
  const page = await readFile(new URL('../../docs/graphql.md', import.meta.url), 'utf8');
  example = /```js live-updates:browser\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  env = await createTestEnv({ PUBLIC_BASE_URL: origin, LIVE_RELAY_INTERVAL_MS: '20' });
  await env.app.listen({ port, host: '127.0.0.1' });
  key = await given(env).key(await given(env).team('Browser'), 'editable');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await env?.close();
});

async function createProduct(name: string, brandId: number): Promise<number> {
  const res = await graphql(env, key.key, 'mutation($input: ProductCreateInput!) { createProduct(input: $input) { product { id } } }', {
    input: { name, brandId },
  });
  return res.body.data.createProduct.product.id;
}

describe('docs/graphql.md: a browser page with EventSource', () => {
  it("receives a brand's product changes as they commit, and after the connection is cut EventSource resumes with Last-Event-ID, losing and repeating nothing", async () => {
    expect(example, 'docs/graphql.md has no block live-updates:browser').toContain('new EventSource');
    const manager = await given(env).key({ teamId: key.teamId }, 'manage');
    const brand = await given(env).brand(manager, { name: 'Shown' });
    const other = await given(env).brand(manager, { name: 'Not shown' });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/healthz`);
    // the page's own apiKey, brandId and show(), then the example as written
    await page.evaluate(
      `(async () => {
        window.received = [];
        const apiKey = ${JSON.stringify(key.key)};
        const brandId = ${brand.id};
        const show = (update) => window.received.push(update);
        ${example}
      })()`,
    );
    await expect.poll(() => openStreams(env)).toBe(1);
    const received = () => page.evaluate(() => (window as unknown as { received: Array<{ productId: number; action: string; position: string }> }).received);
    const first = await createProduct('First', brand.id);
    await createProduct('Elsewhere', other.id);
    await expect.poll(async () => (await received()).map((u) => [u.productId, u.action])).toEqual([[first, 'CREATED']]);
    // cut every connection: EventSource waits `retry` (1 s) and reconnects with Last-Event-ID
    env.app.server.closeAllConnections();
    await expect.poll(() => openStreams(env)).toBe(0);
    const missed = await createProduct('While away', brand.id);
    await expect
      .poll(async () => (await received()).map((u) => [u.productId, u.action]))
      .toEqual([
        [first, 'CREATED'],
        [missed, 'CREATED'],
      ]);
    const after = await createProduct('Live again', brand.id);
    await expect.poll(async () => (await received()).map((u) => u.productId)).toEqual([first, missed, after]);
    const positions = (await received()).map((u) => Number(u.position));
    expect(positions[1]).toBeGreaterThan(positions[0]!);
    expect(positions[2]).toBeGreaterThan(positions[1]!);
    expect(errors).toEqual([]);
    await page.close();
    await expect.poll(() => openStreams(env)).toBe(0);
  });
});
