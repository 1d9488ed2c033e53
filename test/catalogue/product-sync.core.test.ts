import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProductService } from '../../src/core/catalogue/products/product.service.ts';
import { collectPage } from '../../src/core/platform/answer-budget.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';

/** The sync scan budget (docs/products.md): a search examines a bounded window per page. */
let env: TestEnv;
let ctx: Ctx;
let service: ProductService;
let matching: number[];

beforeAll(async () => {
  env = await createTestEnv();
  const g = given(env);
  const team = await g.team();
  ctx = await g.ctx(await g.key(team, 'editable'));
  // three rows examined per page at most, so a rare term meets pages with nothing to show
  service = new ProductService({
    library: env.core.assets.library,
    templates: env.core.catalogue.templates,
    cursorSecret: env.config.linkSigningSecret,
    syncScanLimit: 3,
  });
  matching = [];
  for (let i = 0; i < 10; i++) {
    const made = await env.core.catalogue.products.create(ctx, { name: i === 1 || i === 8 ? `needle ${i}` : `hay ${i}` });
    if (i === 1 || i === 8) matching.push(made.body.id);
  }
  await env.orm.em
    .fork()
    .execute(`update products set updated_at = now() - interval '1 hour' + id * interval '1 millisecond' where team_id = ?`, [team.teamId]);
});
afterAll(async () => env.close());

describe('sync pages with search under a scan budget', () => {
  it('keeps hasMore true (with a cursor) across empty pages until the window is exhausted, and finds every match once', async () => {
    const pages: Array<{ ids: number[]; hasMore: boolean; nextCursor: string | null }> = [];
    let cursor: string | undefined;
    do {
      const listed = await service.list(ctx, { sync: 'true', pageSize: 1, search: 'needle', ...(cursor ? { cursor } : {}) });
      if (listed.mode !== 'sync') throw new Error('expected a sync page');
      const page = await collectPage(ctx, listed.page);
      pages.push({ ids: page.items.map((p) => p.id), hasMore: page.pagination.hasMore, nextCursor: page.pagination.nextCursor });
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor && pages.length < 50);
    expect(pages.flatMap((p) => p.ids)).toEqual(matching);
    expect(pages.some((p) => p.ids.length === 0 && p.hasMore && p.nextCursor !== null)).toBe(true);
    for (const page of pages) expect(page.hasMore).toBe(page.nextCursor !== null);
    expect(pages.at(-1)).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('without search, a page is filled from the window (the budget does not apply)', async () => {
    const listed = await service.list(ctx, { sync: 'true', pageSize: 5 });
    if (listed.mode !== 'sync') throw new Error('expected a sync page');
    const page = await collectPage(ctx, listed.page);
    expect(page.items).toHaveLength(5);
    expect(page.pagination).toMatchObject({ hasMore: true });
  });
});
