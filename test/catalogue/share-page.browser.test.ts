import { stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { givenProducts } from '../support/given-products.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { freePort } from '../support/private-redis.ts';

/*
 * The share page in a real browser (Debian's chromium, installed by scripts/browser.sh in CI),
 * driven by Playwright over a real listening server: what a visitor on a phone sees, the password
 * prompt, the download, and an expired link. Screenshots go to the system's temp directory.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// as root and on a closed network: no sandbox, and none of Chromium's background connections
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let env: TestEnv;
let browser: Browser;
let base: string;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
let editor: GivenKey;
let usable: GivenKey;
let gp: ReturnType<typeof givenProducts>;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  storage = await tempDir('share-browser-storage');
  inputs = await tempDir('share-browser-inputs');
  env = await createTestEnv({ STORAGE_DIR: storage.path, PUBLIC_BASE_URL: base });
  await env.app.listen({ port, host: '127.0.0.1' });
  gp = givenProducts(env, inputs.path);
  team = await given(env).team('Browser');
  editor = await given(env).key(team, 'editable');
  usable = await given(env).key(team, 'usable');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await env.close();
  await storage.remove();
  await inputs.remove();
});

async function shareUrl(productId: number, body: Record<string, unknown> = {}): Promise<string> {
  const res = await send(env, { method: 'POST', url: `/v1/products/${productId}/shares`, key: usable.key, body });
  expect(res.status).toBe(201);
  return res.body.data.url;
}

async function phonePage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, acceptDownloads: true });
  return context.newPage();
}

describe('share page in headless Chromium (issue 16 item 4)', () => {
  it('shows the product on a phone: name, description, loaded previews, no sideways scrolling, and a working download button', async () => {
    const front = await gp.image(team, 'front.png', { width: 640, height: 480 });
    const back = await gp.image(team, 'back.png', { width: 480, height: 640 });
    const manual = await gp.textFile(team, 'assembly manual.txt');
    const product = await gp.published(editor, {
      name: 'Oak chair with a rather long name that has to wrap on a narrow screen',
      description: 'Solid European oak, oiled.\nShips flat-packed.',
      imageAssetIds: [front, back],
      relatedAssetIds: [manual],
    });
    const page = await phonePage();
    const response = await page.goto(await shareUrl(product.id));
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Oak chair with a rather long name that has to wrap on a narrow screen');
    expect(await page.locator('.description').textContent()).toBe('Solid European oak, oiled.\nShips flat-packed.');
    // previews are derived on first request (sharp), and lazy images do not hold up the load event
    await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0), null, { timeout: 20_000 });
    const images = await page.locator('.gallery img').evaluateAll((imgs) => imgs.map((img) => ({ alt: (img as HTMLImageElement).alt, loaded: (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0 })));
    expect(images).toEqual([{ alt: 'front.png', loaded: true }, { alt: 'back.png', loaded: true }]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const screenshot = join(tmpdir(), 'shelf-share-page-phone.png');
    await writeFile(screenshot, await page.screenshot({ fullPage: true }));
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000);

    const button = page.getByRole('link', { name: /Download all \(3 files/ });
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect(download.suggestedFilename()).toMatch(/^shared-product-download-\d+\.zip$/);
    const saved = join(tmpdir(), `shelf-share-download-${Date.now()}.zip`);
    await download.saveAs(saved);
    expect((await stat(saved)).size).toBeGreaterThan(0);
    await page.context().close();
  });

  it('asks for the password first, says so when it is wrong, and shows the product once it is right', async () => {
    const product = await gp.published(editor, { name: 'Prototype lamp' });
    const page = await phonePage();
    await page.goto(await shareUrl(product.id, { password: 'correct horse' }));
    expect(await page.locator('h1').textContent()).toBe('Password required');
    expect(await page.content()).not.toContain('Prototype lamp');
    await page.getByLabel('Password').fill('wrong horse');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Open' }).click()]);
    expect(await page.getByRole('alert').textContent()).toContain('That password is not right');
    await page.getByLabel('Password').fill('correct horse');
    await Promise.all([page.waitForURL(/\/s\/[A-Za-z0-9_-]{43}$/), page.getByRole('button', { name: 'Open' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Prototype lamp');
    await page.reload();
    expect(await page.locator('h1').textContent()).toBe('Prototype lamp');
    await writeFile(join(tmpdir(), 'shelf-share-page-password.png'), await page.screenshot());
    await page.context().close();
  });

  it('shows an expired link as a clear page with status 410', async () => {
    const product = await gp.published(editor, { name: 'Old offer' });
    const url = await shareUrl(product.id);
    await env.orm.em.fork().execute(`update product_shares set expires_at = now() - interval '1 second' where product_id = ?`, [product.id]);
    const page = await phonePage();
    const response = await page.goto(url);
    expect(response?.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('This link has expired');
    expect(await page.content()).not.toContain('Old offer');
    await writeFile(join(tmpdir(), 'shelf-share-page-expired.png'), await page.screenshot());
    await page.context().close();
  });
});
