import { stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { fieldIds, givenProducts } from '../support/given-products.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { freePort } from '../support/private-redis.ts';

/*
 * The share page in a real browser (Debian's chromium, installed by scripts/browser.sh in CI),
 * driven by Playwright over a real listening server: what a visitor on a phone sees, the password
 * prompt, the download, an expired link, and how each type of template value reads. Every
 * request the browser makes is recorded: one to anywhere but the page's own origin fails the test.
 * Screenshots go to the system's temp directory (shelf-share-*.png).
 */

let env: TestEnv;
let browser: Browser;
let base: string;
let storage: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
let editor: GivenKey;
let usable: GivenKey;
let manager: GivenKey;
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
  manager = await given(env).key(team, 'manage');
  browser = await launchChromium();
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

/** Requests the browser made to anywhere but the page's origin during the current test. */
const elsewhere: string[] = [];
/** Paths requested from the page's origin during the current test. */
const requested: string[] = [];
afterEach(() => {
  const outside = elsewhere.splice(0);
  requested.length = 0;
  expect(outside).toEqual([]);
});

async function phonePage(): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    acceptDownloads: true,
  });
  return recorded(await context.newPage());
}

async function desktopPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return recorded(await context.newPage());
}

function recorded(page: Page): Page {
  page.context().on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === base) requested.push(url.pathname);
    else elsewhere.push(request.url());
  });
  return page;
}

/** A template with `fields` (one group), as the manager makes it, and a field id per key. */
async function templateWith(fields: Record<string, unknown>[]): Promise<{ templateId: string; ids: Record<string, string> }> {
  const template = await givenTemplates(env).template(manager, { groups: [{ name: 'Details', fields }] });
  return { templateId: template.id, ids: fieldIds(template) };
}

/** A published product with `values` (by field key) for a template of `fields`, opened through a new share on a phone. */
async function sharedWith(
  fields: Record<string, unknown>[],
  values: Record<string, unknown>,
  product: Record<string, unknown> = {},
  shareBody: Record<string, unknown> = {},
): Promise<Page> {
  const { templateId, ids } = await templateWith(fields);
  const templateFields = Object.fromEntries(Object.entries(values).map(([key, value]) => [ids[key]!, value]));
  const made = await gp.published(editor, { name: 'Bench power supply', templateId, templateFields, ...product });
  const page = await phonePage();
  const response = await page.goto(await shareUrl(made.id, shareBody));
  expect(response?.status()).toBe(200);
  return page;
}

/** The page's field list: label to the value's visible text (innerText: line breaks as shown). */
async function shownValues(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll('dl.fields dt')].map((dt) => [dt.textContent!, (dt.nextElementSibling as HTMLElement).innerText])),
  );
}

/** Every link in the field list: its text, address and rel. */
async function fieldLinks(page: Page): Promise<{ text: string; href: string; rel: string }[]> {
  return page
    .locator('dl.fields a')
    .evaluateAll((links) => links.map((a) => ({ text: a.textContent!, href: a.getAttribute('href')!, rel: a.getAttribute('rel') ?? '' })));
}

/** The phone screenshot of the whole page, for a person to look at; and that nothing scrolls sideways. */
async function screenshot(page: Page, name: string): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  const file = join(tmpdir(), `shelf-share-${name}.png`);
  await writeFile(file, await page.screenshot({ fullPage: true }));
  expect((await stat(file)).size).toBeGreaterThan(5_000);
}

const options = (...pairs: [string, string][]) => pairs.map(([value, label], sortOrder) => ({ value, label, sortOrder }));
const NBSP = '\u00a0';

describe('share page in headless Chromium', () => {
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
    const images = await page
      .locator('.gallery img')
      .evaluateAll((imgs) =>
        imgs.map((img) => ({ alt: (img as HTMLImageElement).alt, loaded: (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0 })),
      );
    expect(images).toEqual([
      { alt: 'front.png', loaded: true },
      { alt: 'back.png', loaded: true },
    ]);
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

describe('template values on the share page, as a person reads them', () => {
  it('shows text as typed, long text with its line breaks, email and phone as mail and call links, a web address as a safe link, a colour as a swatch and its code', async () => {
    const page = await sharedWith(
      [
        { key: 'finish', name: 'Finish', type: 'text' },
        { key: 'care', name: 'Care', type: 'textarea' },
        { key: 'contact', name: 'Contact', type: 'email' },
        { key: 'hotline', name: 'Hotline', type: 'phone' },
        { key: 'manual', name: 'Manual', type: 'url' },
        { key: 'colour', name: 'Colour', type: 'color' },
      ],
      {
        finish: 'Powder-coated <steel> & "brass"',
        care: 'Wipe with a dry cloth.\nNo solvents.',
        contact: 'sales@example.com',
        hotline: '+49 30 1234-567',
        manual: 'https://example.com/manual?lang=en&v=2',
        colour: '#1a7f37',
      },
    );
    expect(await shownValues(page)).toEqual({
      Finish: 'Powder-coated <steel> & "brass"',
      Care: 'Wipe with a dry cloth.\nNo solvents.',
      Contact: 'sales@example.com',
      Hotline: '+49 30 1234-567',
      Manual: 'https://example.com/manual?lang=en&v=2',
      Colour: '#1A7F37',
    });
    expect(await fieldLinks(page)).toEqual([
      { text: 'sales@example.com', href: 'mailto:sales@example.com', rel: '' },
      { text: '+49 30 1234-567', href: 'tel:+49301234567', rel: '' },
      { text: 'https://example.com/manual?lang=en&v=2', href: 'https://example.com/manual?lang=en&v=2', rel: 'noopener noreferrer nofollow' },
    ]);
    expect(await page.locator('dl.fields .swatch rect').getAttribute('fill')).toBe('#1a7f37');
    await screenshot(page, 'text-types');
    await page.context().close();
  });

  it("shows numbers grouped and with their unit, and amounts in their currency with its decimals and the template's symbol", async () => {
    const page = await sharedWith(
      [
        { key: 'voltage', name: 'Output voltage', type: 'number', config: { unit: 'V' } },
        { key: 'weight', name: 'Weight', type: 'number', config: { unit: 'kg' } },
        { key: 'efficiency', name: 'Efficiency', type: 'number', config: { unit: '%' } },
        { key: 'units', name: 'Units per pallet', type: 'number' },
        { key: 'eur', name: 'Price', type: 'currency', config: { code: 'EUR', symbol: '€', decimals: 2 } },
        { key: 'usd', name: 'US price', type: 'currency', config: { code: 'USD', symbol: '$', decimals: 2 } },
        { key: 'sek', name: 'Swedish price', type: 'currency', config: { code: 'SEK', symbol: 'kr', decimals: 0 } },
        { key: 'points', name: 'Loyalty price', type: 'currency', config: { code: 'POINTS', symbol: 'pts', decimals: 0 } },
      ],
      { voltage: 18, weight: 2.75, efficiency: 91.5, units: 5400, eur: 129.99, usd: 1250, sek: 1499, points: 300 },
    );
    expect(await shownValues(page)).toEqual({
      'Output voltage': `18${NBSP}V`,
      Weight: '2.75 kg',
      Efficiency: '91.5%',
      'Units per pallet': '5,400',
      Price: '€129.99',
      'US price': '$1,250.00',
      'Swedish price': `kr${NBSP}1,499`,
      'Loyalty price': `pts${NBSP}300`,
    });
    // the stored number stays in the markup for machines
    expect(await page.locator('dl.fields data').evaluateAll((els) => els.map((e) => e.getAttribute('value')))).toEqual([
      '18',
      '2.75',
      '91.5',
      '5400',
      '129.99',
      '1250',
      '1499',
      '300',
    ]);
    await screenshot(page, 'number-types');
    await page.context().close();
  });

  it("writes dates out with the month's name, and a date range as one span sharing its month and year", async () => {
    const page = await sharedWith(
      [
        { key: 'launch', name: 'Launch', type: 'date' },
        { key: 'promo', name: 'Promotion', type: 'dateRange' },
        { key: 'season', name: 'Season', type: 'dateRange' },
        { key: 'fair', name: 'Trade fair', type: 'dateRange' },
      ],
      { launch: '2026-03-14', promo: ['2026-03-01', '2026-03-14'], season: ['2025-12-30', '2026-01-02'], fair: ['2026-05-20', '2026-05-20'] },
    );
    expect(await shownValues(page)).toEqual({
      Launch: '14 March 2026',
      Promotion: '1\u2009–\u200914 March 2026',
      Season: '30 December 2025\u2009–\u20092 January 2026',
      'Trade fair': '20 May 2026',
    });
    expect(await page.locator('dl.fields time').getAttribute('datetime')).toBe('2026-03-14');
    await screenshot(page, 'date-types');
    await page.context().close();
  });

  it("shows the labels of chosen options, several in the template's order of options rather than the order they were stored in", async () => {
    const page = await sharedWith(
      [
        { key: 'colour', name: 'Colour', type: 'select', config: { options: options(['red', 'Signal red'], ['blue', 'Ocean blue']) } },
        { key: 'size', name: 'Size', type: 'radio', config: { options: options(['s', 'Small'], ['m', 'Medium'], ['l', 'Large']) } },
        { key: 'certs', name: 'Certificates', type: 'checkbox', config: { options: options(['ce', 'CE'], ['ul', 'UL listed'], ['rohs', 'RoHS compliant']) } },
        { key: 'mount', name: 'Mounting', type: 'checkbox', config: { options: options(['wall', 'Wall bracket']) } },
      ],
      { colour: 'red', size: 'm', certs: ['rohs', 'ce', 'ul'], mount: ['wall'] },
    );
    expect(await shownValues(page)).toEqual({
      Colour: 'Signal red',
      Size: 'Medium',
      Certificates: 'CE, UL listed and RoHS compliant',
      Mounting: 'Wall bracket',
    });
    await screenshot(page, 'choice-types');
    await page.context().close();
  });

  it('shows rich text of both modes as headings, emphasis, lists and safe links, with no script, image or foreign link from the stored markup', async () => {
    const stored = [
      '<h2>Highlights</h2>',
      '<p style="color:red" onclick="alert(1)">Built for <strong>workshops</strong> and <em>labs</em>.</p>',
      '<ul><li>Short-circuit proof</li><li>Quiet fan</li></ul>',
      '<p><a href="https://example.com/specs" target="_blank">Full specs</a> · <a href="javascript:alert(1)">click me</a></p>',
      '<img src="https://example.com/tracker.png" onerror="alert(1)"><script>alert(1)</script><iframe src="https://example.com"></iframe>',
    ].join('');
    const page = await sharedWith(
      [
        { key: 'story', name: 'Story', type: 'richtext', config: { mode: 'html' } },
        { key: 'notes', name: 'Notes', type: 'richtext', config: { mode: 'delta' } },
      ],
      {
        story: stored,
        notes: {
          ops: [
            { insert: 'In the box' },
            { insert: '\n', attributes: { header: 2 } },
            { insert: 'Power supply' },
            { insert: '\n', attributes: { list: 'bullet' } },
            { insert: 'Test leads' },
            { insert: '\n', attributes: { list: 'bullet' } },
            { insert: 'See the ' },
            { insert: 'warranty', attributes: { link: 'https://example.com/warranty', bold: true } },
            { insert: ' and ' },
            { insert: 'this', attributes: { link: 'data:text/html,<script>alert(1)</script>' } },
            { insert: { image: 'https://example.com/embed.png' } },
            { insert: '.\n' },
          ],
        },
      },
    );
    expect(await shownValues(page)).toEqual({
      Story: 'Highlights\n\nBuilt for workshops and labs.\n\nShort-circuit proof\nQuiet fan\n\nFull specs · click me',
      Notes: 'In the box\nPower supply\nTest leads\n\nSee the warranty and this.',
    });
    expect(await page.locator('dl.fields h3').allTextContents()).toEqual(['Highlights', 'In the box']);
    expect(await page.locator('dl.fields li').allTextContents()).toEqual(['Short-circuit proof', 'Quiet fan', 'Power supply', 'Test leads']);
    expect(await page.locator('dl.fields strong').allTextContents()).toEqual(['workshops', 'warranty']);
    expect(await fieldLinks(page)).toEqual([
      { text: 'Full specs', href: 'https://example.com/specs', rel: 'noopener noreferrer nofollow' },
      { text: 'warranty', href: 'https://example.com/warranty', rel: 'noopener noreferrer nofollow' },
    ]);
    expect(
      await page.evaluate(() => ({
        scripts: document.scripts.length,
        frames: document.querySelectorAll('iframe').length,
        fieldImages: document.querySelectorAll('dl.fields img').length,
        styled: document.querySelectorAll('dl.fields [style], dl.fields [onclick], dl.fields [target]').length,
      })),
    ).toEqual({ scripts: 0, frames: 0, fieldImages: 0, styled: 0 });
    await screenshot(page, 'richtext-types');
    await page.context().close();
  });

  it('shows an image field as small pictures and a file field as names and sizes, only of the files the share shows', async () => {
    const front = await gp.image(team, 'front view.png', { width: 400, height: 300 });
    const side = await gp.image(team, 'side view.png', { width: 300, height: 400 });
    const sheet = await gp.textFile(team, 'datasheet.txt');
    const internal = await gp.textFile(team, 'internal notes.txt');
    const page = await sharedWith(
      [
        { key: 'views', name: 'Views', type: 'image' },
        { key: 'docs', name: 'Documents', type: 'file' },
      ],
      { views: [front, side], docs: [sheet, internal] },
      {},
      { assetIds: [front, side, sheet] },
    );
    await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0), null, { timeout: 20_000 });
    const values = await shownValues(page);
    expect(values.Views).toBe('front view.png\nside view.png');
    expect(values.Documents).toMatch(/^datasheet\.txt · \d+ B$/);
    expect(await page.locator('dl.fields img').evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).alt))).toEqual([
      'front view.png',
      'side view.png',
    ]);
    expect(await page.content()).not.toContain('internal notes.txt');
    await screenshot(page, 'media-types');
    await page.context().close();
  });

  it('reads well with every type on one page, on a phone and on a desktop, and its icon comes from Shelf itself', async () => {
    const picture = await gp.image(team, 'packshot.png', { width: 640, height: 480 });
    const leaflet = await gp.textFile(team, 'leaflet.txt');
    const fields = [
      { key: 'finish', name: 'Finish', type: 'text' },
      { key: 'care', name: 'Care instructions', type: 'textarea' },
      { key: 'contact', name: 'Sales contact', type: 'email' },
      { key: 'hotline', name: 'Hotline', type: 'phone' },
      { key: 'manual', name: 'Manual', type: 'url' },
      { key: 'colour', name: 'Housing colour', type: 'color' },
      { key: 'launch', name: 'Launch date', type: 'date' },
      { key: 'promo', name: 'Promotion', type: 'dateRange' },
      { key: 'voltage', name: 'Output voltage', type: 'number', config: { unit: 'V' } },
      { key: 'price', name: 'Price', type: 'currency', config: { code: 'EUR', symbol: '€', decimals: 2 } },
      { key: 'story', name: 'Description', type: 'richtext', config: { mode: 'html' } },
      { key: 'model', name: 'Model', type: 'select', config: { options: options(['std', 'Standard'], ['pro', 'Professional']) } },
      { key: 'plug', name: 'Plug', type: 'radio', config: { options: options(['eu', 'EU (Type F)'], ['uk', 'UK (Type G)']) } },
      { key: 'certs', name: 'Certificates', type: 'checkbox', config: { options: options(['ce', 'CE'], ['rohs', 'RoHS']) } },
      { key: 'views', name: 'Pictures', type: 'image' },
      { key: 'docs', name: 'Documents', type: 'file' },
    ];
    expect(new Set(fields.map((f) => f.type)).size).toBe(16);
    const { templateId, ids } = await templateWith(fields);
    const values: Record<string, unknown> = {
      finish: 'Brushed aluminium',
      care: 'Wipe with a dry cloth.\nKeep away from water.',
      contact: 'sales@example.com',
      hotline: '+49 30 1234-567',
      manual: 'https://example.com/products/bench-power-supply/manual-v2.pdf',
      colour: '#1a7f37',
      launch: '2026-03-14',
      promo: ['2026-03-01', '2026-03-31'],
      voltage: 18,
      price: 129.99,
      story: '<p>A <strong>quiet</strong>, short-circuit-proof bench supply.</p><ul><li>0–30 V</li><li>0–5 A</li></ul>',
      model: 'pro',
      plug: 'eu',
      certs: ['rohs', 'ce'],
      views: [picture],
      docs: [leaflet],
    };
    const product = await gp.published(editor, {
      name: 'Bench power supply 30 V / 5 A',
      spu: `BPS-${Date.now()}`,
      templateId,
      templateFields: Object.fromEntries(Object.entries(values).map(([key, value]) => [ids[key]!, value])),
    });
    const url = await shareUrl(product.id);
    for (const [name, open] of [
      ['all-types-phone', phonePage],
      ['all-types-desktop', desktopPage],
    ] as const) {
      const page = await open();
      expect((await page.goto(url))?.status()).toBe(200);
      await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0), null, { timeout: 20_000 });
      const shown = await shownValues(page);
      expect(Object.keys(shown)).toHaveLength(16);
      expect(shown).toMatchObject({
        Price: '€129.99',
        'Output voltage': `18${NBSP}V`,
        Model: 'Professional',
        Certificates: 'CE and RoHS',
        'Launch date': '14 March 2026',
      });
      await screenshot(page, name);
      // the browser takes the icon the head names, from the page's origin, and probes no other
      await expect.poll(() => requested.filter((path) => path === '/favicon.svg').length).toBeGreaterThan(0);
      expect(requested).not.toContain('/favicon.ico');
      requested.length = 0;
      await page.context().close();
    }
    // what the browser fetched all came from the page's origin (afterEach)
    const icon = await fetch(`${base}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const head = await (await fetch(url)).text();
    expect(head).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  });
});
