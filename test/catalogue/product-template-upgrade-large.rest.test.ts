import { describe, expect, it } from 'vitest';
import { graphql, send } from '../support/http.ts';
import { useProductWorld } from '../support/product-world.ts';

/**
 * docs/products.md "Template upgrades": the bulk preview repeats, per product, the values its
 * upgrade would drop; a product holds up to about 1 MB of them. A page is sized by the products'
 * stored fields and assessed batch by batch: REST writes it as it goes (the same envelope), GraphQL
 * counts it against GRAPHQL_MAX_RESPONSE_MB.
 */
const world = useProductWorld({ team: 'BigUpgrade', other: 'BigUpgradeOther', env: { GRAPHQL_MAX_RESPONSE_MB: '1' } });

/** textarea fields of version 1, all removed by version 2 (their values dropped). */
const FIELDS = 6;
/** Characters of each textarea value: the field's limit (65,535) less a little. */
const CHARS = 65_000;
const PRODUCTS = 12;

describe('the bulk template-upgrade preview is answered within the memory budget (docs/products.md "Template upgrades")', () => {
  it('REST answers a page of products whose dropped values are near their maximal size whole, written in batches; GraphQL past GRAPHQL_MAX_RESPONSE_MB is refused with response_too_large and a smaller page passes', async () => {
    const template = await world.gt.template(world.keys.manage, {
      groups: [
        {
          name: 'Long',
          fields: [
            { key: 'kept', name: 'Kept', type: 'text' },
            ...Array.from({ length: FIELDS }, (_, i) => ({ key: `long${i}`, name: `Long ${i}`, type: 'textarea' })),
          ],
        },
      ],
    });
    const group = template.groups[0]!;
    const long = group.fields.filter((f) => f.key.startsWith('long')).map((f) => f.id);
    const kept = group.fields.find((f) => f.key === 'kept')!.id;
    const ids: number[] = [];
    for (let p = 0; p < PRODUCTS; p++) {
      const templateFields: Record<string, unknown> = { [kept]: `k${p}` };
      long.forEach((id, i) => (templateFields[id] = String.fromCharCode(97 + ((p + i) % 26)).repeat(CHARS)));
      ids.push((await world.gp.product(world.keys.editable, { name: `Long ${p}`, templateId: template.id, templateFields })).id);
    }
    // version 2 keeps the system fields and `kept` only: every long value is dropped
    const ctx = await world.g.ctx(world.keys.manage);
    await world.env.core.catalogue.templates.update(ctx, template.id, {
      groups: [{ id: group.id, name: group.name, fields: group.fields.filter((f) => f.isSystemField || f.id === kept).map((f) => ({ id: f.id })) }],
    });

    const res = await send(world.env, { url: `/v1/products/template-upgrades?templateId=${template.id}&from=1&pageSize=100`, key: world.keys.editable.key });
    expect(res.status).toBe(200);
    // more than one 2 MB batch of stored values, written as read: no length known up front
    expect(res.headers['content-length']).toBeUndefined();
    expect(Object.keys(res.body)).toEqual(['success', 'data', 'code', 'message', 'requestId', 'pagination']);
    expect(res.body.pagination).toMatchObject({ page: 1, pageSize: 100, totalCount: PRODUCTS });
    expect(res.body.data).toMatchObject({ templateId: template.id, from: { number: 1 }, to: { number: 2 } });
    expect(Object.keys(res.body.data)).toEqual(['templateId', 'from', 'to', 'fields', 'products']);
    expect(res.body.data.fields.removed.map((f: { id: string }) => f.id).sort()).toEqual([...long].sort());
    expect(res.body.data.products.map((p: { productId: number }) => p.productId)).toEqual(ids);
    res.body.data.products.forEach((product: { removedValues: { fieldId: string; value: string }[] }, p: number) => {
      expect(product.removedValues).toHaveLength(FIELDS);
      for (const removed of product.removedValues) {
        const i = long.indexOf(removed.fieldId);
        expect(removed.value).toBe(String.fromCharCode(97 + ((p + i) % 26)).repeat(CHARS));
      }
    });
    await expect.poll(() => world.env.core.platform.answerBudget.used).toBe(0);

    // another team sees none of them
    const stranger = await send(world.env, { url: `/v1/products/template-upgrades?templateId=${template.id}&from=1`, key: world.stranger.key });
    expect(stranger.status).toBe(422);

    // GraphQL: a page of 3 products (about 1.2 MB of stored values, counted twice) is past the 1 MiB cap; a page of 1 passes
    const BULK = `query($t: String!, $n: Int) { productTemplateUpgrades(templateId: $t, from: 1, pageSize: $n) { products { productId removedValues { fieldId value } } pagination { totalCount } } }`;
    const refused = await graphql(world.env, world.keys.editable.key, BULK, { t: template.id, n: 3 });
    expect(refused.body.errors[0].extensions.code).toBe('response_too_large');
    const one = await graphql(world.env, world.keys.editable.key, BULK, { t: template.id, n: 1 });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.productTemplateUpgrades.pagination.totalCount).toBe(PRODUCTS);
    expect(one.body.data.productTemplateUpgrades.products).toHaveLength(1);
    expect(one.body.data.productTemplateUpgrades.products[0].productId).toBe(ids[0]);
    expect(one.body.data.productTemplateUpgrades.products[0].removedValues[0].value).toHaveLength(CHARS);
    // the versions' part alone is light: asked without products it is answered at any page size
    const head = await graphql(
      world.env,
      world.keys.editable.key,
      `query($t: String!) { productTemplateUpgrades(templateId: $t, from: 1, pageSize: 100) { templateId pagination { totalCount } } }`,
      {
        t: template.id,
      },
    );
    expect(head.body.errors).toBeUndefined();
    await expect.poll(() => world.env.core.platform.answerBudget.used).toBe(0);
  });
});
