import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey } from '../support/given.ts';
import { templateName, textField } from '../support/given-templates.ts';
import { send } from '../support/http.ts';
import { RFC3339_MICROS, type TemplateRestWorld, URL, useTemplateRest } from './template.rest.support.ts';

/**
 * POST and GET /v1/product-info-templates (createTemplate, listTemplates). The list block runs after
 * the creates: its totals past the last page count the templates they made for the manage key's team.
 */
const { world, create } = useTemplateRest();
let env: TestEnv;
let manager: GivenKey;
let g: TemplateRestWorld['g'];
let t: TemplateRestWorld['t'];

beforeAll(() => {
  ({ env, manager, g, t } = world);
});

describe('POST /v1/product-info-templates (createTemplate)', () => {
  it('creates a template with 201, the envelope, an ETag and opaque string ids', async () => {
    const res = await create({ name: templateName(), groups: [{ name: 'Basics', fields: [] }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, code: null, message: null });
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    const data = res.body.data;
    expect(typeof data.id).toBe('string');
    expect(data.id.length).toBeGreaterThanOrEqual(1);
    expect(data.id.length).toBeLessThanOrEqual(128);
    expect(data.createdAt).toMatch(RFC3339_MICROS);
    expect(data.updatedAt).toBe(data.createdAt);
  });

  it('seeds the three protected system fields (name, sku, mainImage) into the first group, which is the default group', async () => {
    const res = await create({
      name: templateName(),
      groups: [
        { name: 'Basics', fields: [] },
        { name: 'More', fields: [] },
      ],
    });
    const [first, second] = res.body.data.groups;
    expect(first).toMatchObject({ name: 'Basics', isDefault: true, sortOrder: 0 });
    expect(second).toMatchObject({ name: 'More', isDefault: false, sortOrder: 1, fields: [] });
    expect(first.fields).toEqual([
      {
        id: expect.any(String),
        key: 'name',
        name: 'Name',
        type: 'text',
        required: true,
        placeholder: null,
        sortOrder: 0,
        config: {},
        isSystemField: true,
        systemKey: 'name',
      },
      {
        id: expect.any(String),
        key: 'sku',
        name: 'SKU',
        type: 'text',
        required: false,
        placeholder: null,
        sortOrder: 1,
        config: {},
        isSystemField: true,
        systemKey: 'sku',
      },
      {
        id: expect.any(String),
        key: 'mainImage',
        name: 'Main image',
        type: 'image',
        required: false,
        placeholder: null,
        sortOrder: 2,
        config: {},
        isSystemField: true,
        systemKey: 'mainImage',
      },
    ]);
  });

  it('places custom fields of the first group after the system fields (array position + 3) and returns them without typeChangeConfirmed', async () => {
    const res = await create({
      name: templateName(),
      groups: [
        { name: 'Basics', fields: [textField('colour', { typeChangeConfirmed: true }), textField('size')] },
        { name: 'Other', fields: [textField('weight'), textField('origin')] },
      ],
    });
    const [first, second] = res.body.data.groups;
    expect(first.fields.map((f: { key: string; sortOrder: number }) => [f.key, f.sortOrder])).toEqual([
      ['name', 0],
      ['sku', 1],
      ['mainImage', 2],
      ['colour', 3],
      ['size', 4],
    ]);
    expect(second.fields.map((f: { key: string; sortOrder: number }) => [f.key, f.sortOrder])).toEqual([
      ['weight', 0],
      ['origin', 1],
    ]);
    expect(first.fields[3]).toEqual({
      id: expect.any(String),
      key: 'colour',
      name: 'colour',
      type: 'text',
      required: false,
      placeholder: null,
      sortOrder: 3,
      config: {},
      isSystemField: false,
      systemKey: null,
    });
    expect(res.text).not.toContain('typeChangeConfirmed');
  });

  it('increases an explicit sortOrder of a first-group custom field by 3 and orders fields by sortOrder then id', async () => {
    const res = await create({
      name: templateName(),
      groups: [{ name: 'B', fields: [textField('late', { sortOrder: 10 }), textField('early', { sortOrder: 0 })] }],
    });
    const fields = res.body.data.groups[0].fields;
    expect(fields.map((f: { key: string; sortOrder: number }) => [f.key, f.sortOrder])).toEqual([
      ['name', 0],
      ['sku', 1],
      ['mainImage', 2],
      ['early', 3],
      ['late', 13],
    ]);
  });

  it('trims name and description, stores a blank description as null, defaults enabled to true and isSystemDefault to false', async () => {
    const name = templateName();
    const res = await create({
      name: `  ${name}  `,
      description: '  short  ',
      syncStrategy: 'newOnly',
      groups: [{ name: '  Basics ', fields: [textField('k', { name: '  Label ' })] }],
    });
    expect(res.body.data).toMatchObject({
      name,
      description: 'short',
      enabled: true,
      isSystemDefault: false,
      isLibraryDefault: false,
      boundBrandIds: [],
      boundCategoryIds: [],
    });
    expect(res.body.data.groups[0].name).toBe('Basics');
    expect(res.body.data.groups[0].fields[3].name).toBe('Label');
    const blank = await create({ name: templateName(), description: '   ', enabled: false, groups: [{ name: 'B', fields: [] }] });
    expect(blank.body.data).toMatchObject({ description: null, enabled: false });
  });

  it('accepts a 30-character name, a 50-character description and a 128-character group name', async () => {
    const res = await create({
      name: `${templateName('L')}${'n'.repeat(30)}`.slice(0, 30),
      description: 'd'.repeat(50),
      groups: [{ name: 'g'.repeat(128), fields: [] }],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toHaveLength(30);
  });

  it('writes version 1 holding the full definition', async () => {
    const res = await create({ name: templateName(), groups: [{ name: 'B', fields: [textField('a')] }] });
    const rows = await env.orm.em
      .fork()
      .execute<{ number: number; definition: { groups: unknown[] } }[]>('select number, definition from template_versions where template_id = ?', [
        res.body.data.id,
      ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.number).toBe(1);
    expect(rows[0]!.definition.groups).toEqual(res.body.data.groups);
  });

  it('rejects a name used by a live template of the library with 409 name_in_use and writes nothing', async () => {
    const name = templateName();
    await create({ name, groups: [{ name: 'B', fields: [] }] });
    const before = await t.snapshot(manager.teamId);
    const res = await create({ name: ` ${name} `, groups: [{ name: 'B', fields: [] }] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, data: null, code: 'name_in_use' });
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('allows the name of a deleted template, and the same name in another library', async () => {
    const name = templateName();
    const first = await create({ name, groups: [{ name: 'B', fields: [] }] });
    await send(env, { method: 'DELETE', url: `${URL}/${first.body.data.id}`, key: manager.key });
    expect((await create({ name, groups: [{ name: 'B', fields: [] }] })).status).toBe(201);
    const other = await g.key(await g.team(), 'manage');
    expect((await create({ name, groups: [{ name: 'B', fields: [] }] }, other.key)).status).toBe(201);
  });

  it('gives exactly one 201 and one 409 name_in_use when two creates race for one name', async () => {
    const name = templateName();
    const results = await Promise.all([create({ name, groups: [{ name: 'B', fields: [] }] }), create({ name, groups: [{ name: 'C', fields: [] }] })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('name_in_use');
  });

  it('replays the original response for a repeated Idempotency-Key and creates one template', async () => {
    const body = { name: templateName(), groups: [{ name: 'B', fields: [textField('a')] }] };
    const before = (await t.snapshot(manager.teamId)).templates as number;
    const first = await create(body, manager.key, { 'idempotency-key': 'tpl-create-1' });
    const again = await create(body, manager.key, { 'idempotency-key': 'tpl-create-1' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect((await t.snapshot(manager.teamId)).templates).toBe(before + 1);
  });

  it('refuses a reused Idempotency-Key with different input with 409 idempotency_key_reused and writes nothing', async () => {
    await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] }, manager.key, { 'idempotency-key': 'tpl-create-2' });
    const before = await t.snapshot(manager.teamId);
    const res = await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] }, manager.key, { 'idempotency-key': 'tpl-create-2' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('rejects a blank Idempotency-Key with 422 and writes nothing', async () => {
    const before = await t.snapshot(manager.teamId);
    const res = await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] }, manager.key, { 'idempotency-key': '   ' });
    expect(res.status).toBe(422);
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  const group = (fields: unknown[] = []) => [{ name: 'B', fields }];
  const badBodies: Array<[string, unknown, string]> = [
    ['a missing name', { groups: group() }, 'name'],
    ['a blank name', { name: '   ', groups: group() }, 'name'],
    ['a 31-character name', { name: 'n'.repeat(31), groups: group() }, 'name'],
    ['a non-string name', { name: 7, groups: group() }, 'name'],
    ['a 51-character description', { name: 'x', description: 'd'.repeat(51), groups: group() }, 'description'],
    ['an unknown field', { name: 'x', colour: 'red', groups: group() }, 'colour'],
    ['a string enabled', { name: 'x', enabled: 'yes', groups: group() }, 'enabled'],
    ['missing groups', { name: 'x' }, 'groups'],
    ['an empty groups array', { name: 'x', groups: [] }, 'groups'],
    ['201 groups', { name: 'x', groups: Array.from({ length: 201 }, (_, i) => ({ name: `g${i}`, fields: [] })) }, 'groups'],
    ['a group with sortOrder', { name: 'x', groups: [{ name: 'B', fields: [], sortOrder: 0 }] }, 'groups[0].sortOrder'],
    ['a group with isDefault', { name: 'x', groups: [{ name: 'B', fields: [], isDefault: true }] }, 'groups[0].isDefault'],
    ['a group without a name', { name: 'x', groups: [{ fields: [] }] }, 'groups[0].name'],
    ['a group with a blank name', { name: 'x', groups: [{ name: '  ', fields: [] }] }, 'groups[0].name'],
    ['a group with a 129-character name', { name: 'x', groups: [{ name: 'g'.repeat(129), fields: [] }] }, 'groups[0].name'],
    ['a group without fields', { name: 'x', groups: [{ name: 'B' }] }, 'groups[0].fields'],
    ['a group id on create', { name: 'x', groups: [{ id: 'grp_unknown', name: 'B', fields: [] }] }, 'groups[0].id'],
    ['a field id on create', { name: 'x', groups: group([{ id: 'fld_unknown', key: 'a', name: 'a', type: 'text' }]) }, 'groups[0].fields[0].id'],
    ['an unknown field property', { name: 'x', groups: group([textField('a', { colour: 'red' })]) }, 'groups[0].fields[0].colour'],
    ['a new field without key', { name: 'x', groups: group([{ name: 'a', type: 'text' }]) }, 'groups[0].fields[0].key'],
    ['a new field without name', { name: 'x', groups: group([{ key: 'a', type: 'text' }]) }, 'groups[0].fields[0].name'],
    ['a new field without type', { name: 'x', groups: group([{ key: 'a', name: 'a' }]) }, 'groups[0].fields[0].type'],
    ['an unknown field type', { name: 'x', groups: group([textField('a', { type: 'money' })]) }, 'groups[0].fields[0].type'],
    ['a key starting with a digit', { name: 'x', groups: group([textField('1abc')]) }, 'groups[0].fields[0].key'],
    ['a key with a hyphen', { name: 'x', groups: group([textField('a-b')]) }, 'groups[0].fields[0].key'],
    ['a 65-character key', { name: 'x', groups: group([textField(`k${'x'.repeat(64)}`)]) }, 'groups[0].fields[0].key'],
    ['the reserved key sku', { name: 'x', groups: group([textField('sku')]) }, 'groups[0].fields[0].key'],
    ['the reserved key brand', { name: 'x', groups: group([textField('brand')]) }, 'groups[0].fields[0].key'],
    ['the reserved key Description in another case', { name: 'x', groups: group([textField('Description')]) }, 'groups[0].fields[0].key'],
    [
      'keys that differ only in case, in two groups',
      {
        name: 'x',
        groups: [
          { name: 'A', fields: [textField('Colour')] },
          { name: 'B', fields: [textField('colour')] },
        ],
      },
      'groups[1].fields[0].key',
    ],
    ['a blank field name', { name: 'x', groups: group([textField('a', { name: '  ' })]) }, 'groups[0].fields[0].name'],
    ['a 129-character field name', { name: 'x', groups: group([textField('a', { name: 'f'.repeat(129) })]) }, 'groups[0].fields[0].name'],
    ['a 256-character placeholder', { name: 'x', groups: group([textField('a', { placeholder: 'p'.repeat(256) })]) }, 'groups[0].fields[0].placeholder'],
    ['a negative field sortOrder', { name: 'x', groups: group([textField('a', { sortOrder: -1 })]) }, 'groups[0].fields[0].sortOrder'],
    ['two fields with one sortOrder in a group', { name: 'x', groups: group([textField('a', { sortOrder: 1 }), textField('b')]) }, 'groups[0].fields'],
    ['a string required flag', { name: 'x', groups: group([textField('a', { required: 'yes' })]) }, 'groups[0].fields[0].required'],
    ['isSystemField true on a new field', { name: 'x', groups: group([textField('a', { isSystemField: true })]) }, 'groups[0].fields[0].isSystemField'],
    ['a systemKey on a new field', { name: 'x', groups: group([textField('a', { systemKey: 'name' })]) }, 'groups[0].fields[0].systemKey'],
    ['a non-object config', { name: 'x', groups: group([textField('a', { config: [] })]) }, 'groups[0].fields[0].config'],
    [
      '198 custom fields (201 with the system fields)',
      { name: 'x', groups: [{ name: 'A', fields: Array.from({ length: 198 }, (_, i) => textField(`f${i}`)) }] },
      'groups',
    ],
    ['a syncStrategy other than newOnly', { name: 'x', syncStrategy: 'all', groups: group() }, 'syncStrategy'],
    ['10001 boundBrandIds', { name: 'x', groups: group(), boundBrandIds: Array.from({ length: 10001 }, (_, i) => i + 1) }, 'boundBrandIds'],
    ['10001 boundCategoryIds', { name: 'x', groups: group(), boundCategoryIds: Array.from({ length: 10001 }, (_, i) => i + 1) }, 'boundCategoryIds'],
    ['a zero brand id', { name: 'x', groups: group(), boundBrandIds: [0] }, 'boundBrandIds[0]'],
    ['a fractional category id', { name: 'x', groups: group(), boundCategoryIds: [1.5] }, 'boundCategoryIds[0]'],
    ['a brand id that does not exist', { name: 'x', groups: group(), boundBrandIds: [2147483647] }, 'boundBrandIds'],
    ['a category id that does not exist', { name: 'x', groups: group(), boundCategoryIds: [2147483647] }, 'boundCategoryIds'],
    ['a string isLibraryDefault', { name: 'x', groups: group(), isLibraryDefault: 'yes' }, 'isLibraryDefault'],
    ['an array body', [{ name: 'x', groups: group() }], '(body)'],
  ];
  for (const [label, body, field] of badBodies) {
    it(`rejects ${label} with 422 validation_failed naming ${field}, and writes nothing`, async () => {
      const before = await t.snapshot(manager.teamId);
      const res = await create(body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'validation_failed' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await t.snapshot(manager.teamId)).toEqual(before);
    });
  }

  it('accepts 197 custom fields (200 with the system fields) spread over groups', async () => {
    const res = await create({
      name: templateName(),
      groups: [
        { name: 'A', fields: Array.from({ length: 97 }, (_, i) => textField(`a${i}`)) },
        { name: 'B', fields: Array.from({ length: 100 }, (_, i) => textField(`b${i}`)) },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.groups.reduce((n: number, grp: { fields: unknown[] }) => n + grp.fields.length, 0)).toBe(200);
  });

  it('rejects malformed JSON with 422 validation_failed and writes nothing', async () => {
    const before = await t.snapshot(manager.teamId);
    const res = await send(env, { method: 'POST', url: URL, key: manager.key, rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('rejects a body over 1 MiB with 413 payload_too_large and writes nothing', async () => {
    const before = await t.snapshot(manager.teamId);
    const res = await create({ name: 'x', description: 'd'.repeat(1_100_000), groups: group() });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });
});

describe('GET /v1/product-info-templates (listTemplates)', () => {
  it('lists live templates by createdAt descending then id, paginated, without an ETag', async () => {
    const owner = await g.key(await g.team(), 'manage');
    const viewer = await g.key({ teamId: owner.teamId }, 'view_only');
    const a = await t.template(owner);
    const b = await t.template(owner);
    const c = await t.template(owner);
    await send(env, { method: 'DELETE', url: `${URL}/${b.id}`, key: owner.key });
    const res = await send(env, { url: `${URL}?pageSize=1`, key: viewer.key });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 1, totalCount: 2, totalPages: 2 });
    const page2 = await send(env, { url: `${URL}?pageSize=1&page=2`, key: viewer.key });
    expect([res.body.data[0].id, page2.body.data[0].id]).toEqual([c.id, a.id]);
    expect(res.body.data[0]).toEqual(c);
  });

  it('breaks createdAt ties by id ascending', async () => {
    const owner = await g.key(await g.team(), 'manage');
    const a = await t.template(owner);
    const b = await t.template(owner);
    await env.orm.em.fork().execute('update product_info_templates set created_at = ? where id in (?, ?)', ['2026-01-01T00:00:00Z', a.id, b.id]);
    const res = await send(env, { url: URL, key: owner.key });
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([a.id, b.id].sort());
  });

  it('caps pageSize at 100, reports totals past the last page and rejects page=0 with 422', async () => {
    expect((await send(env, { url: `${URL}?pageSize=500`, key: manager.key })).body.pagination.pageSize).toBe(100);
    const past = await send(env, { url: `${URL}?page=999`, key: manager.key });
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.totalCount).toBeGreaterThan(0);
    expect((await send(env, { url: `${URL}?page=0`, key: manager.key })).status).toBe(422);
  });
});
