import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { freePort } from '../support/private-redis.ts';

/*
 * The API reference in a real browser ("/docs and GraphiQL work without internet"):
 * Debian's Chromium opens the pages from a listening server, every request the page makes is
 * recorded, and the pages must render with none of them leaving Shelf's origin and no script error.
 */

let env: TestEnv;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  env = await createTestEnv({ PUBLIC_BASE_URL: origin });
  await env.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await env.close();
});

/** A page that records every request it makes and every script error it throws. */
async function recordingPage(): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, requests, errors };
}

const elsewhere = (requests: string[]) => requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));

describe('the API reference in headless Chromium', () => {
  it('/docs renders every tag and the operations of the OpenAPI document, loading nothing from another origin', async () => {
    const { page, requests, errors } = await recordingPage();
    const response = await page.goto(`${origin}/docs/`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock-tag', { hasText: 'Products' }).first().waitFor({ timeout: 20_000 });
    // tags open as lists (Swagger UI's default docExpansion): the operations show without a click
    await page.locator('.opblock-summary-description', { hasText: 'Share a product' }).first().waitFor({ timeout: 10_000 });
    expect(requests).toContain(`${origin}/docs/json`);
    expect(elsewhere(requests)).toEqual([]);
    // Shelf's page, not Swagger's: its title and icon, no Swagger top bar or "Explore" box
    expect(await page.title()).toBe('Shelf API reference');
    expect(await page.locator('.topbar').count()).toBe(0);
    expect(await page.getByText('Explore').count()).toBe(0);
    expect(await page.locator('link[rel="icon"]').getAttribute('type')).toBe('image/svg+xml');
    expect(errors).toEqual([]);
    await writeFile(join(tmpdir(), 'shelf-docs.png'), await page.screenshot());
    await page.close();
  });

  it('GraphiQL renders its editor at /graphql, loading nothing from another origin', async () => {
    const { page, requests, errors } = await recordingPage();
    const response = await page.goto(`${origin}/graphql`);
    expect(response?.status()).toBe(200);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 20_000 });
    await page.locator('.graphiql-query-editor').first().waitFor({ timeout: 10_000 });
    expect(elsewhere(requests)).toEqual([]);
    expect(errors).toEqual([]);
    await writeFile(join(tmpdir(), 'shelf-graphiql.png'), await page.screenshot());
    await page.close();
  });

  it("GraphiQL's Docs panel shows the schema on first load, before a key is entered", async () => {
    const { page, errors } = await recordingPage();
    await page.goto(`${origin}/graphql`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 20_000 });
    await page
      .getByRole('button', { name: /documentation explorer/i })
      .first()
      .click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor({ timeout: 20_000 });
    expect(await page.getByText('Error fetching schema').count()).toBe(0);
    expect(errors).toEqual([]);
    await writeFile(join(tmpdir(), 'shelf-graphiql-docs.png'), await page.screenshot());
    await page.close();
  });
});
