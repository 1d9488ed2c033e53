import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { send } from '../support/http.ts';
import { countingApp } from '../support/query-counter.ts';
import { useTemplateUpgrade } from './product-template-upgrade.support.ts';

const { world, upgradeTemplate, preview, upgrade, etagOf, snapshot, expectRefused } = useTemplateUpgrade();

/** A draft of the template at v1 with a value in every custom field: blue, 5, legacy text, a .txt datasheet, a note. */
async function productWithEveryValue(templateId: string, fields: Awaited<ReturnType<typeof upgradeTemplate>>['fields']) {
  const datasheet = await world.gp.textFile(world.team, 'sheet.txt');
  const product = await world.gp.product(world.keys.editable, {
    name: 'Lamp',
    templateId,
    templateFields: { [fields.colour]: 'blue', [fields.weight]: 5, [fields.legacy]: 'L-1', [fields.datasheet]: [datasheet], [fields.note]: 'keep me' },
  });
  return { product, datasheet };
}

describe('GET /v1/products/{id}/template-upgrade: the preview', () => {
  it('reports fields added, removed and retyped, every value dropped or failing with its reason, and publishability; changes nothing', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const { product, datasheet } = await productWithEveryValue(template.id, fields);
    await advance(2);
    const before = await snapshot();
    const res = await preview(product.id);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(await etagOf(product.id));
    const report = res.body.data;
    expect(report).toMatchObject({
      productId: product.id,
      status: 'draft',
      templateId: template.id,
      from: { versionId: product.templateVersionId, number: 1 },
      to: { number: 2 },
    });
    expect(report.fields.added).toEqual([{ id: fields.material, key: 'material', name: 'Material', type: 'text', required: true }]);
    expect(report.fields.removed).toEqual([{ id: fields.legacy, key: 'legacy', name: 'Legacy code', type: 'text', required: false }]);
    expect(report.fields.retyped).toEqual([{ id: fields.weight, key: 'weight', name: 'Weight', fromType: 'number', toType: 'text' }]);
    expect(report.removedValues).toEqual([
      {
        field: `templateFields.${fields.legacy}`,
        fieldId: fields.legacy,
        name: 'Legacy code',
        value: 'L-1',
        reason: expect.stringContaining('version 2 has no such field'),
      },
    ]);
    const invalid = Object.fromEntries(report.invalidValues.map((v: { fieldId: string }) => [v.fieldId, v]));
    expect(Object.keys(invalid).sort()).toEqual([fields.colour, fields.weight, fields.datasheet].sort());
    expect(invalid[fields.colour]).toMatchObject({ value: 'blue', reason: expect.stringContaining('non-archived option') });
    expect(invalid[fields.weight]).toMatchObject({ value: 5, reason: expect.stringContaining('must be a string') });
    expect(invalid[fields.datasheet]).toMatchObject({ value: [datasheet], reason: expect.stringContaining('not of an accepted type (.pdf)') });
    expect(report).toMatchObject({ publishable: false, canStayPublished: null, ready: false });
    expect(report.missing).toEqual([{ field: `templateFields.${fields.material}`, message: expect.stringContaining('Material') }]);
    // a draft may lack values: only the invalid values block it
    expect(report.blocking.map((b: { field: string }) => b.field).sort()).toEqual(report.invalidValues.map((v: { field: string }) => v.field).sort());
    expect(await snapshot()).toBe(before);
  });

  it('reports a product whose values all fit as ready, and moves to the current version when `to` is omitted', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, {
      name: 'Chair',
      templateId: template.id,
      templateFields: { [fields.colour]: 'red', [fields.note]: 'n' },
    });
    await advance(2);
    await advance(3);
    const res = await preview(product.id, '');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ to: { number: 3 }, removedValues: [], invalidValues: [], ready: true, blocking: [] });
  });
});

describe('POST /v1/products/{id}/template-upgrade: the upgrade', () => {
  it("is refused with the preview's blocking issues while a value fails and drop does not name it; nothing changes", async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const { product } = await productWithEveryValue(template.id, fields);
    await advance(2);
    const blocking = (await preview(product.id)).body.data.blocking;
    const before = await snapshot();
    const res = await upgrade(product.id, { ifMatch: await etagOf(product.id), body: { drop: [fields.colour] } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, data: null, code: 'validation_failed' });
    expect(res.body.details).toEqual(blocking.filter((b: { field: string }) => b.field !== `templateFields.${fields.colour}`));
    expect(await snapshot()).toBe(before);
  });

  it('with every failing value named in drop: re-pins, keeps valid values, drops the rest, recomputes draftReason, writes history and activity, changes the ETag', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const { product } = await productWithEveryValue(template.id, fields);
    await advance(2);
    const previewed = await preview(product.id);
    const res = await upgrade(product.id, {
      ifMatch: previewed.headers.etag!,
      body: { drop: [fields.colour, fields.weight, fields.datasheet] },
      query: '?to=2',
    });
    expect(res.status).toBe(200);
    const upgraded = res.body.data;
    expect(upgraded.templateVersionId).toBe(previewed.body.data.to.versionId);
    expect(upgraded.templateFields).toEqual({ [fields.note]: 'keep me' });
    expect(upgraded.templateDefinition.groups[0].fields.map((f: { key: string }) => f.key)).toContain('material');
    expect(upgraded.draftReason).toContain(`templateFields.${fields.material} ("Material")`);
    expect(res.headers.etag).not.toBe(previewed.headers.etag);
    expect(res.headers.etag).toBe(await etagOf(product.id));
    expect(upgraded.updatedAt > product.updatedAt).toBe(true);

    const history = await send(world.env, { url: `/v1/products/${product.id}/history`, key: world.keys.editable.key });
    const [entry] = history.body.data;
    expect(entry).toMatchObject({ action: 'template_upgraded', keyId: world.keys.editable.keyId, role: 'editable' });
    const changed = Object.fromEntries(entry.changes.map((c: { field: string; before: unknown; after: unknown }) => [c.field, c]));
    expect(changed.templateVersionId).toEqual({ field: 'templateVersionId', before: product.templateVersionId, after: upgraded.templateVersionId });
    expect(changed[`templateFields.${fields.legacy}`]).toMatchObject({ before: 'L-1', after: null });
    expect(changed[`templateFields.${fields.colour}`]).toMatchObject({ before: 'blue', after: null });
    expect(changed[`templateFields.${fields.note}`]).toBeUndefined();
    const activity = await send(world.env, { url: `/v1/activity-records?resourceType=product&resourceId=${product.id}`, key: world.keys.manage.key });
    expect(activity.body.data[0]).toMatchObject({ action: 'template_upgraded', resourceId: String(product.id) });
  });

  it('upgrades a product whose values all fit without drop, with the ETag the preview gave', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, {
      name: 'Desk',
      templateId: template.id,
      templateFields: { [fields.colour]: 'red', [fields.weight]: 2 },
    });
    await advance(2);
    const previewed = await preview(product.id);
    expect(previewed.body.data.invalidValues.map((v: { fieldId: string }) => v.fieldId)).toEqual([fields.weight]);
    const dropped = await upgrade(product.id, { ifMatch: previewed.headers.etag!, body: { drop: [fields.weight] } });
    expect(dropped.status).toBe(200);
    expect(dropped.body.data.templateFields).toEqual({ [fields.colour]: 'red' });
  });

  it('keeps a published product published when it stays complete, and refuses one that would lack a required value until it is unpublished', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const published = await world.gp.published(world.keys.editable, { templateId: template.id, templateFields: { [fields.note]: 'n' } });
    await advance(2);
    const report = (await preview(published.id)).body.data;
    expect(report).toMatchObject({ status: 'published', publishable: false, canStayPublished: false, ready: false });
    expect(report.blocking.map((b: { field: string }) => b.field)).toEqual([`templateFields.${fields.material}`]);
    await expectRefused(
      async () => upgrade(published.id, { ifMatch: await etagOf(published.id) }),
      422,
      'validation_failed',
      `templateFields.${fields.material}`,
    );

    await send(world.env, { method: 'POST', url: `/v1/products/${published.id}/unpublish`, key: world.keys.editable.key });
    const res = await upgrade(published.id, { ifMatch: await etagOf(published.id) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'draft', templateFields: { [fields.note]: 'n' } });
  });

  it('lets one of two upgrades racing with the same If-Match win; the other gets 412 and writes nothing', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, { name: 'Race', templateId: template.id, templateFields: { [fields.note]: 'n' } });
    await advance(2);
    const etag = await etagOf(product.id);
    const results = await Promise.all([upgrade(product.id, { ifMatch: etag }), upgrade(product.id, { ifMatch: etag })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    const [row] = await world.env.orm.em
      .fork()
      .execute<Array<{ n: number }>>(`select count(*)::int as n from product_history where product_id = ? and action = 'template_upgraded'`, [product.id]);
    expect(row!.n).toBe(1);
  });

  it('waits for a template deletion in progress and then refuses the retired version, changing nothing', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, { name: 'Held', templateId: template.id, templateFields: { [fields.note]: 'n' } });
    await advance(2);
    const etag = await etagOf(product.id);
    const before = await snapshot();
    const holder = new pg.Client({ connectionString: world.env.config.databaseUrl });
    await holder.connect();
    try {
      // a deletion holds the template row as deleteTemplate does, and has not committed yet
      await holder.query('begin');
      await holder.query('select 1 from product_info_templates where id = $1 for update', [template.id]);
      const pending = upgrade(product.id, { ifMatch: etag });
      await expect
        .poll(
          async () => {
            const [row] = await world.env.orm.em
              .fork()
              .execute<Array<{ n: number }>>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
            return row!.n;
          },
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1);
      await holder.query('update product_info_templates set deleted_at = now() where id = $1', [template.id]);
      await holder.query('commit');
      const res = await pending;
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: 'to', message: expect.stringContaining('retired') }]);
    } finally {
      await holder.end();
    }
    expect(await snapshot()).toBe(before);
  });

  it('keeps a product published across a version that adds no requirement', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    await advance(2);
    const published = await world.gp.published(world.keys.editable, { templateId: template.id, templateFields: { [fields.material]: 'oak' } });
    await advance(3);
    const res = await upgrade(published.id, { query: '?to=3', ifMatch: await etagOf(published.id) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'published', draftReason: null, templateFields: { [fields.material]: 'oak' } });
  });
});

describe('template upgrade: bad input answers the /v1 envelope naming the field, and changes nothing', () => {
  it('refuses a `to` that is not a version number, not a version, or not newer; a missing or stale If-Match; a drop naming nothing to drop', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const { product } = await productWithEveryValue(template.id, fields);
    await advance(2);
    const etag = await etagOf(product.id);
    const drops = { drop: [fields.colour, fields.weight, fields.datasheet] };
    for (const query of ['?to=abc', '?to=0', '?to=1.5', '?to=99', '?to=1']) {
      await expectRefused(() => preview(product.id, query), 422, 'validation_failed', 'to');
      await expectRefused(() => upgrade(product.id, { query, ifMatch: etag, body: drops }), 422, 'validation_failed', 'to');
    }
    await expectRefused(() => upgrade(product.id, { body: drops }), 422, 'validation_failed', 'If-Match');
    await expectRefused(() => upgrade(product.id, { body: drops, ifMatch: '"stale"' }), 412, 'precondition_failed', 'If-Match');
    await expectRefused(() => upgrade(product.id, { ifMatch: etag, body: { drop: [...drops.drop, 'fld_nope'] } }), 422, 'validation_failed', 'drop[3]');
    // a value that carries over is no value to drop
    await expectRefused(() => upgrade(product.id, { ifMatch: etag, body: { drop: [fields.note, ...drops.drop] } }), 422, 'validation_failed', 'drop[0]');
    // a field of the target version the product has no value in
    await expectRefused(() => upgrade(product.id, { ifMatch: etag, body: { drop: [fields.material] } }), 422, 'validation_failed', 'drop[0]');
    await expectRefused(() => upgrade(product.id, { ifMatch: etag, body: { drop: 'all' } }), 422, 'validation_failed', 'drop');
    await expectRefused(() => upgrade(product.id, { ifMatch: etag, body: { drop: [fields.colour, fields.colour] } }), 422, 'validation_failed', 'drop');
    await expectRefused(() => upgrade(product.id, { ifMatch: etag, body: { ...drops, force: true } }), 422, 'validation_failed', 'force');
  });

  it('refuses a version of a deleted template as retired, and a product without a template', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, { name: 'Old', templateId: template.id, templateFields: { [fields.note]: 'n' } });
    await advance(2);
    const ctx = await world.g.ctx(world.keys.manage);
    await world.env.core.catalogue.templates.softDelete(ctx, template.id, {});
    await expectRefused(() => preview(product.id), 422, 'validation_failed', 'to');
    await expectRefused(async () => upgrade(product.id, { ifMatch: await etagOf(product.id) }), 422, 'validation_failed', 'to');
    expect((await preview(product.id)).body.details[0].message).toContain('retired');

    const bare = await world.gp.product(world.keys.editable, { name: 'Bare' });
    await expectRefused(() => preview(bare.id), 422, 'validation_failed', 'to');
  });
});

describe('template upgrade: roles and teams', () => {
  it('lets only editable and manage preview and upgrade, as every product edit (spec 5); view_only and usable get 403 before their input is read', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const published = await world.gp.published(world.keys.editable, { templateId: template.id, templateFields: { [fields.note]: 'n' } });
    const draft = await world.gp.product(world.keys.editable, { name: 'Draft', templateId: template.id });
    await advance(2);
    await advance(3);
    for (const role of ['view_only', 'usable'] as const) {
      const before = await snapshot();
      for (const res of [
        await preview(published.id, '?to=3', world.keys[role]),
        await send(world.env, { url: `/v1/products/template-upgrades?templateId=${template.id}&from=1`, key: world.keys[role].key }),
        await upgrade(published.id, { query: '?to=3', ifMatch: await etagOf(published.id), key: world.keys[role], body: { drop: 'not even valid' } }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ success: false, data: null, code: 'forbidden' });
      }
      expect(await snapshot()).toBe(before);
    }
    expect((await preview(draft.id, '?to=3', world.keys.manage)).status).toBe(200);
    const byManager = await upgrade(draft.id, { query: '?to=3', ifMatch: await etagOf(draft.id), key: world.keys.manage });
    expect(byManager.status).toBe(200);
  });

  it("answers another team's product with 404 and lists none of it in a bulk preview", async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const product = await world.gp.product(world.keys.editable, { name: 'Ours', templateId: template.id, templateFields: { [fields.note]: 'n' } });
    await advance(2);
    expect((await preview(product.id, '?to=2', world.stranger)).body.code).toBe('not_found');
    const before = await snapshot();
    const res = await upgrade(product.id, { ifMatch: await etagOf(product.id), key: world.stranger });
    expect(res.status).toBe(404);
    expect(await snapshot()).toBe(before);
    const bulk = await send(world.env, { url: `/v1/products/template-upgrades?templateId=${template.id}&from=1&to=2`, key: world.stranger.key });
    expect(bulk.status).toBe(422);
    expect(bulk.body.details[0].field).toBe('templateId');
  });
});

describe('GET /v1/products/template-upgrades: the bulk preview', () => {
  it('previews every live product pinned to a version, drafts included, paged by id, changing nothing', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const blue = await world.gp.product(world.keys.editable, { name: 'Blue', templateId: template.id, templateFields: { [fields.colour]: 'blue' } });
    const red = await world.gp.published(world.keys.editable, { templateId: template.id, templateFields: { [fields.colour]: 'red' } });
    const plain = await world.gp.product(world.keys.editable, { name: 'Plain', templateId: template.id });
    const gone = await world.gp.product(world.keys.editable, { name: 'Gone', templateId: template.id });
    await send(world.env, { method: 'DELETE', url: `/v1/products/${gone.id}`, key: world.keys.editable.key });
    await advance(2);
    await world.gp.product(world.keys.editable, { name: 'Newer', templateId: template.id });
    const bulk = (query: string, key = world.keys.editable) =>
      send(world.env, { url: `/v1/products/template-upgrades?templateId=${template.id}&from=1${query}`, key: key.key });

    const before = await snapshot();
    const first = await bulk('&to=2&pageSize=2');
    expect(first.status).toBe(200);
    expect(first.headers.etag).toBeUndefined();
    expect(first.body.pagination).toEqual({ page: 1, pageSize: 2, totalCount: 3, totalPages: 2 });
    expect(first.body.data).toMatchObject({ templateId: template.id, from: { number: 1 }, to: { number: 2 } });
    expect(first.body.data.fields.added.map((f: { key: string }) => f.key)).toEqual(['material']);
    expect(first.body.data.products.map((p: { productId: number }) => p.productId)).toEqual([blue.id, red.id]);
    expect(first.body.data.products[0]).toMatchObject({ invalidValues: [expect.objectContaining({ fieldId: fields.colour, value: 'blue' })], ready: false });
    expect(first.body.data.products[1]).toMatchObject({ status: 'published', canStayPublished: false });
    const second = await bulk('&to=2&pageSize=2&page=2');
    expect(second.body.data.products.map((p: { productId: number }) => p.productId)).toEqual([plain.id]);
    expect(await snapshot()).toBe(before);

    const byManager = await bulk('', world.keys.manage);
    expect(byManager.body.data).toMatchObject({ to: { number: 2 } });
    expect(byManager.body.data.products.map((p: { productId: number }) => p.productId)).toEqual([blue.id, red.id, plain.id]);
    expect((await bulk('&pageSize=500')).body.pagination.pageSize).toBe(100);
  });

  it('costs the same statements for a page of 40 products as for a page of 5 (bounded work per page)', async () => {
    const { template, fields, advance } = await upgradeTemplate();
    const files = await world.gp.textFiles(world.team, 3, 'bulk');
    for (let i = 0; i < 40; i++) {
      await world.gp.product(world.keys.editable, {
        name: `B${i}`,
        templateId: template.id,
        templateFields: { [fields.colour]: i % 2 ? 'blue' : 'red', [fields.datasheet]: [files[i % 3]!] },
      });
    }
    await advance(2);
    const counting = await countingApp(world.env);
    try {
      const statementsFor = async (pageSize: number) => {
        counting.statements.length = 0;
        const res = await counting.app.inject({
          url: `/v1/products/template-upgrades?templateId=${template.id}&from=1&to=2&pageSize=${pageSize}`,
          headers: { authorization: `Bearer ${world.keys.editable.key}` },
        });
        expect(res.json().data.products).toHaveLength(pageSize);
        return counting.statements.length;
      };
      const small = await statementsFor(5);
      const large = await statementsFor(40);
      expect(large).toBe(small);
      // authentication, the two versions, the count and the page, the files and their visibility
      expect(large).toBeLessThanOrEqual(9);
    } finally {
      await counting.close();
    }
  });

  it('refuses an unknown template, a `from` that is no version and a `to` not newer than it', async () => {
    const { template, advance } = await upgradeTemplate();
    await advance(2);
    const bulk = (query: string) => send(world.env, { url: `/v1/products/template-upgrades?${query}`, key: world.keys.editable.key });
    const cases: Array<[string, string]> = [
      [`templateId=${template.id}&from=99`, 'from'],
      [`templateId=${template.id}&from=2&to=1`, 'to'],
      [`templateId=${template.id}&from=1&to=9`, 'to'],
      [`templateId=${template.id}&from=x`, 'from'],
      [`templateId=tpl_missing&from=1`, 'templateId'],
      [`from=1`, 'templateId'],
      [`templateId=${'t'.repeat(129)}&from=1`, 'templateId'],
    ];
    for (const [query, field] of cases) {
      const res = await bulk(query);
      expect(res.status, query).toBe(422);
      expect(
        res.body.details.map((d: { field: string }) => d.field),
        query,
      ).toContain(field);
    }
  });
});
