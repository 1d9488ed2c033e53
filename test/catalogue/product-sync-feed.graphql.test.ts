import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey } from '../support/given.ts';
import { graphql, type Received, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { type SyncClock, syncClock, unsigned } from '../support/sync-clock.ts';

/**
 * Incremental sync and the sync feed over GraphQL: productSync calls the core operation of REST's
 * GET /v1/products?sync=true, so a client replaying only productSync(changes: true) converges on
 * the GraphQL listing, pages hold what REST's pages hold, bad arguments are refused with the same
 * codes and fields, and no team sees another's products, changes or cursors.
 */
const world = useProductWorld();
let env: TestEnv;
let g: ProductWorld['g'];
let gp: ProductWorld['gp'];
let db: SyncClock['db'];
let clock: SyncClock['clock'];
let settle: SyncClock['settle'];
let anHourBefore: SyncClock['anHourBefore'];

beforeAll(() => {
  ({ env, g, gp } = world);
  ({ db, clock, settle, anHourBefore } = syncClock(env));
});

const PRODUCT = `id name spu description status brandId categoryId ownerUserId publishedAt createdAt updatedAt draftReason templateId templateVersionId templateFields
  category { id name pathKey } cover { id name size previewUrl downloadUrl } images { id name mimeType } relatedAssets { id name }`;
const SYNC = `query($cursor: String, $pageSize: Int, $updatedAfter: String, $changes: Boolean, $search: String, $brandId: Int, $categoryId: Int, $status: ProductStatus) {
  productSync(cursor: $cursor, pageSize: $pageSize, updatedAfter: $updatedAfter, changes: $changes, search: $search, brandId: $brandId, categoryId: $categoryId, status: $status) {
    items { __typename ... on Product { ${PRODUCT} } ... on ProductTombstone { id removed reason at } }
    pagination { pageSize syncedUntil nextCursor hasMore }
  }
}`;
const LIST = `query($page: Int) { products(page: $page, pageSize: 100) { items { ${PRODUCT} } pagination { totalPages } } }`;

type Item = { __typename: 'Product' | 'ProductTombstone'; id: number; removed?: boolean; reason?: string; at?: string; updatedAt?: string } & Record<
  string,
  unknown
>;
type Vars = Record<string, unknown>;

const sync = (key: GivenKey, vars: Vars) => graphql(env, key.key, SYNC, vars);

function page(res: Received): { items: Item[]; pagination: { pageSize: number; syncedUntil: string; nextCursor: string | null; hasMore: boolean } } {
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.productSync;
}

/** Every item of a scan, following nextCursor (alone) to the end; and the last page's syncedUntil. */
async function scan(key: GivenKey, vars: Vars): Promise<{ items: Item[]; syncedUntil: string; pages: number }> {
  let current = page(await sync(key, vars));
  const items = [...current.items];
  let pages = 1;
  while (current.pagination.nextCursor !== null) {
    expect(current.pagination.hasMore).toBe(true);
    current = page(await sync(key, { cursor: current.pagination.nextCursor }));
    items.push(...current.items);
    pages += 1;
    expect(pages).toBeLessThan(100);
  }
  expect(current.pagination.hasMore).toBe(false);
  return { items, syncedUntil: current.pagination.syncedUntil, pages };
}

function errorOf(res: Received): { code: string; fields: string[] } {
  expect(res.body.data?.productSync ?? null).toBeNull();
  const error = res.body.errors[0];
  return { code: error.extensions.code, fields: (error.extensions.details ?? []).map((d: { field: string }) => d.field) };
}

interface Replica {
  copies: Map<number, unknown>;
  saved: string | null;
}

/** One cycle of productSync(changes: true), applied in page order; returns every item it received. */
async function cycle(key: GivenKey, replica: Replica): Promise<Item[]> {
  const vars: Vars = { changes: true, pageSize: 2 };
  if (replica.saved !== null) vars.updatedAfter = await anHourBefore(replica.saved);
  const { items, syncedUntil } = await scan(key, vars);
  for (const item of items) {
    if (item.__typename === 'ProductTombstone') replica.copies.delete(item.id);
    else {
      const { __typename: _typename, ...product } = item;
      replica.copies.set(item.id, unsigned(product));
    }
  }
  replica.saved = syncedUntil;
  return items;
}

/** The GraphQL listing of everything the key may see, by id. */
async function listing(key: GivenKey): Promise<Map<number, unknown>> {
  const all = new Map<number, unknown>();
  for (let n = 1; ; n++) {
    const res = await graphql(env, key.key, LIST, { page: n });
    expect(res.body.errors).toBeUndefined();
    for (const item of res.body.data.products.items as Item[]) all.set(item.id, unsigned(item));
    if (n >= res.body.data.products.pagination.totalPages) return all;
  }
}

async function expectConverged(key: GivenKey, replica: Replica): Promise<void> {
  const truth = await listing(key);
  expect([...replica.copies.keys()].sort((a, b) => a - b)).toEqual([...truth.keys()].sort((a, b) => a - b));
  for (const [id, projection] of truth) expect(replica.copies.get(id), `product ${id}`).toEqual(projection);
}

async function setRole(key: GivenKey, role: Role): Promise<void> {
  await env.core.access.setKeyRole(env.core.operatorCtx(), { keyId: key.keyId, role });
}

/** A REST scan's items as (kind, id) pairs, to compare with GraphQL's. */
async function restScan(key: GivenKey, query: string): Promise<string[]> {
  const out: string[] = [];
  let res = await send(env, { url: `/v1/products?${query}`, key: key.key });
  for (;;) {
    expect(res.status).toBe(200);
    for (const item of res.body.data as Item[]) out.push(item.removed ? `tombstone ${item.id} ${item.reason}` : `product ${item.id}`);
    const next = res.body.pagination.nextCursor;
    if (next === null) return out;
    res = await send(env, { url: `/v1/products?sync=true&cursor=${encodeURIComponent(next)}`, key: key.key });
  }
}

const pairsOf = (items: Item[]) =>
  items.map((item) => (item.__typename === 'ProductTombstone' ? `tombstone ${item.id} ${String(item.reason).toLowerCase()}` : `product ${item.id}`));

describe('productSync(changes: true): a client replaying only GraphQL pages converges on the GraphQL listing', () => {
  it('across a delete, unpublishes, a rename, a category move, a recycle, a role narrowed to view_only and widened to manage', async () => {
    const team = await g.team('GFeed');
    const manager = await g.key(team, 'manage');
    const client = await g.key(team, 'editable');
    const ctx: Ctx = await g.ctx(manager);
    const products = env.core.catalogue.products;
    const replica: Replica = { copies: new Map(), saved: null };

    let since = await clock();
    const brand = await g.brand(manager, { name: 'G brand' });
    const rootA = await g.category(manager, { brandId: brand.id, name: 'G root A' });
    const rootB = await g.category(manager, { brandId: brand.id, name: 'G root B' });
    const leaf = await g.category(manager, { brandId: brand.id, name: 'G leaf', parentId: rootA.id });
    const renamed = await gp.image(team, 'g-renamed.png');
    const recycled = await gp.image(team, 'g-recycled.png');
    const withRenamed = await gp.published(manager, { name: 'G renamed', imageAssetIds: [renamed], brandId: brand.id, categoryId: leaf.id });
    const withRecycled = await gp.published(manager, { name: 'G recycled', imageAssetIds: [recycled] });
    const toDelete = await gp.published(manager, { name: 'G delete' });
    const toUnpublish = await gp.published(manager, { name: 'G unpublish' });
    const draft = await gp.product(manager, { name: 'G draft' });
    await settle(team.teamId, since);
    await cycle(client, replica);
    expect(replica.copies.size).toBe(5);
    await expectConverged(client, replica);

    // a delete, an unpublish (the editable key sees drafts: the product row shows it), a rename, a move
    since = await clock();
    await products.softDelete(ctx, toDelete.id);
    await products.unpublish(ctx, toUnpublish.id);
    await env.core.assets.libraryEdit.updateFile(ctx, renamed, { name: 'g-renamed-after.png' });
    await env.core.catalogue.categories.update(ctx, leaf.id, { parentId: rootB.id });
    await settle(team.teamId, since);
    const step1 = await cycle(client, replica);
    expect(step1).toContainEqual({ __typename: 'ProductTombstone', id: toDelete.id, removed: true, reason: 'DELETED', at: expect.any(String) });
    expect(step1.find((item) => item.id === withRenamed.id && item.__typename === 'Product')).toBeDefined();
    await expectConverged(client, replica);

    // the role narrows to view_only: the drafts it holds are hidden
    since = await clock();
    await setRole(client, 'view_only');
    await settle(team.teamId, since);
    const step2 = await cycle(client, replica);
    expect(step2).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ __typename: 'ProductTombstone', id: toUnpublish.id, reason: 'HIDDEN' }),
        expect.objectContaining({ __typename: 'ProductTombstone', id: draft.id, reason: 'HIDDEN' }),
      ]),
    );
    await expectConverged(client, replica);

    // an unpublish seen by view_only, a file recycled
    since = await clock();
    await products.unpublish(ctx, withRenamed.id);
    await env.core.assets.recycleBin.deleteFile(ctx, recycled);
    await settle(team.teamId, since);
    const step3 = await cycle(client, replica);
    expect(step3).toContainEqual(expect.objectContaining({ __typename: 'ProductTombstone', id: withRenamed.id, reason: 'HIDDEN' }));
    expect((replica.copies.get(withRecycled.id) as { images: Array<{ id: number | null }> }).images[0]!.id).toBeNull();
    await expectConverged(client, replica);

    // the role widens to manage: drafts come back
    since = await clock();
    await setRole(client, 'manage');
    await settle(team.teamId, since);
    await cycle(client, replica);
    expect(replica.copies.has(withRenamed.id)).toBe(true);
    expect(replica.copies.has(draft.id)).toBe(true);
    await expectConverged(client, replica);
  });

  it('pages hold what REST pages hold for the same scan: the same items in the same order, with and without changes', async () => {
    const team = await g.team('GSame');
    const manager = await g.key(team, 'manage');
    const viewer = await g.key(team, 'view_only');
    const ctx = await g.ctx(manager);
    const file = await gp.image(team, 'same.png');
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await gp.published(manager, { name: `Same ${i}`, imageAssetIds: i === 2 ? [file] : [] }));
    await gp.product(manager, { name: 'Same draft' });
    await env.core.catalogue.products.softDelete(ctx, made[0]!.id);
    await env.core.catalogue.products.unpublish(ctx, made[1]!.id);
    await env.core.assets.libraryEdit.updateFile(ctx, file, { name: 'same-renamed.png' });
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    for (const key of [manager, viewer]) {
      for (const changes of [true, false]) {
        const graph = await scan(key, { changes, pageSize: 2 });
        expect(pairsOf(graph.items), `${key.role} changes=${changes}`).toEqual(await restScan(key, `sync=true&changes=${changes}&pageSize=2`));
      }
    }
    const plain = await scan(viewer, { pageSize: 2 });
    expect(plain.items.every((item) => item.__typename === 'Product')).toBe(true);
    expect(plain.items.map((item) => item.id).sort()).toEqual([made[2]!.id, made[3]!.id].sort());
  });

  it('a tombstone is { id, removed: true, reason, at } with a six-digit at; syncedUntil and pageSize come back in pagination', async () => {
    const team = await g.team('GShape');
    const manager = await g.key(team, 'manage');
    const ctx = await g.ctx(manager);
    const product = await gp.published(manager, { name: 'Shape' });
    await env.core.catalogue.products.softDelete(ctx, product.id);
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    const first = page(await sync(manager, { changes: true, pageSize: 500 }));
    expect(first.items).toEqual([{ __typename: 'ProductTombstone', id: product.id, removed: true, reason: 'DELETED', at: expect.any(String) }]);
    expect(first.items[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(first.pagination).toEqual({
      pageSize: 100,
      syncedUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      nextCursor: null,
      hasMore: false,
    });
  });
});

describe('productSync: refused arguments, with the codes and fields REST gives', () => {
  let key: GivenKey;
  let other: GivenKey;
  let cursor: string;

  beforeAll(async () => {
    const team = await g.team('GBad');
    key = await g.key(team, 'manage');
    other = await g.key(team, 'manage');
    const brand = await g.brand(key, { name: 'GBad brand' });
    for (let i = 0; i < 3; i++) await gp.published(key, { name: `Bad ${i}`, brandId: brand.id });
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    cursor = page(await sync(key, { changes: true, pageSize: 1, brandId: brand.id })).pagination.nextCursor!;
    expect(cursor).toEqual(expect.any(String));
  });

  it('a cursor not issued by this service (garbage, tampered, truncated, empty, too long) is validation_failed on cursor', async () => {
    const [body, mac] = cursor.split('.');
    const flipped = `${body!.slice(0, -2)}${body!.at(-2) === 'A' ? 'B' : 'A'}${body!.at(-1)}.${mac}`;
    for (const bad of ['not-a-cursor', flipped, cursor.slice(0, -3), '', 'x'.repeat(8193)]) {
      expect(errorOf(await sync(key, { cursor: bad })), bad.slice(0, 20)).toEqual({ code: 'validation_failed', fields: ['cursor'] });
    }
  });

  it('a cursor bound to other arguments is refused naming the argument; omitting or repeating them continues', async () => {
    const brandId = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString()).s.filters.brandId as number;
    expect(errorOf(await sync(key, { cursor, changes: false }))).toEqual({ code: 'validation_failed', fields: ['changes'] });
    expect(errorOf(await sync(key, { cursor, pageSize: 2 }))).toEqual({ code: 'validation_failed', fields: ['pageSize'] });
    expect(errorOf(await sync(key, { cursor, brandId: brandId + 1 }))).toEqual({ code: 'validation_failed', fields: ['brandId'] });
    expect(errorOf(await sync(key, { cursor, status: 'DRAFT' }))).toEqual({ code: 'validation_failed', fields: ['status'] });
    expect(errorOf(await sync(key, { cursor, updatedAfter: '2000-01-01T00:00:00Z' }))).toEqual({ code: 'validation_failed', fields: ['updatedAfter'] });
    expect(errorOf(await sync(other, { cursor }))).toEqual({ code: 'validation_failed', fields: ['cursor'] });
    expect(page(await sync(key, { cursor })).items).toHaveLength(1);
    expect(page(await sync(key, { cursor, changes: true, pageSize: 1, brandId })).items).toHaveLength(1);
  });

  it('pageSize below 1 is validation_failed on pageSize; above 100 is capped at 100', async () => {
    for (const pageSize of [0, -1]) expect(errorOf(await sync(key, { pageSize }))).toEqual({ code: 'validation_failed', fields: ['pageSize'] });
    expect(page(await sync(key, { pageSize: 101 })).pagination.pageSize).toBe(100);
    // a 32-bit overflow never reaches the core: GraphQL's Int refuses it
    expect(errorOf(await sync(key, { pageSize: 2 ** 31 })).code).toBe('validation_failed');
  });

  it('changes with search, a bad updatedAfter and a search over 1024 characters are refused naming the argument', async () => {
    expect(errorOf(await sync(key, { changes: true, search: 'x' }))).toEqual({ code: 'validation_failed', fields: ['changes'] });
    for (const updatedAfter of ['yesterday', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00.1234567Z', '2026-01-01T00:00:00']) {
      expect(errorOf(await sync(key, { updatedAfter })), updatedAfter).toEqual({ code: 'validation_failed', fields: ['updatedAfter'] });
    }
    expect(errorOf(await sync(key, { search: 'x'.repeat(1025) }))).toEqual({ code: 'validation_failed', fields: ['search'] });
  });

  it("the cost model counts a page's items pageSize times, and a continuation without pageSize as 100 (the cursor's size is not opened)", async () => {
    const heavy = (args: string) =>
      `query { productSync(${args}) { items { ... on Product { images { id name mimeType size width height duration previewUrl downloadUrl downloadUrlExpiresAt } } } } }`;
    const first = await graphql(env, key.key, heavy('changes: true'));
    expect(first.body.errors).toBeUndefined();
    const continued = await graphql(env, key.key, heavy(`cursor: ${JSON.stringify(cursor)}`));
    expect(continued.body.errors[0].extensions).toMatchObject({ code: 'query_too_complex', limit: 60000 });
    const sized = await graphql(env, key.key, heavy(`cursor: ${JSON.stringify(cursor)}, pageSize: 1`));
    expect(sized.body.errors).toBeUndefined();
  });
});

describe('productSync: isolation between teams', () => {
  it("team B's products, deletes, unpublishes, media edits and category moves never appear in team A's pages, and B's cursor is refused for A", async () => {
    const teamA = await g.team('GA');
    const keyA = await g.key(teamA, 'manage');
    const teamB = await g.team('GB');
    const keyB = await g.key(teamB, 'manage');
    const ctxB = await g.ctx(keyB);
    const onlyA = await gp.published(keyA, { name: 'GA only' });
    const fileB = await gp.image(teamB, 'gb.png');
    const brandB = await g.brand(keyB, { name: 'GB brand' });
    const rootB1 = await g.category(keyB, { brandId: brandB.id, name: 'GB1' });
    const rootB2 = await g.category(keyB, { brandId: brandB.id, name: 'GB2' });
    const leafB = await g.category(keyB, { brandId: brandB.id, name: 'GB leaf', parentId: rootB1.id });
    const bProducts = [
      await gp.published(keyB, { name: 'GB deleted' }),
      await gp.published(keyB, { name: 'GB unpublished' }),
      await gp.published(keyB, { name: 'GB media', imageAssetIds: [fileB], brandId: brandB.id, categoryId: leafB.id }),
      await gp.published(keyB, { name: 'GB kept' }),
    ];
    const since = await clock();
    await env.core.catalogue.products.softDelete(ctxB, bProducts[0]!.id);
    await env.core.catalogue.products.unpublish(ctxB, bProducts[1]!.id);
    await env.core.assets.libraryEdit.updateFile(ctxB, fileB, { name: 'gb-renamed.png' });
    await env.core.catalogue.categories.update(ctxB, leafB.id, { parentId: rootB2.id });
    await env.core.assets.recycleBin.deleteFile(ctxB, fileB);
    await settle(teamB.teamId, since);
    await settle(teamA.teamId, '1970-01-01T00:00:00Z');
    const logged = await db<{ n: number }>('select count(*)::int as n from product_changes where team_id = ?', [teamB.teamId]);
    expect(logged[0]!.n).toBeGreaterThanOrEqual(4);

    for (const changes of [true, false]) {
      const itemsA = (await scan(keyA, { changes, pageSize: 1 })).items;
      expect(itemsA.map((item) => [item.__typename, item.id])).toEqual([['Product', onlyA.id]]);
    }
    // B's own feed has them, and B's cursor does not open A's scan (nor the other way round)
    const pageB = page(await sync(keyB, { changes: true, pageSize: 1 }));
    const itemsB = (await scan(keyB, { changes: true, pageSize: 1 })).items;
    expect(itemsB).toContainEqual(expect.objectContaining({ __typename: 'ProductTombstone', id: bProducts[0]!.id, reason: 'DELETED' }));
    expect(errorOf(await sync(keyA, { cursor: pageB.pagination.nextCursor }))).toEqual({ code: 'validation_failed', fields: ['cursor'] });
    // a brand or category id of team B selects nothing for team A
    expect(page(await sync(keyA, { changes: true, brandId: brandB.id })).items).toEqual([]);
    expect(page(await sync(keyA, { changes: true, categoryId: leafB.id })).items).toEqual([]);
  });
});
