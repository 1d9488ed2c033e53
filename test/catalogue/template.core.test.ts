import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { DomainError } from '../../src/core/platform/errors.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { givenCategories } from '../support/given-categories.ts';
import { givenTemplates, textField } from '../support/given-templates.ts';

/** Core reads products rely on: template resolution (spec 4.5) and pinned versions (spec 2.5, 3.3). */
let env: TestEnv;
let g: ReturnType<typeof given>;
let c: ReturnType<typeof givenCategories>;
let t: ReturnType<typeof givenTemplates>;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  c = givenCategories(env);
  t = givenTemplates(env);
});
afterAll(async () => env.close());

async function library(): Promise<{ key: GivenKey; ctx: Ctx }> {
  const key = await g.key(await g.team(), 'manage');
  return { key, ctx: await g.ctx(key) };
}

async function latest(ctx: Ctx, templateId: string): Promise<string> {
  return (await env.core.catalogue.templates.latestVersionId(ctx, templateId))!;
}

async function rejection(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('resolveForProduct (spec 4.5 template resolution at creation)', () => {
  it('takes an explicit templateId first, over category, brand and default bindings, pinning its newest version', async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    const cat = await c.category(key, brand.id);
    await t.template(key, { isLibraryDefault: true, boundBrandIds: [brand.id], boundCategoryIds: [cat.id] });
    const explicit = await t.template(key);
    await env.core.catalogue.templates.update(ctx, explicit.id, { description: 'v2' });
    const resolved = await env.core.catalogue.templates.resolveForProduct(ctx, { templateId: explicit.id, brandId: brand.id, categoryId: cat.id });
    expect(resolved).toEqual({ templateId: explicit.id, versionId: await latest(ctx, explicit.id) });
  });

  it('rejects an explicit templateId that is deleted, unknown or of another library with validation_failed on templateId', async () => {
    const { key, ctx } = await library();
    const gone = await t.template(key);
    await env.core.catalogue.templates.softDelete(ctx, gone.id, {});
    const foreign = await t.template((await library()).key);
    for (const templateId of [gone.id, 'tpl_unknown', foreign.id]) {
      const error = await rejection(env.core.catalogue.templates.resolveForProduct(ctx, { templateId }));
      expect(error.code).toBe('validation_failed');
      expect(error.details?.[0]?.field).toBe('templateId');
    }
  });

  it("uses the category's own binding first", async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    const parent = await c.category(key, brand.id);
    const child = await c.category(key, brand.id, { parentId: parent.id });
    await t.template(key, { boundCategoryIds: [parent.id] });
    const own = await t.template(key, { boundCategoryIds: [child.id] });
    await t.template(key, { boundBrandIds: [brand.id], isLibraryDefault: true });
    expect(await env.core.catalogue.templates.resolveForProduct(ctx, { categoryId: child.id })).toEqual({
      templateId: own.id,
      versionId: await latest(ctx, own.id),
    });
  });

  it('uses the nearest bound ancestor when the category itself is unbound', async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    const root = await c.category(key, brand.id);
    const middle = await c.category(key, brand.id, { parentId: root.id });
    const leaf = await c.category(key, brand.id, { parentId: middle.id });
    await t.template(key, { boundCategoryIds: [root.id] });
    const nearest = await t.template(key, { boundCategoryIds: [middle.id] });
    await t.template(key, { boundBrandIds: [brand.id] });
    expect((await env.core.catalogue.templates.resolveForProduct(ctx, { categoryId: leaf.id }))?.templateId).toBe(nearest.id);
  });

  it("falls back to the binding of the category's brand when no category in the chain is bound", async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    const other = await g.brand(key);
    const cat = await c.category(key, brand.id, {});
    const child = await c.category(key, brand.id, { parentId: cat.id });
    const byBrand = await t.template(key, { boundBrandIds: [brand.id] });
    await t.template(key, { boundBrandIds: [other.id], isLibraryDefault: true });
    // brandId in the input does not matter: the category's brand decides
    expect((await env.core.catalogue.templates.resolveForProduct(ctx, { categoryId: child.id, brandId: other.id }))?.templateId).toBe(byBrand.id);
  });

  it('falls back to the library default when neither the category chain nor its brand is bound', async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    const fallback = await t.template(key, { isLibraryDefault: true, boundBrandIds: [(await g.brand(key)).id] });
    const cat = await c.category(key, brand.id);
    expect(await env.core.catalogue.templates.resolveForProduct(ctx, { categoryId: cat.id })).toEqual({
      templateId: fallback.id,
      versionId: await latest(ctx, fallback.id),
    });
  });

  it('resolves to null when a category has no binding anywhere and the library has no default', async () => {
    const { key, ctx } = await library();
    const cat = await c.category(key, (await g.brand(key)).id);
    await t.template(key);
    expect(await env.core.catalogue.templates.resolveForProduct(ctx, { categoryId: cat.id })).toBeNull();
  });

  it('considers only the library default without a category, even when brandId is bound', async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    await t.template(key, { boundBrandIds: [brand.id] });
    expect(await env.core.catalogue.templates.resolveForProduct(ctx, { brandId: brand.id })).toBeNull();
    expect(await env.core.catalogue.templates.resolveForProduct(ctx, { brandId: brand.id, categoryId: null, templateId: null })).toBeNull();
    const fallback = await t.template(key, { isLibraryDefault: true });
    expect((await env.core.catalogue.templates.resolveForProduct(ctx, { brandId: brand.id }))?.templateId).toBe(fallback.id);
    expect((await env.core.catalogue.templates.resolveForProduct(ctx, {}))?.templateId).toBe(fallback.id);
  });

  it('rejects a deleted category or one of another library with validation_failed on categoryId', async () => {
    const { key, ctx } = await library();
    const cat = await c.category(key, (await g.brand(key)).id);
    await c.deleteCategory(key, cat.id);
    const other = await library();
    const foreign = await c.category(other.key, (await g.brand(other.key)).id);
    for (const categoryId of [cat.id, foreign.id]) {
      const error = await rejection(env.core.catalogue.templates.resolveForProduct(ctx, { categoryId }));
      expect(error.details?.[0]?.field).toBe('categoryId');
    }
  });

  it('resolves a disabled template like any other (enabled plays no part in resolution)', async () => {
    const { key, ctx } = await library();
    const disabled = await t.template(key, { enabled: false, isLibraryDefault: true });
    expect((await env.core.catalogue.templates.resolveForProduct(ctx, {}))?.templateId).toBe(disabled.id);
  });

  it('never resolves to a deleted template (its bindings and default designation go with it)', async () => {
    const { key, ctx } = await library();
    const brand = await g.brand(key);
    const cat = await c.category(key, brand.id);
    const bound = await t.template(key, { boundCategoryIds: [cat.id], boundBrandIds: [brand.id], isLibraryDefault: true });
    await env.core.catalogue.templates.softDelete(ctx, bound.id, { replacementForLibraryDefault: null });
    expect(await env.core.catalogue.templates.resolveForProduct(ctx, { categoryId: cat.id })).toBeNull();
  });
});

describe('getVersion / latestVersionId (pinned definitions, spec 2.5, 3.3)', () => {
  it('returns each version with its own definition; later writes and deletion change none of them', async () => {
    const { key, ctx } = await library();
    const tpl = await t.template(key, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const v1 = await latest(ctx, tpl.id);
    await env.core.catalogue.templates.update(ctx, tpl.id, {
      name: 'Renamed',
      groups: [{ id: tpl.groups[0]!.id, name: 'G', fields: tpl.groups[0]!.fields.filter((f) => f.isSystemField).map((f) => ({ id: f.id })) }],
    });
    const v2 = await latest(ctx, tpl.id);
    expect(v2).not.toBe(v1);
    const first = await env.core.catalogue.templates.getVersion(ctx, v1);
    expect(first).toMatchObject({ id: v1, templateId: tpl.id, number: 1, name: tpl.name, groups: tpl.groups });
    expect(first.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await env.core.catalogue.templates.softDelete(ctx, tpl.id, {});
    expect(await env.core.catalogue.templates.getVersion(ctx, v1)).toEqual(first);
    expect((await env.core.catalogue.templates.getVersion(ctx, v2)).groups[0]!.fields.map((f) => f.key)).toEqual(['name', 'sku', 'mainImage']);
    expect(await env.core.catalogue.templates.latestVersionId(ctx, tpl.id)).toBeNull();
  });

  it("gives not_found for another library's version and for an unknown id", async () => {
    const { key, ctx } = await library();
    const tpl = await t.template(key);
    const version = await latest(ctx, tpl.id);
    const other = await library();
    expect((await rejection(env.core.catalogue.templates.getVersion(other.ctx, version))).code).toBe('not_found');
    expect((await rejection(env.core.catalogue.templates.getVersion(ctx, 'tv_unknown'))).code).toBe('not_found');
  });

  it('adds one numbered version per write and never rewrites an earlier one', async () => {
    const { key, ctx } = await library();
    const tpl = await t.template(key);
    for (let i = 0; i < 3; i++) await env.core.catalogue.templates.update(ctx, tpl.id, { description: `d${i}` });
    const rows = await env.orm.em
      .fork()
      .execute<{ number: number; description: string | null }[]>('select number, description from template_versions where template_id = ? order by number', [
        tpl.id,
      ]);
    expect(rows).toEqual([
      { number: 1, description: null },
      { number: 2, description: 'd0' },
      { number: 3, description: 'd1' },
      { number: 4, description: 'd2' },
    ]);
  });
});
