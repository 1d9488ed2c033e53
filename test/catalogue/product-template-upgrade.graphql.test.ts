import { describe, expect, it } from 'vitest';
import { graphql } from '../support/http.ts';
import { useTemplateUpgrade } from './product-template-upgrade.support.ts';

const { world, upgradeTemplate, snapshot } = useTemplateUpgrade({ team: 'UpgradeGql', other: 'UpgradeGqlOther' });

const PREVIEW = `query($id: Int!, $to: Int) { productTemplateUpgrade(productId: $id, to: $to) {
  productId status templateId etag from { versionId number } to { versionId number }
  fields { added { id key required } removed { id key } retyped { id fromType toType } }
  removedValues { field fieldId name value reason } invalidValues { fieldId value reason }
  publishable missing { field message } canStayPublished ready blocking { field message } } }`;

const UPGRADE = `mutation($id: Int!, $to: Int, $drop: [String!], $ifMatch: String) {
  upgradeProductTemplate(productId: $id, to: $to, input: { drop: $drop }, ifMatch: $ifMatch) { etag product { templateVersionId templateFields draftReason } } }`;

const BULK = `query($templateId: String!, $from: Int!, $to: Int, $page: Int, $pageSize: Int) {
  productTemplateUpgrades(templateId: $templateId, from: $from, to: $to, page: $page, pageSize: $pageSize) {
    templateId from { number } to { number } fields { added { key } }
    products { productId status ready invalidValues { fieldId } canStayPublished } pagination { page pageSize totalCount totalPages } } }`;

describe('GraphQL template upgrades', () => {
  it('previews, refuses what the preview says blocks, and upgrades with drop through the same core operations as REST', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, {
      name: 'Vase',
      templateId: template.id,
      templateFields: { [fields.colour]: 'blue', [fields.legacy]: 'x', [fields.note]: 'n' },
    });
    await advance(2);
    const key = world.keys.editable.key;

    const preview = await graphql(world.env, key, PREVIEW, { id: product.id, to: 2 });
    expect(preview.body.errors).toBeUndefined();
    const report = preview.body.data.productTemplateUpgrade;
    expect(report).toMatchObject({
      productId: product.id,
      status: 'DRAFT',
      templateId: template.id,
      from: { number: 1 },
      to: { number: 2 },
      ready: false,
      canStayPublished: null,
      publishable: false,
    });
    expect(report.fields.added).toEqual([{ id: fields.material, key: 'material', required: true }]);
    expect(report.fields.retyped).toEqual([{ id: fields.weight, fromType: 'NUMBER', toType: 'TEXT' }]);
    expect(report.removedValues).toEqual([expect.objectContaining({ fieldId: fields.legacy, value: 'x', name: 'Legacy code' })]);
    expect(report.invalidValues).toEqual([expect.objectContaining({ fieldId: fields.colour, value: 'blue' })]);

    const before = await snapshot();
    const refused = await graphql(world.env, key, UPGRADE, { id: product.id, to: 2, ifMatch: report.etag });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: `templateFields.${fields.colour}` }] });
    const missing = await graphql(world.env, key, UPGRADE, { id: product.id, to: 2, drop: [fields.colour] });
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'If-Match' }] });
    const stale = await graphql(world.env, key, UPGRADE, { id: product.id, to: 2, drop: [fields.colour], ifMatch: '"stale"' });
    expect(stale.body.errors[0].extensions.code).toBe('precondition_failed');
    const notNewer = await graphql(world.env, key, PREVIEW, { id: product.id, to: 1 });
    expect(notNewer.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'to' }] });
    expect(await snapshot()).toBe(before);

    const done = await graphql(world.env, key, UPGRADE, { id: product.id, to: 2, drop: [fields.colour], ifMatch: report.etag });
    expect(done.body.errors).toBeUndefined();
    const result = done.body.data.upgradeProductTemplate;
    expect(result.product).toMatchObject({ templateFields: { [fields.note]: 'n' }, draftReason: expect.stringContaining('Material') });
    expect(result.etag).not.toBe(report.etag);
    const reread = await graphql(world.env, key, `query($id: Int!) { product(id: $id) { etag product { templateVersionId } } }`, { id: product.id });
    expect(reread.body.data.product).toEqual({ etag: result.etag, product: { templateVersionId: result.product.templateVersionId } });
  });

  it("refuses view_only and usable (forbidden) and hides another team's product (not_found)", async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const published = await world.gp.published(world.keys.editable, { templateId: template.id, templateFields: { [fields.note]: 'n' } });
    await advance(2);
    const preview = await graphql(world.env, world.keys.editable.key, PREVIEW, { id: published.id, to: 2 });
    expect(preview.body.data.productTemplateUpgrade).toMatchObject({ canStayPublished: false, blocking: [{ field: `templateFields.${fields.material}` }] });
    const before = await snapshot();
    for (const key of [world.keys.view_only.key, world.keys.usable.key]) {
      expect((await graphql(world.env, key, PREVIEW, { id: published.id, to: 2 })).body.errors[0].extensions.code).toBe('forbidden');
      expect((await graphql(world.env, key, BULK, { templateId: template.id, from: 1 })).body.errors[0].extensions.code).toBe('forbidden');
      const forbidden = await graphql(world.env, key, UPGRADE, { id: published.id, to: 2, ifMatch: preview.body.data.productTemplateUpgrade.etag });
      expect(forbidden.body.errors[0].extensions.code).toBe('forbidden');
    }
    const stranger = await graphql(world.env, world.stranger.key, PREVIEW, { id: published.id, to: 2 });
    expect(stranger.body.errors[0].extensions.code).toBe('not_found');
    expect(await snapshot()).toBe(before);
  });

  it('previews every product pinned to a version in bounded pages', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const ids: number[] = [];
    for (const colour of ['red', 'blue', 'red'])
      ids.push((await world.gp.product(world.keys.editable, { name: colour, templateId: template.id, templateFields: { [fields.colour]: colour } })).id);
    await advance(2);
    const res = await graphql(world.env, world.keys.editable.key, BULK, { templateId: template.id, from: 1, to: 2, pageSize: 2 });
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.productTemplateUpgrades;
    expect(page).toMatchObject({
      templateId: template.id,
      from: { number: 1 },
      to: { number: 2 },
      fields: { added: [{ key: 'material' }] },
      pagination: { page: 1, pageSize: 2, totalCount: 3, totalPages: 2 },
    });
    expect(page.products).toEqual([
      { productId: ids[0], status: 'DRAFT', ready: true, invalidValues: [], canStayPublished: null },
      { productId: ids[1], status: 'DRAFT', ready: false, invalidValues: [{ fieldId: fields.colour }], canStayPublished: null },
    ]);
    // every field of the bulk preview at the largest page stays within the query cost limit
    const everything = `query($t: String!) { productTemplateUpgrades(templateId: $t, from: 1, pageSize: 100) { templateId from { versionId number } to { versionId number }
      fields { added { id key name type required } removed { id key name type required } retyped { id key name fromType toType } }
      products { productId status removedValues { field fieldId name value reason } invalidValues { field fieldId name value reason }
        publishable missing { field message } canStayPublished ready blocking { field message } } pagination { page pageSize totalCount totalPages } } }`;
    const full = await graphql(world.env, world.keys.editable.key, everything, { t: template.id });
    expect(full.body.errors, JSON.stringify(full.body.errors)).toBeUndefined();
    expect(full.body.data.productTemplateUpgrades.products).toHaveLength(3);
    const bad = await graphql(world.env, world.keys.editable.key, BULK, { templateId: template.id, from: 7 });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'from' }] });
  });
});
