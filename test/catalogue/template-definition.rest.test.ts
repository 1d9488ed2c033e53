import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateFieldView, TemplateGroupView, TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { givenTemplates, templateName, textField } from '../support/given-templates.ts';
import { send } from '../support/http.ts';

/** Field types, their config rules and the groups/fields replacement rules of a PATCH (spec 2.4, 4.4). */
let env: TestEnv;
let manager: GivenKey;
let t: ReturnType<typeof givenTemplates>;

const URL = '/v1/product-info-templates';

beforeAll(async () => {
  env = await createTestEnv();
  const g = given(env);
  t = givenTemplates(env);
  manager = await g.key(await g.team(), 'manage');
});
afterAll(async () => env.close());

async function create(groups: unknown[]): Promise<TemplateView> {
  const res = await send(env, { method: 'POST', url: URL, key: manager.key, body: { name: templateName(), groups } });
  expect(res.status).toBe(201);
  return res.body.data;
}

function patch(id: string, body: unknown) {
  return send(env, { method: 'PATCH', url: `${URL}/${id}`, key: manager.key, body });
}

/** A group as PATCH input: its id, name and fields by id only (everything else kept). */
function keepGroup(group: TemplateGroupView, fields: unknown[] = group.fields.map((f) => ({ id: f.id }))) {
  return { id: group.id, name: group.name, fields };
}

function field(template: TemplateView, key: string): TemplateFieldView {
  for (const group of template.groups) for (const f of group.fields) if (f.key === key) return f;
  throw new Error(`no field ${key}`);
}

const systemRefs = (group: TemplateGroupView) => group.fields.filter((f) => f.isSystemField).map((f) => ({ id: f.id }));

describe('field types and config (spec 2.4)', () => {
  it('accepts every field type with a valid config and returns the config', async () => {
    const options = [
      { value: 'a', label: 'A', sortOrder: 0 },
      { value: 'b', label: 'B', sortOrder: 1, archived: true },
    ];
    const tpl = await create([
      {
        name: 'All',
        fields: [
          textField('f_text'),
          textField('f_textarea', { type: 'textarea' }),
          textField('f_email', { type: 'email' }),
          textField('f_phone', { type: 'phone' }),
          textField('f_url', { type: 'url' }),
          textField('f_color', { type: 'color', config: {} }),
          textField('f_date', { type: 'date' }),
          textField('f_range', { type: 'dateRange' }),
          textField('f_number', { type: 'number', config: { unit: 'kg' } }),
          textField('f_number_plain', { type: 'number' }),
          textField('f_currency', { type: 'currency', config: { code: 'EUR', symbol: '€', decimals: 2 } }),
          textField('f_rich', { type: 'richtext', config: { mode: 'delta' } }),
          textField('f_select', { type: 'select', config: { options } }),
          textField('f_radio', { type: 'radio', config: { options } }),
          textField('f_checkbox', { type: 'checkbox', config: { options } }),
          textField('f_image', { type: 'image', config: { maxCount: 3, maxSizeMB: 2.5, accept: ['image/png'] } }),
          textField('f_file', { type: 'file' }),
        ],
      },
    ]);
    expect(field(tpl, 'f_number').config).toEqual({ unit: 'kg' });
    expect(field(tpl, 'f_currency').config).toEqual({ code: 'EUR', symbol: '€', decimals: 2 });
    expect(field(tpl, 'f_rich').config).toEqual({ mode: 'delta' });
    expect(field(tpl, 'f_checkbox').config).toEqual({ options });
    expect(field(tpl, 'f_image').config).toEqual({ maxCount: 3, maxSizeMB: 2.5, accept: ['image/png'] });
    expect(field(tpl, 'f_file').config).toEqual({});
    expect(field(tpl, 'f_range').type).toBe('dateRange');
  });

  it('strips unknown properties from number, currency, richtext, choice, option and media configs', async () => {
    const tpl = await create([
      {
        name: 'Strip',
        fields: [
          textField('n', { type: 'number', config: { unit: 'cm', precision: 2 } }),
          textField('c', { type: 'currency', config: { code: 'USD', symbol: '$', decimals: 0, rate: 1 } }),
          textField('r', { type: 'richtext', config: { mode: 'html', toolbar: true } }),
          textField('s', { type: 'select', config: { options: [{ value: 'x', label: 'X', sortOrder: 0, colour: 'red' }], multiple: true } }),
          textField('i', { type: 'image', config: { maxCount: 1, crop: 'square' } }),
        ],
      },
    ]);
    expect(field(tpl, 'n').config).toEqual({ unit: 'cm' });
    expect(field(tpl, 'c').config).toEqual({ code: 'USD', symbol: '$', decimals: 0 });
    expect(field(tpl, 'r').config).toEqual({ mode: 'html' });
    expect(field(tpl, 's').config).toEqual({ options: [{ value: 'x', label: 'X', sortOrder: 0 }] });
    expect(field(tpl, 'i').config).toEqual({ maxCount: 1 });
  });

  const option = (extra: Record<string, unknown> = {}) => ({ value: 'v', label: 'L', sortOrder: 0, ...extra });
  const badConfigs: Array<[string, string, unknown, string]> = [
    ['a property on an empty-config type (text)', 'text', { maxLength: 5 }, 'config.maxLength'],
    ['a property on an empty-config type (dateRange)', 'dateRange', { min: '2020-01-01' }, 'config.min'],
    ['a property on an empty-config type (color)', 'color', { palette: [] }, 'config.palette'],
    ['a non-string number unit', 'number', { unit: 5 }, 'config.unit'],
    ['a currency without code', 'currency', { symbol: '$', decimals: 2 }, 'config.code'],
    ['a currency with an empty symbol', 'currency', { code: 'USD', symbol: '', decimals: 2 }, 'config.symbol'],
    ['a currency without decimals', 'currency', { code: 'USD', symbol: '$' }, 'config.decimals'],
    ['a currency with 5 decimals', 'currency', { code: 'USD', symbol: '$', decimals: 5 }, 'config.decimals'],
    ['a currency with fractional decimals', 'currency', { code: 'USD', symbol: '$', decimals: 1.5 }, 'config.decimals'],
    ['a richtext without mode', 'richtext', {}, 'config.mode'],
    ['a richtext with mode markdown', 'richtext', { mode: 'markdown' }, 'config.mode'],
    ['a select without options', 'select', {}, 'config.options'],
    ['a select with an empty options array', 'select', { options: [] }, 'config.options'],
    ['a radio without options', 'radio', {}, 'config.options'],
    ['a checkbox with an empty options array', 'checkbox', { options: [] }, 'config.options'],
    ['an option with an empty value', 'select', { options: [option({ value: '' })] }, 'config.options[0].value'],
    ['an option without label', 'select', { options: [{ value: 'v', sortOrder: 0 }] }, 'config.options[0].label'],
    ['an option with an empty label', 'radio', { options: [option({ label: '' })] }, 'config.options[0].label'],
    ['an option without sortOrder', 'checkbox', { options: [{ value: 'v', label: 'L' }] }, 'config.options[0].sortOrder'],
    ['an option with a negative sortOrder', 'select', { options: [option({ sortOrder: -1 })] }, 'config.options[0].sortOrder'],
    ['an option with a string archived', 'select', { options: [option({ archived: 'no' })] }, 'config.options[0].archived'],
    ['two options with one value', 'select', { options: [option(), option({ label: 'Other', sortOrder: 1 })] }, 'config.options[1].value'],
    ['an image maxCount of 0', 'image', { maxCount: 0 }, 'config.maxCount'],
    ['an image maxSizeMB of 0', 'image', { maxSizeMB: 0 }, 'config.maxSizeMB'],
    ['a file with a negative maxSizeMB', 'file', { maxSizeMB: -1 }, 'config.maxSizeMB'],
    ['a file accept that is not an array', 'file', { accept: 'image/*' }, 'config.accept'],
    ['an image accept holding a number', 'image', { accept: [1] }, 'config.accept[0]'],
  ];
  for (const [label, type, config, path] of badConfigs) {
    it(`rejects ${label} with 422 validation_failed naming ${path}, and writes nothing`, async () => {
      const before = await t.snapshot(manager.teamId);
      const res = await send(env, {
        method: 'POST',
        url: URL,
        key: manager.key,
        body: { name: templateName(), groups: [{ name: 'G', fields: [textField('f', { type, config })] }] },
      });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(`groups[0].fields[0].${path}`);
      expect(await t.snapshot(manager.teamId)).toEqual(before);
    });
  }
});

describe('PATCH groups: replacement of the definition (spec 4.4)', () => {
  it('deletes omitted groups and fields, keeps stable ids, and renames in place', async () => {
    const tpl = await create([
      { name: 'Main', fields: [textField('a'), textField('b')] },
      { name: 'Gone', fields: [textField('c')] },
    ]);
    const [main] = tpl.groups;
    const res = await patch(tpl.id, { groups: [keepGroup(main!, [...systemRefs(main!), { id: field(tpl, 'a').id, name: 'Renamed' }])] });
    expect(res.status).toBe(200);
    expect(res.body.data.groups).toHaveLength(1);
    expect(res.body.data.groups[0].id).toBe(main!.id);
    expect(res.body.data.groups[0].fields.map((f: TemplateFieldView) => f.key)).toEqual(['name', 'sku', 'mainImage', 'a']);
    expect(field(res.body.data, 'a')).toMatchObject({ id: field(tpl, 'a').id, name: 'Renamed' });
  });

  it('keeps existing groups in their stored order and appends new groups in the supplied order', async () => {
    const tpl = await create([
      { name: 'Main', fields: [] },
      { name: 'Second', fields: [] },
    ]);
    const [main, second] = tpl.groups;
    const res = await patch(tpl.id, { groups: [{ name: 'New1', fields: [] }, keepGroup(second!), { name: 'New2', fields: [] }, keepGroup(main!)] });
    expect(res.body.data.groups.map((grp: TemplateGroupView) => [grp.name, grp.sortOrder, grp.isDefault])).toEqual([
      ['Main', 0, true],
      ['Second', 1, false],
      ['New1', 2, false],
      ['New2', 3, false],
    ]);
  });

  it('keeps omitted field properties when the type is unchanged, but sortOrder follows the array position', async () => {
    const tpl = await create([
      { name: 'G', fields: [] },
      {
        name: 'Other',
        fields: [textField('x', { required: true, placeholder: 'px', type: 'number', config: { unit: 'kg' } }), textField('y')],
      },
    ]);
    const [main, other] = tpl.groups;
    const res = await patch(tpl.id, { groups: [keepGroup(main!), keepGroup(other!, [{ id: field(tpl, 'y').id }, { id: field(tpl, 'x').id }])] });
    expect(field(res.body.data, 'x')).toMatchObject({ required: true, placeholder: 'px', type: 'number', config: { unit: 'kg' }, name: 'x', sortOrder: 1 });
    expect(field(res.body.data, 'y').sortOrder).toBe(0);
    expect(res.body.data.groups[1].fields.map((f: TemplateFieldView) => f.key)).toEqual(['y', 'x']);
  });

  it('adds 3 to the sortOrder or array position of custom fields in the first group, wherever the system fields appear in the array', async () => {
    const tpl = await create([{ name: 'G', fields: [textField('a'), textField('b')] }]);
    const [main] = tpl.groups;
    const res = await patch(tpl.id, {
      groups: [keepGroup(main!, [{ id: field(tpl, 'b').id }, ...systemRefs(main!), { id: field(tpl, 'a').id, sortOrder: 7 }])],
    });
    expect(res.body.data.groups[0].fields.map((f: TemplateFieldView) => [f.key, f.sortOrder])).toEqual([
      ['name', 0],
      ['sku', 1],
      ['mainImage', 2],
      ['b', 3],
      ['a', 10],
    ]);
  });

  it('lets a PATCH add a field with the key of a field it deletes', async () => {
    const tpl = await create([{ name: 'G', fields: [textField('reuse')] }]);
    const res = await patch(tpl.id, { groups: [keepGroup(tpl.groups[0]!, [...systemRefs(tpl.groups[0]!), textField('reuse', { type: 'number' })])] });
    expect(res.status).toBe(200);
    expect(field(res.body.data, 'reuse').id).not.toBe(field(tpl, 'reuse').id);
  });

  it('lets system fields change name and placeholder, keeping id, type, required flag and config', async () => {
    const tpl = await create([{ name: 'G', fields: [] }]);
    const [main] = tpl.groups;
    const sku = field(tpl, 'sku');
    const res = await patch(tpl.id, {
      groups: [
        keepGroup(
          main!,
          main!.fields.map((f) => (f.id === sku.id ? { ...f, name: 'Article no.', placeholder: 'e.g. A-1' } : { id: f.id })),
        ),
      ],
    });
    expect(res.status).toBe(200);
    expect(field(res.body.data, 'sku')).toEqual({ ...sku, name: 'Article no.', placeholder: 'e.g. A-1' });
  });

  it('writes a new version per PATCH and leaves earlier versions unchanged', async () => {
    const tpl = await create([{ name: 'G', fields: [textField('a')] }]);
    await patch(tpl.id, { groups: [keepGroup(tpl.groups[0]!, [...systemRefs(tpl.groups[0]!)])] });
    const rows = await env.orm.em
      .fork()
      .execute<{ number: number; definition: { groups: TemplateGroupView[] } }[]>(
        'select number, definition from template_versions where template_id = ? order by number',
        [tpl.id],
      );
    expect(rows.map((r) => r.number)).toEqual([1, 2]);
    expect(rows[0]!.definition.groups).toEqual(tpl.groups);
    expect(rows[1]!.definition.groups[0]!.fields.map((f) => f.key)).toEqual(['name', 'sku', 'mainImage']);
  });

  it('accepts up to 200 fields in total and rejects 201 with 422, changing nothing', async () => {
    const tpl = await create([{ name: 'G', fields: [] }]);
    const [main] = tpl.groups;
    const customs = (n: number) => Array.from({ length: n }, (_, i) => textField(`c${i}`));
    const over = await patch(tpl.id, {
      groups: [keepGroup(main!, [...systemRefs(main!), ...customs(100)]), { name: 'More', fields: customs(98).map((f, i) => ({ ...f, key: `d${i}` })) }],
    });
    expect(over.status).toBe(422);
    expect(over.body.details.map((d: { field: string }) => d.field)).toContain('groups');
    const full = await patch(tpl.id, {
      groups: [keepGroup(main!, [...systemRefs(main!), ...customs(100)]), { name: 'More', fields: customs(97).map((f, i) => ({ ...f, key: `d${i}` })) }],
    });
    expect(full.status).toBe(200);
  });

  const withSystem = (tpl: TemplateView, fields: unknown[]) => ({
    groups: [keepGroup(tpl.groups[0]!, [...systemRefs(tpl.groups[0]!), ...fields]), ...tpl.groups.slice(1).map((grp) => keepGroup(grp))],
  });
  const systemOverride = (tpl: TemplateView, key: string, change: Record<string, unknown>) => ({
    groups: [
      keepGroup(
        tpl.groups[0]!,
        tpl.groups[0]!.fields.map((f) => (f.key === key ? { id: f.id, ...change } : { id: f.id })),
      ),
    ],
  });
  const badPatches: Array<[string, (tpl: TemplateView) => unknown, string]> = [
    ['omitting the default group', (tpl) => ({ groups: [keepGroup(tpl.groups[1]!)] }), 'groups'],
    [
      'omitting a system field',
      (tpl) => ({
        groups: [
          keepGroup(
            tpl.groups[0]!,
            tpl.groups[0]!.fields.filter((f) => f.key !== 'sku').map((f) => ({ id: f.id })),
          ),
          keepGroup(tpl.groups[1]!),
        ],
      }),
      'groups[0].fields',
    ],
    ['changing a system field type', (tpl) => systemOverride(tpl, 'sku', { type: 'textarea' }), 'groups[0].fields[1].type'],
    ['changing a system field required flag', (tpl) => systemOverride(tpl, 'name', { required: false }), 'groups[0].fields[0].required'],
    ['changing a system field config', (tpl) => systemOverride(tpl, 'mainImage', { config: { customPlaceholder: 'Drop here' } }), 'groups[0].fields[2].config'],
    [
      'an unknown property in a system field config',
      (tpl) => systemOverride(tpl, 'mainImage', { config: { maxCount: 2 } }),
      'groups[0].fields[2].config.maxCount',
    ],
    ['changing a system field key', (tpl) => systemOverride(tpl, 'name', { key: 'title' }), 'groups[0].fields[0].key'],
    ['moving a system field', (tpl) => systemOverride(tpl, 'sku', { sortOrder: 5 }), 'groups[0].fields[1].sortOrder'],
    ['isSystemField false on a system field', (tpl) => systemOverride(tpl, 'sku', { isSystemField: false }), 'groups[0].fields[1].isSystemField'],
    ['reassigning a systemKey', (tpl) => systemOverride(tpl, 'sku', { systemKey: 'name' }), 'groups[0].fields[1].systemKey'],
    ['isSystemField true on a custom field', (tpl) => withSystem(tpl, [{ id: field(tpl, 'a').id, isSystemField: true }]), 'groups[0].fields[3].isSystemField'],
    ['a systemKey on a custom field', (tpl) => withSystem(tpl, [{ id: field(tpl, 'a').id, systemKey: 'description' }]), 'groups[0].fields[3].systemKey'],
    ['changing a field key', (tpl) => withSystem(tpl, [{ id: field(tpl, 'a').id, key: 'b2' }]), 'groups[0].fields[3].key'],
    [
      'moving a field to another group',
      (tpl) => ({ groups: [keepGroup(tpl.groups[0]!, [...systemRefs(tpl.groups[0]!), { id: field(tpl, 'other').id }]), keepGroup(tpl.groups[1]!, [])] }),
      'groups[0].fields[3].id',
    ],
    [
      'an existing field in a new group',
      (tpl) => ({ groups: [...withSystem(tpl, []).groups, { name: 'N', fields: [{ id: field(tpl, 'a').id }] }] }),
      'groups[2].fields[0].id',
    ],
    ['an unknown field id', (tpl) => withSystem(tpl, [{ id: 'fld_nope' }]), 'groups[0].fields[3].id'],
    ['an unknown group id', (tpl) => ({ groups: [...withSystem(tpl, []).groups, { id: 'grp_nope', name: 'X', fields: [] }] }), 'groups[2].id'],
    ['the same group twice', (tpl) => ({ groups: [...withSystem(tpl, []).groups, keepGroup(tpl.groups[1]!)] }), 'groups[2].id'],
    ['the same field twice', (tpl) => withSystem(tpl, [{ id: field(tpl, 'a').id }, { id: field(tpl, 'a').id }]), 'groups[0].fields[4].id'],
    ['a new field reusing a kept key', (tpl) => withSystem(tpl, [{ id: field(tpl, 'a').id }, textField('a')]), 'groups[0].fields[4].key'],
    ['a group with sortOrder', (tpl) => ({ groups: [{ ...keepGroup(tpl.groups[0]!), sortOrder: 0 }, keepGroup(tpl.groups[1]!)] }), 'groups[0].sortOrder'],
    [
      'an invalid config for an unchanged type',
      (tpl) => withSystem(tpl, [{ id: field(tpl, 'a').id, config: { maxLength: 3 } }]),
      'groups[0].fields[3].config.maxLength',
    ],
    [
      'a duplicate sortOrder',
      (tpl) => ({ groups: [keepGroup(tpl.groups[0]!), keepGroup(tpl.groups[1]!, [{ id: field(tpl, 'other').id, sortOrder: 1 }, textField('z')])] }),
      'groups[1].fields',
    ],
  ];
  for (const [label, body, path] of badPatches) {
    it(`rejects ${label} with 422 validation_failed naming ${path}, and changes nothing`, async () => {
      const tpl = await create([
        { name: 'G', fields: [textField('a')] },
        { name: 'H', fields: [textField('other')] },
      ]);
      const before = await t.snapshot(manager.teamId);
      const res = await patch(tpl.id, body(tpl));
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(path);
      expect(await t.snapshot(manager.teamId)).toEqual(before);
    });
  }

  it('accepts round-tripped system fields (same key, type, required, config, isSystemField, systemKey and sortOrder)', async () => {
    const tpl = await create([{ name: 'G', fields: [] }]);
    const [main] = tpl.groups;
    const res = await patch(tpl.id, {
      groups: [
        keepGroup(
          main!,
          main!.fields.map((f) => ({ ...f, typeChangeConfirmed: false })),
        ),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.groups).toEqual(tpl.groups);
  });
});

describe('PATCH groups: type changes (spec 4.4)', () => {
  async function changeType(fieldInput: Record<string, unknown>, change: Record<string, unknown>) {
    const tpl = await create([
      { name: 'G', fields: [] },
      { name: 'H', fields: [fieldInput] },
    ]);
    const before = await t.snapshot(manager.teamId);
    const res = await patch(tpl.id, { groups: [keepGroup(tpl.groups[0]!), keepGroup(tpl.groups[1]!, [{ id: tpl.groups[1]!.fields[0]!.id, ...change }])] });
    return { tpl, res, before };
  }
  const options = [{ value: 'a', label: 'A', sortOrder: 0 }];

  it('changes between empty-config types without confirmation (text to email)', async () => {
    const { res } = await changeType(textField('f'), { type: 'email' });
    expect(res.status).toBe(200);
    expect(res.body.data.groups[1].fields[0]).toMatchObject({ type: 'email', config: {} });
  });

  it('carries options over between select, radio and checkbox without confirmation', async () => {
    const { res } = await changeType(textField('f', { type: 'select', config: { options } }), { type: 'checkbox' });
    expect(res.status).toBe(200);
    expect(res.body.data.groups[1].fields[0]).toMatchObject({ type: 'checkbox', config: { options } });
  });

  it('carries media limits over between image and file without confirmation', async () => {
    const { res } = await changeType(textField('f', { type: 'image', config: { maxCount: 2, accept: ['image/png'] } }), { type: 'file' });
    expect(res.body.data.groups[1].fields[0]).toMatchObject({ type: 'file', config: { maxCount: 2, accept: ['image/png'] } });
  });

  it('migrates to richtext with mode html when no config is supplied', async () => {
    const { res } = await changeType(textField('f', { type: 'textarea' }), { type: 'richtext' });
    expect(res.body.data.groups[1].fields[0]).toMatchObject({ type: 'richtext', config: { mode: 'html' } });
  });

  it('keeps name, required and placeholder across a type change', async () => {
    const { res } = await changeType(textField('f', { name: 'Label', required: true, placeholder: 'ph' }), { type: 'url' });
    expect(res.body.data.groups[1].fields[0]).toMatchObject({ type: 'url', name: 'Label', required: true, placeholder: 'ph' });
  });

  for (const [label, from, to] of [
    ['select to text (drops options)', textField('f', { type: 'select', config: { options } }), { type: 'text' }],
    [
      'number with a unit to currency (drops unit)',
      textField('f', { type: 'number', config: { unit: 'kg' } }),
      { type: 'currency', config: { code: 'EUR', symbol: '€', decimals: 2 } },
    ],
    ['richtext to textarea (drops mode)', textField('f', { type: 'richtext', config: { mode: 'delta' } }), { type: 'textarea' }],
    ['image with limits to text (drops media limits)', textField('f', { type: 'image', config: { maxCount: 1 } }), { type: 'text' }],
    [
      'currency to number (drops code, symbol, decimals)',
      textField('f', { type: 'currency', config: { code: 'EUR', symbol: '€', decimals: 2 } }),
      { type: 'number' },
    ],
  ] as const) {
    it(`requires typeChangeConfirmed for ${label}: 422 without it, changing nothing; 200 with it`, async () => {
      const { tpl, res, before } = await changeType({ ...from }, { ...to });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('groups[1].fields[0].typeChangeConfirmed');
      expect(await t.snapshot(manager.teamId)).toEqual(before);
      const confirmed = await patch(tpl.id, {
        groups: [keepGroup(tpl.groups[0]!), keepGroup(tpl.groups[1]!, [{ id: tpl.groups[1]!.fields[0]!.id, ...to, typeChangeConfirmed: true }])],
      });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.data.groups[1].fields[0].type).toBe(to.type);
      expect(confirmed.text).not.toContain('typeChangeConfirmed');
    });
  }

  it('drops the options when a confirmed change turns a select into text', async () => {
    const { tpl } = await changeType(textField('f', { type: 'select', config: { options } }), {});
    const res = await patch(tpl.id, {
      groups: [keepGroup(tpl.groups[0]!), keepGroup(tpl.groups[1]!, [{ id: tpl.groups[1]!.fields[0]!.id, type: 'text', typeChangeConfirmed: true }])],
    });
    expect(res.body.data.groups[1].fields[0].config).toEqual({});
  });

  for (const [label, to, path] of [
    ['text to currency without a config', { type: 'currency' }, 'config.code'],
    ['text to select without options', { type: 'select' }, 'config.options'],
  ] as const) {
    it(`rejects ${label} (nothing to migrate) with 422 naming ${path}, and changes nothing`, async () => {
      const { res, before } = await changeType(textField('f'), { ...to });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(`groups[1].fields[0].${path}`);
      expect(await t.snapshot(manager.teamId)).toEqual(before);
    });
  }

  it('accepts text to select when the new options are supplied, without confirmation', async () => {
    const { res } = await changeType(textField('f'), { type: 'select', config: { options } });
    expect(res.status).toBe(200);
    expect(res.body.data.groups[1].fields[0].config).toEqual({ options });
  });
});
