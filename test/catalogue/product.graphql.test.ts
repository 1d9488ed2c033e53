import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { fieldIds } from '../support/given-products.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { graphql, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';

/** GraphQL products: the same core operations, visibility and roles as REST; dataloaders keep the statement count fixed. */
const world = useProductWorld();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let team: GivenTeam;
let editor: GivenKey;
let manager: GivenKey;

beforeAll(() => {
  ({ env, g, gp, team } = world);
  editor = world.keys.editable;
  manager = world.keys.manage;
});

const FIELDS = `id name spu description status brandId categoryId ownerUserId publishedAt createdAt updatedAt draftReason templateId templateVersionId templateFields
  brand { id name } category { id name } templateDefinition { id groups { id fields { id key } } }
  cover { id name size previewUrl downloadUrl } images { id } relatedAssets { id }`;
const CREATE = `mutation($input: ProductCreateInput!, $key: String) { createProduct(input: $input, idempotencyKey: $key) { etag product { ${FIELDS} } } }`;
const GET = `query($id: Int!) { product(id: $id) { etag product { ${FIELDS} } } }`;
const LIST = `query($search: String, $status: ProductStatus, $pageSize: Int) { products(search: $search, status: $status, pageSize: $pageSize) { items { id status } pagination { page pageSize totalCount totalPages } } }`;

describe('GraphQL product operations', () => {
  it('createProduct makes a draft with brand, category, pinned definition and media, and the ETag REST gives', async () => {
    const brand = await g.brand(manager, { name: 'Graph brand' });
    const category = await g.category(manager, { brandId: brand.id, name: 'Graph cat' });
    const template = await givenTemplates(env).template(manager, {
      groups: [
        {
          name: 'G',
          fields: [
            { key: 'size', name: 'Size', type: 'number' },
            { key: 'doc', name: 'Doc', type: 'file' },
          ],
        },
      ],
    });
    const ids = fieldIds(template);
    const image = await gp.image(team, 'g.png');
    const doc = await gp.textFile(team, 'g.txt');
    const res = await graphql(env, editor.key, CREATE, {
      input: {
        name: ' Graph ',
        brandId: brand.id,
        categoryId: category.id,
        templateId: template.id,
        imageAssetIds: [image],
        templateFields: { [ids.size!]: 42, [ids.doc!]: [doc] },
      },
    });
    expect(res.body.errors).toBeUndefined();
    const { product, etag } = res.body.data.createProduct;
    expect(product).toMatchObject({
      name: 'Graph',
      status: 'DRAFT',
      publishedAt: null,
      brand: { id: brand.id, name: 'Graph brand' },
      category: { id: category.id },
      images: [{ id: image }],
    });
    expect(product.cover).toMatchObject({ id: image, name: 'g.png' });
    expect(product.templateDefinition.id).toBe(product.templateVersionId);
    expect(product.templateFields[ids.size!]).toBe(42);
    expect(product.templateFields[ids.doc!][0]).toMatchObject({ id: doc, name: 'g.txt' });
    const rest = await send(env, { url: `/v1/products/${product.id}`, key: editor.key });
    expect(rest.headers.etag).toBe(etag);
    const read = await graphql(env, editor.key, GET, { id: product.id });
    expect(read.body.data.product.etag).toBe(etag);
  });

  it('updateProduct, publishProduct, unpublishProduct and deleteProduct follow the REST rules, ifMatch included', async () => {
    const made = await gp.product(editor, { name: 'Life' });
    const etag = (await graphql(env, editor.key, GET, { id: made.id })).body.data.product.etag;
    const updated = await graphql(
      env,
      editor.key,
      `mutation($id: Int!, $ifMatch: String) { updateProduct(id: $id, input: { description: "d", spu: null }, ifMatch: $ifMatch) { etag product { description spu } } }`,
      { id: made.id, ifMatch: etag },
    );
    expect(updated.body.data.updateProduct.product).toEqual({ description: 'd', spu: null });
    const stale = await graphql(env, editor.key, `mutation($id: Int!, $ifMatch: String) { publishProduct(id: $id, ifMatch: $ifMatch) { etag } }`, {
      id: made.id,
      ifMatch: etag,
    });
    expect(stale.body.errors[0].extensions.code).toBe('precondition_failed');
    const published = await graphql(env, editor.key, `mutation($id: Int!) { publishProduct(id: $id) { product { status publishedAt } } }`, { id: made.id });
    expect(published.body.data.publishProduct.product.status).toBe('PUBLISHED');
    const unpublished = await graphql(env, editor.key, `mutation($id: Int!) { unpublishProduct(id: $id) { product { status publishedAt } } }`, { id: made.id });
    expect(unpublished.body.data.unpublishProduct.product).toEqual({ status: 'DRAFT', publishedAt: null });
    const deleted = await graphql(env, editor.key, `mutation($id: Int!) { deleteProduct(id: $id) { id etag } }`, { id: made.id });
    expect(deleted.body.data.deleteProduct.id).toBe(made.id);
    expect((await graphql(env, editor.key, GET, { id: made.id })).body.errors[0].extensions.code).toBe('not_found');
  });

  it('view_only sees published products only (lists and product(id)) and may not create', async () => {
    const fresh = await g.team();
    const freshEditor = await g.key(fresh, 'editable');
    const viewer = await g.key(fresh, 'view_only');
    const draft = await gp.product(freshEditor, { name: 'Draft' });
    const published = await gp.published(freshEditor);
    const list = await graphql(env, viewer.key, LIST, { status: 'DRAFT' });
    expect(list.body.data.products.items).toEqual([]);
    expect((await graphql(env, viewer.key, LIST)).body.data.products.items).toEqual([{ id: published.id, status: 'PUBLISHED' }]);
    expect((await graphql(env, viewer.key, GET, { id: draft.id })).body.errors[0].extensions.code).toBe('not_found');
    const before = await gp.snapshot(fresh.teamId);
    const create = await graphql(env, viewer.key, CREATE, { input: { name: 'No' } });
    expect(create.body.errors[0].extensions.code).toBe('forbidden');
    expect(await gp.snapshot(fresh.teamId)).toBe(before);
    const cover = await graphql(env, viewer.key, `query($id: Int!) { productVisibility(ids: [$id]) { id result } }`, { id: draft.id });
    expect(cover.body.data.productVisibility).toEqual([{ id: draft.id, result: 'NOT_VISIBLE' }]);
  });

  it('gives validation_failed with details for bad input and writes nothing', async () => {
    const before = await gp.snapshot(team.teamId);
    const res = await graphql(env, editor.key, CREATE, { input: { name: 'x'.repeat(256), imageAssetIds: [2147483647] } });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].extensions.details[0].field).toBe('name');
    expect(await gp.snapshot(team.teamId)).toBe(before);
  });

  it("another team's key gets not_found for this team's product", async () => {
    const made = await gp.published(editor);
    const intruder = await g.key(await g.team(), 'manage');
    expect((await graphql(env, intruder.key, GET, { id: made.id })).body.errors[0].extensions.code).toBe('not_found');
  });
});

describe('products with brand, category, cover and images load in a fixed number of SQL statements (dataloaders)', () => {
  let counting: CountingApp;

  beforeAll(async () => {
    counting = await countingApp(env);
  });
  afterAll(async () => counting.close());

  const QUERY = `query($n: Int) { products(pageSize: $n) { items { id brand { id name } category { id name } cover { id previewUrl } images { id name }
    relatedAssets { id } templateDefinition { id } templateFields } } }`;

  async function library(count: number) {
    const lib = await g.team();
    const key = await g.key(lib, 'manage');
    const template = await givenTemplates(env).template(key);
    const brands = [await g.brand(key), await g.brand(key), await g.brand(key)];
    const categories = await Promise.all(brands.map((b) => g.category(key, { brandId: b.id, name: 'C' })));
    const images = [await gp.image(lib), await gp.image(lib), await gp.image(lib)];
    for (let i = 0; i < count; i++) {
      await gp.product(key, {
        name: `N${i}`,
        templateId: template.id,
        brandId: brands[i % 3]!.id,
        categoryId: categories[i % 3]!.id,
        imageAssetIds: [images[i % 3]!, images[(i + 1) % 3]!],
        relatedAssetIds: [images[(i + 2) % 3]!],
      });
    }
    return key;
  }

  async function counted(key: GivenKey, n: number): Promise<{ statements: number; items: number }> {
    counting.statements.length = 0;
    const res = await counting.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: QUERY, variables: { n } }),
    });
    const body = res.json();
    expect(body.errors).toBeUndefined();
    for (const item of body.data.products.items) {
      expect(item.brand.id).toBeGreaterThan(0);
      expect(item.category.id).toBeGreaterThan(0);
      expect(item.cover.id).toBe(item.images[0].id);
      expect(item.images).toHaveLength(2);
      expect(item.templateDefinition.id).toMatch(/./);
    }
    return { statements: counting.statements.length, items: body.data.products.items.length };
  }

  it('listing 100 products takes as many statements as listing 10', async () => {
    const small = await library(10);
    const large = await library(100);
    const smallRun = await counted(small, 10);
    const largeRun = await counted(large, 100);
    expect(smallRun.items).toBe(10);
    expect(largeRun.items).toBe(100);
    expect(largeRun.statements).toBe(smallRun.statements);
    // authentication, the page, the product version and the total (counted once per version: product-totals.ts),
    // the page's template fields (one batch: they are small here), brands with categories (one read), media, pinned versions
    // and their size (admitted against the answer first: answer-budget.ts)
    expect(largeRun.statements).toBeGreaterThanOrEqual(5);
    expect(largeRun.statements).toBeLessThanOrEqual(10);
  });

  it('reads the brands and categories of a page in one statement, asked for through fragments too, and answers null for a product without them', async () => {
    const key = await library(6);
    const bare = await gp.product(key, { name: 'Bare' });
    const direct = `{ products(pageSize: 10) { items { id brand { id name } category { id name } } } }`;
    const fragments = `query { products(pageSize: 10) { ...Page } }
      fragment Page on ProductPage { items { id ... on Product { brand { id name } } ...Cat } }
      fragment Cat on Product { category { id name } }`;
    const run = async (query: string) => {
      counting.statements.length = 0;
      const res = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ query }),
      });
      return { body: res.json(), statements: [...counting.statements] };
    };
    // the first read of a page also counts its total (then memoized by product version: product-totals.ts)
    await run(direct);
    const plain = await run(direct);
    const spread = await run(fragments);
    expect(plain.body.errors).toBeUndefined();
    expect(spread.body).toEqual(plain.body);
    const items = plain.body.data.products.items as Array<{ id: number; brand: { id: number; name: string } | null; category: { id: number } | null }>;
    expect(items).toHaveLength(7);
    expect(items.find((p) => p.id === bare.id)).toEqual({ id: bare.id, brand: null, category: null });
    expect(items.filter((p) => p.id !== bare.id).every((p) => p.brand !== null && p.category !== null)).toBe(true);
    // one statement reads the page's brands and categories together, whichever way they are asked for
    for (const run of [plain, spread]) {
      const reads = run.statements.filter((sql) => /from brands\b/.test(sql) || /from categories\b/.test(sql));
      expect(reads).toHaveLength(1);
      expect(reads[0]).toMatch(/from categories\b/);
    }
    expect(spread.statements).toHaveLength(plain.statements.length);
  });
});

describe('product(id) templateDefinition, read against the answer allowance', () => {
  let counting: CountingApp;
  beforeAll(async () => {
    counting = await countingApp(env);
  });
  afterAll(async () => counting.close());

  async function definitionReads(placeholder: string): Promise<{ statements: string[] }> {
    const fields = Array.from({ length: 150 }, (_, i) => ({ key: `f${i}`, name: `Field ${i} ${'n'.repeat(100)}`, type: 'text', placeholder }));
    const template = await givenTemplates(env).template(manager, { groups: [{ name: 'Big', fields }] });
    const product = await gp.product(manager, { name: 'Pinned', templateId: template.id });
    counting.statements.length = 0;
    const res = await counting.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: `{ product(id: ${product.id}) { product { templateDefinition { id groups { fields { id placeholder } } } } } }` }),
    });
    const body = res.json();
    expect(body.errors).toBeUndefined();
    const groups = body.data.product.product.templateDefinition.groups as Array<{ fields: Array<{ placeholder: string | null }> }>;
    expect(groups.flatMap((g) => g.fields).filter((f) => f.placeholder === placeholder)).toHaveLength(150);
    return { statements: counting.statements.filter((sql) => /from template_versions\b/.test(sql)) };
  }

  it('answers product(id) with every field in one statement each: key, product with its live files, media, definition, brand with category', async () => {
    const brand = await g.brand(manager, { name: 'Counted' });
    const category = await g.category(manager, { brandId: brand.id, name: 'Counted' });
    const template = await givenTemplates(env).template(manager);
    const image = await gp.image(team, 'counted.png');
    const product = await gp.product(manager, { name: 'Counted', brandId: brand.id, categoryId: category.id, templateId: template.id, imageAssetIds: [image] });
    counting.statements.length = 0;
    const res = await counting.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: GET, variables: { id: product.id } }),
    });
    const body = res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.product.product).toMatchObject({ brand: { id: brand.id }, category: { id: category.id }, cover: { id: image } });
    expect(body.data.product.product.templateDefinition.id).toBe(product.templateVersionId);
    expect(counting.statements).toHaveLength(5);
  });

  it('reads a definition of at most 64 KiB with its size in one statement, and admits a larger one by its size before reading it', async () => {
    const small = await definitionReads('short');
    expect(small.statements).toHaveLength(1);
    expect(small.statements[0]).toMatch(/octet_length/);
    const large = await definitionReads('p'.repeat(255));
    expect(large.statements).toHaveLength(2);
    expect(large.statements[0]).toMatch(/octet_length/);
    expect(large.statements[1]).not.toMatch(/octet_length/);
  });
});

describe('signed download links in product media', () => {
  it('signs download links for an operation that asks for them (through a fragment too) and leaves them out of one that does not', async () => {
    const image = await gp.image(team, 'linked.png');
    await gp.published(manager, { name: 'Linked', imageAssetIds: [image] });
    const page = async (query: string) => {
      const res = await graphql(env, editor.key, query);
      expect(res.body.errors).toBeUndefined();
      return (res.body.data.products.items as Array<{ cover: Record<string, unknown> | null }>).filter((p) => p.cover?.id === image);
    };
    const viaFragment = await page(
      `query { products(pageSize: 100) { items { cover { ...Links } } } } fragment Links on MediaObject { id downloadUrl downloadUrlExpiresAt }`,
    );
    expect(viaFragment).toHaveLength(1);
    expect(viaFragment[0]!.cover!.downloadUrl).toMatch(/^http:\/\/127\.0\.0\.1:8080\/files\//);
    expect(viaFragment[0]!.cover!.downloadUrlExpiresAt).toMatch(/^\d{4}-/);
    const expiryOnly = await page(`{ products(pageSize: 100) { items { cover { id downloadUrlExpiresAt } } } }`);
    expect(expiryOnly[0]!.cover!.downloadUrlExpiresAt).toMatch(/^\d{4}-/);
    // asked for nothing of the link: the media objects answer the same fields, without a signature made for them
    const without = await page(`{ products(pageSize: 100) { items { cover { id name previewUrl } } } }`);
    expect(without[0]!.cover).toEqual({ id: image, name: 'linked.png', previewUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/files\//) });
  });
});
