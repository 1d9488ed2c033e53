import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/access/roles.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { type Received, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { type SyncClock, syncClock, unsigned } from '../support/sync-clock.ts';

/**
 * The sync feed (docs/products.md "Sync feed"): GET /v1/products?sync=true&changes=true. A client
 * that replays only the feed (tombstones remove, products replace, in page order) ends each cycle
 * with exactly the set and the projections a full listing gives, across deletes, unpublishes,
 * role changes, media edits and category moves.
 *
 * Time never passes in these tests (test/support/sync-clock.ts): each step's changes are moved an
 * hour into the past, and the client's saved syncedUntil with them. Entries from before the step
 * may come again; a replay tolerates that (the projection is the product as it is now).
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

type Item = { id: number; removed?: true; reason?: string; at?: string; updatedAt?: string } & Record<string, unknown>;

const get = (key: GivenKey, query: string) => send(env, { url: `/v1/products?${query}`, key: key.key });

/** Every page of a sync scan, following nextCursor to the end. */
async function scan(key: GivenKey, query: string): Promise<Received[]> {
  const pages = [await get(key, query)];
  while (pages.at(-1)!.body.pagination.nextCursor) {
    expect(pages.at(-1)!.status).toBe(200);
    pages.push(await get(key, `sync=true&cursor=${encodeURIComponent(pages.at(-1)!.body.pagination.nextCursor)}`));
    expect(pages.length).toBeLessThan(100);
  }
  expect(pages.at(-1)!.status).toBe(200);
  return pages;
}

/** A feed client: its copies by id and its saved syncedUntil. */
interface Replica {
  copies: Map<number, unknown>;
  saved: string | null;
}

/** One cycle of the feed, applied in page order; returns every item it received. */
async function cycle(key: GivenKey, replica: Replica, pageSize = 2): Promise<Item[]> {
  const after = replica.saved === null ? '' : `&updatedAfter=${await anHourBefore(replica.saved)}`;
  const pages = await scan(key, `sync=true&changes=true&pageSize=${pageSize}${after}`);
  const items = pages.flatMap((page) => page.body.data as Item[]);
  for (const item of items) {
    if (item.removed) replica.copies.delete(item.id);
    else replica.copies.set(item.id, unsigned(item));
  }
  replica.saved = pages.at(-1)!.body.pagination.syncedUntil;
  return items;
}

/** What a full ordinary listing gives the key now, by id. */
async function listing(key: GivenKey): Promise<Map<number, unknown>> {
  const all = new Map<number, unknown>();
  for (let page = 1; ; page++) {
    const res = await get(key, `page=${page}&pageSize=100`);
    expect(res.status).toBe(200);
    for (const item of res.body.data as Item[]) all.set(item.id, unsigned(item));
    if (page >= res.body.pagination.totalPages) return all;
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

describe('sync feed (changes=true): a client replaying only the feed converges on the full listing', () => {
  it('across deletes, unpublishes, role changes, media renames, replacements and recycling, and category moves', async () => {
    const team = await g.team('Feed');
    const manager = await g.key(team, 'manage');
    const client = await g.key(team, 'editable');
    const ctx: Ctx = await g.ctx(manager);
    const products = env.core.catalogue.products;
    const assets = env.core.assets;
    const replica: Replica = { copies: new Map(), saved: null };

    // step 0: a catalogue, and the first (full) cycle
    let since = await clock();
    const brand = await g.brand(manager, { name: 'Feed brand' });
    const rootA = await g.category(manager, { brandId: brand.id, name: 'Root A' });
    const rootB = await g.category(manager, { brandId: brand.id, name: 'Root B' });
    const leaf = await g.category(manager, { brandId: brand.id, name: 'Leaf', parentId: rootA.id });
    const [renamed, recycled, replaced, replacement] = [
      await gp.image(team, 'renamed.png'),
      await gp.image(team, 'recycled.png'),
      await gp.image(team, 'replaced.png'),
      await gp.image(team, 'replacement.png'),
    ];
    const withRenamed = await gp.published(manager, { name: 'With renamed', imageAssetIds: [renamed] });
    const withRecycled = await gp.published(manager, { name: 'With recycled', imageAssetIds: [recycled] });
    const withReplaced = await gp.published(manager, { name: 'With replaced', imageAssetIds: [replaced], brandId: brand.id, categoryId: leaf.id });
    const toDelete = await gp.published(manager, { name: 'To delete' });
    const toUnpublish = await gp.published(manager, { name: 'To unpublish' });
    const draft = await gp.product(manager, { name: 'Draft' });
    await settle(team.teamId, since);
    await cycle(client, replica);
    expect(replica.copies.size).toBe(6);
    await expectConverged(client, replica);

    // step 1: a delete, an unpublish, a rename, a category move (the editable key sees drafts)
    since = await clock();
    await products.softDelete(ctx, toDelete.id);
    await products.unpublish(ctx, toUnpublish.id);
    await assets.libraryEdit.updateFile(ctx, renamed, { name: 'renamed-after.png' });
    await env.core.catalogue.categories.update(ctx, leaf.id, { parentId: rootB.id });
    await settle(team.teamId, since);
    const step1 = await cycle(client, replica);
    expect(step1).toContainEqual(expect.objectContaining({ id: toDelete.id, removed: true, reason: 'deleted' }));
    expect(step1.find((item) => item.id === withRenamed.id && !item.removed)).toBeDefined();
    expect(step1.find((item) => item.id === withReplaced.id && !item.removed)).toBeDefined();
    await expectConverged(client, replica);

    // step 2: the client's role narrows to view_only: the drafts it holds are hidden
    since = await clock();
    await setRole(client, 'view_only');
    await settle(team.teamId, since);
    const step2 = await cycle(client, replica);
    expect(step2).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: toUnpublish.id, removed: true, reason: 'hidden' }),
        expect.objectContaining({ id: draft.id, removed: true, reason: 'hidden' }),
      ]),
    );
    await expectConverged(client, replica);

    // step 3: an unpublish seen by view_only, a file recycled, a file replaced by a new cover version, a publish
    since = await clock();
    await products.unpublish(ctx, withRenamed.id);
    await assets.recycleBin.deleteFile(ctx, recycled);
    await assets.versionLines.addVersion(ctx, replaced, { versionFileId: replacement, makeCover: true });
    await products.publish(ctx, toUnpublish.id);
    await settle(team.teamId, since);
    const step3 = await cycle(client, replica);
    expect(step3).toContainEqual(expect.objectContaining({ id: withRenamed.id, removed: true, reason: 'hidden' }));
    const recycledCopy = replica.copies.get(withRecycled.id) as { images: Array<{ id: number | null }> };
    expect(recycledCopy.images[0]!.id).toBeNull();
    const replacedCopy = replica.copies.get(withReplaced.id) as { images: Array<{ id: number | null }> };
    expect(replacedCopy.images[0]!.id).toBe(replacement);
    await expectConverged(client, replica);

    // step 4: the role widens to manage: drafts come back; a draft is deleted in the same step
    since = await clock();
    await setRole(client, 'manage');
    await products.softDelete(ctx, draft.id);
    await settle(team.teamId, since);
    await cycle(client, replica);
    expect(replica.copies.has(withRenamed.id)).toBe(true);
    expect(replica.copies.has(draft.id)).toBe(false);
    await expectConverged(client, replica);

    // step 5: the recycled file is restored, the category moves back
    since = await clock();
    const entries = await assets.recycleBin.list(ctx, {});
    await assets.recycleBin.restore(ctx, { ids: entries.items.map((entry) => entry.id) });
    await env.core.catalogue.categories.update(ctx, leaf.id, { parentId: rootA.id });
    await settle(team.teamId, since);
    await cycle(client, replica);
    expect((replica.copies.get(withRecycled.id) as { images: Array<{ id: number | null }> }).images[0]!.id).toBe(recycled);
    await expectConverged(client, replica);
  });

  it('a plain sync client (without changes=true) does not converge on the same history: it never hears of the delete or the rename', async () => {
    const team = await g.team('Plain');
    const manager = await g.key(team, 'manage');
    const ctx = await g.ctx(manager);
    const file = await gp.image(team, 'plain.png');
    const kept = await gp.published(manager, { name: 'Kept', imageAssetIds: [file] });
    const gone = await gp.published(manager, { name: 'Gone' });
    let since = await clock();
    await settle(team.teamId, since);
    const first = await scan(manager, 'sync=true');
    const saved = first.at(-1)!.body.pagination.syncedUntil;
    since = await clock();
    await env.core.catalogue.products.softDelete(ctx, gone.id);
    await env.core.assets.libraryEdit.updateFile(ctx, file, { name: 'plain-renamed.png' });
    await settle(team.teamId, since);
    const plain = (await scan(manager, `sync=true&updatedAfter=${await anHourBefore(saved)}`)).flatMap((p) => p.body.data as Item[]);
    expect(plain.map((item) => item.id)).not.toContain(gone.id);
    expect(plain.find((item) => item.id === kept.id && (item.images as Array<{ name: string }>)[0]!.name === 'plain-renamed.png')).toBeUndefined();
    const feed = (await scan(manager, `sync=true&changes=true&updatedAfter=${await anHourBefore(saved)}`)).flatMap((p) => p.body.data as Item[]);
    expect(feed).toContainEqual(expect.objectContaining({ id: gone.id, removed: true, reason: 'deleted' }));
    expect(feed.find((item) => item.id === kept.id && (item.images as Array<{ name: string }>)[0]!.name === 'plain-renamed.png')).toBeDefined();
  });
});

describe('sync feed: tombstones and order', () => {
  it('a tombstone is {id, removed: true, reason, at} with a six-digit at, and entries come in (at, id) ascending order', async () => {
    const team = await g.team('Shape');
    const manager = await g.key(team, 'manage');
    const ctx = await g.ctx(manager);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await gp.published(manager, { name: `Shape ${i}` }));
    const since = await clock();
    await env.core.catalogue.products.softDelete(ctx, made[1]!.id);
    await env.core.catalogue.products.update(ctx, made[3]!.id, { name: 'Shape 3 edited' });
    await env.core.catalogue.products.softDelete(ctx, made[0]!.id);
    await settle(team.teamId, since);
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    const items = (await scan(manager, 'sync=true&changes=true&pageSize=1')).flatMap((p) => p.body.data as Item[]);
    const tombstones = items.filter((item) => item.removed);
    expect(tombstones.map((t) => t.id)).toEqual([made[1]!.id, made[0]!.id]);
    for (const t of tombstones) {
      expect(Object.keys(t).sort()).toEqual(['at', 'id', 'reason', 'removed']);
      expect(t.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    }
    const positions = items.map((item) => `${item.removed ? item.at : item.updatedAt}|${String(item.id).padStart(10, '0')}`);
    expect(positions).toEqual([...positions].sort());
  });

  it('a view_only key is not told of a deleted draft it never saw, but is told (hidden) of an unpublish and (deleted) of a published product deleted', async () => {
    const team = await g.team('Roles');
    const manager = await g.key(team, 'manage');
    const viewer = await g.key(team, 'view_only');
    const ctx = await g.ctx(manager);
    const draft = await gp.product(manager, { name: 'Never seen' });
    const unpublished = await gp.published(manager, { name: 'Unpublished' });
    const deleted = await gp.published(manager, { name: 'Deleted' });
    const since = await clock();
    await env.core.catalogue.products.softDelete(ctx, draft.id);
    await env.core.catalogue.products.unpublish(ctx, unpublished.id);
    await env.core.catalogue.products.softDelete(ctx, deleted.id);
    await settle(team.teamId, since);
    const items = (await scan(viewer, 'sync=true&changes=true')).flatMap((p) => p.body.data as Item[]);
    expect(items.filter((item) => item.removed).map(({ id, reason }) => ({ id, reason }))).toEqual([
      { id: unpublished.id, reason: 'hidden' },
      { id: deleted.id, reason: 'deleted' },
    ]);
    const managerItems = (await scan(manager, 'sync=true&changes=true')).flatMap((p) => p.body.data as Item[]);
    expect(
      managerItems
        .filter((item) => item.removed)
        .map((item) => item.id)
        .sort(),
    ).toEqual([draft.id, deleted.id].sort());
  });
});

describe('sync feed: bound and filters', () => {
  it('a change logged within the last 30 seconds waits for the next cycle, like a product update (spec 4.5 upper bound)', async () => {
    const team = await g.team('Bound');
    const manager = await g.key(team, 'manage');
    const ctx = await g.ctx(manager);
    const product = await gp.published(manager, { name: 'Bound' });
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    await env.core.catalogue.products.softDelete(ctx, product.id);
    const placed = async (seconds: number) => {
      await db(`update product_changes set at = now() - ? * interval '1 second' where team_id = ?`, [seconds, team.teamId]);
      return (await scan(manager, 'sync=true&changes=true')).flatMap((p) => p.body.data as Item[]);
    };
    expect(await placed(20)).toEqual([]);
    expect(await placed(40)).toEqual([expect.objectContaining({ id: product.id, removed: true, reason: 'deleted' })]);
  });

  it('brandId selects the products repeated for a linked change; tombstones ignore the filter (as the visibility check does)', async () => {
    const team = await g.team('Filters');
    const manager = await g.key(team, 'manage');
    const ctx = await g.ctx(manager);
    const [x, y] = [await g.brand(manager, { name: 'X' }), await g.brand(manager, { name: 'Y' })];
    const file = await gp.image(team, 'shared.png');
    const inX = await gp.published(manager, { name: 'In X', brandId: x.id, imageAssetIds: [file] });
    const inY = await gp.published(manager, { name: 'In Y', brandId: y.id, imageAssetIds: [file] });
    const goneY = await gp.published(manager, { name: 'Gone Y', brandId: y.id });
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    const since = await clock();
    await env.core.assets.libraryEdit.updateFile(ctx, file, { name: 'shared-renamed.png' });
    await env.core.catalogue.products.softDelete(ctx, goneY.id);
    await settle(team.teamId, since);
    // a cycle from where the step began (moved back an hour with it)
    const items = (await scan(manager, `sync=true&changes=true&brandId=${x.id}&updatedAfter=${await anHourBefore(since)}`)).flatMap(
      (p) => p.body.data as Item[],
    );
    expect(items.map((item) => [item.id, item.removed ?? false])).toEqual([
      [inX.id, false],
      [goneY.id, true],
    ]);
    expect(items.map((item) => item.id)).not.toContain(inY.id);
  });
});

describe('sync feed: isolation between teams', () => {
  it("team B's deletes, unpublishes, media edits and category moves never appear in team A's feed", async () => {
    const teamA = await g.team('A');
    const keyA = await g.key(teamA, 'manage');
    const teamB: GivenTeam = await g.team('B');
    const keyB = await g.key(teamB, 'manage');
    const ctxB = await g.ctx(keyB);
    await gp.published(keyA, { name: 'A only' });
    const fileB = await gp.image(teamB, 'b.png');
    const brandB = await g.brand(keyB, { name: 'B brand' });
    const rootB1 = await g.category(keyB, { brandId: brandB.id, name: 'B1' });
    const rootB2 = await g.category(keyB, { brandId: brandB.id, name: 'B2' });
    const leafB = await g.category(keyB, { brandId: brandB.id, name: 'B leaf', parentId: rootB1.id });
    const bProducts = [
      await gp.published(keyB, { name: 'B deleted' }),
      await gp.published(keyB, { name: 'B unpublished' }),
      await gp.published(keyB, { name: 'B media', imageAssetIds: [fileB], brandId: brandB.id, categoryId: leafB.id }),
    ];
    const since = await clock();
    await env.core.catalogue.products.softDelete(ctxB, bProducts[0]!.id);
    await env.core.catalogue.products.unpublish(ctxB, bProducts[1]!.id);
    await env.core.assets.libraryEdit.updateFile(ctxB, fileB, { name: 'b-renamed.png' });
    await env.core.catalogue.categories.update(ctxB, leafB.id, { parentId: rootB2.id });
    await env.core.assets.recycleBin.deleteFile(ctxB, fileB);
    await settle(teamB.teamId, since);
    await settle(teamA.teamId, '1970-01-01T00:00:00Z');
    const logged = await db<{ n: number }>('select count(*)::int as n from product_changes where team_id = ?', [teamB.teamId]);
    expect(logged[0]!.n).toBeGreaterThanOrEqual(4);
    const itemsA = (await scan(keyA, 'sync=true&changes=true')).flatMap((p) => p.body.data as Item[]);
    expect(itemsA.map((item) => item.id)).toEqual([expect.any(Number)]);
    for (const product of bProducts) expect(itemsA.map((item) => item.id)).not.toContain(product.id);
    const itemsB = (await scan(keyB, 'sync=true&changes=true')).flatMap((p) => p.body.data as Item[]);
    expect(itemsB).toContainEqual(expect.objectContaining({ id: bProducts[0]!.id, removed: true }));
  });
});

describe('sync feed: the opt-in', () => {
  it('without changes=true (or with changes=false) pages are exactly the plain sync pages: no tombstones, no linked changes', async () => {
    const team = await g.team('Opt');
    const manager = await g.key(team, 'manage');
    const ctx = await g.ctx(manager);
    const file = await gp.image(team, 'opt.png');
    await gp.published(manager, { name: 'Opt kept', imageAssetIds: [file] });
    const gone = await gp.published(manager, { name: 'Opt gone' });
    await env.core.catalogue.products.softDelete(ctx, gone.id);
    await env.core.assets.libraryEdit.updateFile(ctx, file, { name: 'opt-renamed.png' });
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    const plain = (await scan(manager, 'sync=true&pageSize=1')).flatMap((p) => p.body.data as Item[]);
    const off = (await scan(manager, 'sync=true&changes=false&pageSize=1')).flatMap((p) => p.body.data as Item[]);
    expect(plain.map(unsigned)).toEqual(off.map(unsigned));
    expect(plain.some((item) => item.removed)).toBe(false);
    expect(plain).toHaveLength(1);
  });

  it('refuses changes that is not true/false, changes without sync=true, and changes with search (422 naming changes)', async () => {
    const team = await g.team('Bad');
    const manager = await g.key(team, 'manage');
    for (const query of [
      'sync=true&changes=yes',
      'changes=true',
      'sync=false&changes=false',
      'sync=true&changes=true&search=x',
      'sync=true&changes=true&changes=false',
    ]) {
      const res = await get(manager, query);
      expect(res.status, query).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'validation_failed' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('changes');
    }
  });

  it('the cursor binds the opt-in: a continuation that turns it on or off is refused, omitting it keeps it', async () => {
    const team = await g.team('Bind');
    const manager = await g.key(team, 'manage');
    for (let i = 0; i < 3; i++) await gp.published(manager, { name: `Bind ${i}` });
    await settle(team.teamId, '1970-01-01T00:00:00Z');
    const feedCursor = (await get(manager, 'sync=true&changes=true&pageSize=1')).body.pagination.nextCursor as string;
    const plainCursor = (await get(manager, 'sync=true&pageSize=1')).body.pagination.nextCursor as string;
    const off = await get(manager, `sync=true&changes=false&cursor=${encodeURIComponent(feedCursor)}`);
    expect(off.status).toBe(422);
    expect(off.body.details).toEqual([expect.objectContaining({ field: 'changes' })]);
    const on = await get(manager, `sync=true&changes=true&cursor=${encodeURIComponent(plainCursor)}`);
    expect(on.status).toBe(422);
    expect((await get(manager, `sync=true&changes=true&cursor=${encodeURIComponent(feedCursor)}`)).status).toBe(200);
    expect((await get(manager, `sync=true&cursor=${encodeURIComponent(feedCursor)}`)).status).toBe(200);
  });

  it('OpenAPI documents the changes parameter and the ProductTombstone item shape', async () => {
    const doc = (await send(env, { url: '/v1/openapi.json' })).body;
    const parameter = doc.paths['/v1/products'].get.parameters.find((p: { name: string }) => p.name === 'changes');
    expect(parameter).toMatchObject({ in: 'query', required: false });
    expect(parameter.schema.description ?? parameter.description).toContain('ProductTombstone');
    expect(doc.components.schemas.ProductTombstone.required.sort()).toEqual(['at', 'id', 'reason', 'removed']);
  });
});
