import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerAllowance, AnswerBudget, READ_WITH_SIZE_BYTES } from '../../src/core/platform/answer-budget.ts';
import { enumValueName } from '../../src/graphql/enums.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { givenTemplates, templateName, textField } from '../support/given-templates.ts';
import { graphql, send } from '../support/http.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';

let env: TestEnv;
let g: ReturnType<typeof given>;
let t: ReturnType<typeof givenTemplates>;
let manager: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  g = given(env);
  t = givenTemplates(env);
  manager = await g.key(await g.team(), 'manage');
});
afterAll(async () => env.close());

const TEMPLATE_FIELDS = `id name description enabled isSystemDefault isLibraryDefault createdAt updatedAt boundBrandIds boundCategoryIds
  groups { id name isDefault sortOrder fields { id key name type required placeholder sortOrder config isSystemField systemKey } }`;
const CREATE = `mutation($input: TemplateCreateInput!, $key: String) { createTemplate(input: $input, idempotencyKey: $key) { etag template { ${TEMPLATE_FIELDS} } } }`;
const UPDATE = `mutation($id: String!, $input: TemplatePatchInput!, $ifMatch: String) { updateTemplate(id: $id, input: $input, ifMatch: $ifMatch) { etag template { ${TEMPLATE_FIELDS} } } }`;
const DELETE = `mutation($id: String!, $input: TemplateDeleteInput, $ifMatch: String) { deleteTemplate(id: $id, input: $input, ifMatch: $ifMatch) { id etag } }`;

/** A template as REST shows it, with the field types and system keys GraphQL writes as enum values. */
function asGraphql(rest: { groups: { fields: { type: string; systemKey: string | null }[] }[] }) {
  return {
    ...rest,
    groups: rest.groups.map((group) => ({
      ...group,
      fields: group.fields.map((f) => ({ ...f, type: enumValueName(f.type), systemKey: f.systemKey === null ? null : enumValueName(f.systemKey) })),
    })),
  };
}

describe('GraphQL templates', () => {
  it('createTemplate runs the same core operation as REST: seeded system fields, JSON config in and out, an ETag equal to REST getTemplate', async () => {
    const options = [{ value: 'r', label: 'Red', sortOrder: 0 }];
    const res = await graphql(env, manager.key, CREATE, {
      input: { name: templateName(), groups: [{ name: 'Main', fields: [{ key: 'colour', name: 'Colour', type: 'SELECT', config: { options } }] }] },
    });
    expect(res.body.errors).toBeUndefined();
    const { template, etag } = res.body.data.createTemplate;
    expect(template.isSystemDefault).toBe(false);
    expect(template.groups[0].fields.map((f: { key: string }) => f.key)).toEqual(['name', 'sku', 'mainImage', 'colour']);
    expect(template.groups[0].fields[3].config).toEqual({ options });
    const rest = await send(env, { url: `/v1/product-info-templates/${template.id}`, key: manager.key });
    expect(template.groups[0].fields.map((f: { type: string; systemKey: string | null }) => [f.type, f.systemKey])).toEqual([
      ['TEXT', 'NAME'],
      ['TEXT', 'SKU'],
      ['IMAGE', 'MAIN_IMAGE'],
      ['SELECT', null],
    ]);
    expect(template).toEqual(asGraphql(rest.body.data));
    expect(rest.headers.etag).toBe(etag);
  });

  it('accepts a config written as a GraphQL object literal', async () => {
    const res = await graphql(
      env,
      manager.key,
      `mutation { createTemplate(input: { name: "${templateName()}", groups: [{ name: "G", fields: [{ key: "price", name: "Price", type: CURRENCY, config: { code: "EUR", symbol: "€", decimals: 2 } }] }] }) { template { groups { fields { key config } } } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createTemplate.template.groups[0].fields[3].config).toEqual({ code: 'EUR', symbol: '€', decimals: 2 });
  });

  it('reports invalid config with extensions.code validation_failed and details, writing nothing', async () => {
    const before = await t.snapshot(manager.teamId);
    const res = await graphql(env, manager.key, CREATE, {
      input: { name: templateName(), groups: [{ name: 'G', fields: [{ key: 'p', name: 'P', type: 'CURRENCY', config: {} }] }] },
    });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].extensions.details.map((d: { field: string }) => d.field)).toContain('groups[0].fields[0].config.code');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('template(id) and templates list with groups, fields and versions; versions of all listed templates come from one batched read', async () => {
    const key = await g.key(await g.team(), 'manage');
    const a = await t.template(key, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const b = await t.template(key);
    const ctx = await g.ctx(key);
    await env.core.catalogue.templates.update(ctx, b.id, { description: 'second version' });
    const original = env.core.catalogue.templates.versionWindows.bind(env.core.catalogue.templates);
    let batches = 0;
    env.core.catalogue.templates.versionWindows = async (c, windows) => {
      batches++;
      return original(c, windows);
    };
    try {
      const res = await graphql(
        env,
        key.key,
        `{ templates(pageSize: 10) { items { id versions { id number templateId description groups { fields { key } } } } pagination { totalCount } } }`,
      );
      expect(res.body.errors).toBeUndefined();
      expect(batches).toBe(1);
      const items = res.body.data.templates.items;
      expect(items.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
      expect(items[0].versions.map((v: { number: number; description: string | null }) => [v.number, v.description])).toEqual([
        [1, null],
        [2, 'second version'],
      ]);
      expect(items[1].versions).toHaveLength(1);
      expect(items[1].versions[0].groups[0].fields.map((f: { key: string }) => f.key)).toEqual(['name', 'sku', 'mainImage', 'a']);
    } finally {
      env.core.catalogue.templates.versionWindows = original;
    }
    const one = await graphql(env, key.key, `query($id: String!) { template(id: $id) { etag template { id versions { id } } } }`, { id: b.id });
    expect(one.body.data.template.template.versions).toHaveLength(2);
    const version = await graphql(env, key.key, `query($id: String!) { templateVersion(id: $id) { number templateId } }`, {
      id: one.body.data.template.template.versions[0].id,
    });
    expect(version.body.data.templateVersion).toEqual({ number: 1, templateId: b.id });
  });

  it('updateTemplate with a stale ifMatch fails with extensions.code precondition_failed and changes nothing', async () => {
    const created = await graphql(env, manager.key, CREATE, { input: { name: templateName(), groups: [{ name: 'G', fields: [] }] } });
    const { template, etag } = created.body.data.createTemplate;
    const ok = await graphql(env, manager.key, UPDATE, { id: template.id, input: { description: 'v2' }, ifMatch: etag });
    expect(ok.body.data.updateTemplate.template.description).toBe('v2');
    const before = await t.snapshot(manager.teamId);
    const stale = await graphql(env, manager.key, UPDATE, { id: template.id, input: { description: 'v3' }, ifMatch: etag });
    expect(stale.body.errors[0].extensions.code).toBe('precondition_failed');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('updateTemplate replaces groups like REST, keeping the system fields by id', async () => {
    const tpl = await t.template(manager, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const group = tpl.groups[0]!;
    const res = await graphql(env, manager.key, UPDATE, {
      id: tpl.id,
      input: { groups: [{ id: group.id, name: 'Renamed', fields: group.fields.filter((f) => f.isSystemField).map((f) => ({ id: f.id })) }] },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateTemplate.template.groups[0]).toMatchObject({ id: group.id, name: 'Renamed' });
    expect(res.body.data.updateTemplate.template.groups[0].fields).toHaveLength(3);
  });

  it('deleteTemplate of the library default needs replacementForLibraryDefault; with it, the designation moves', async () => {
    const key = await g.key(await g.team(), 'manage');
    const def = await t.template(key, { isLibraryDefault: true });
    const next = await t.template(key);
    const refused = await graphql(env, key.key, DELETE, { id: def.id });
    expect(refused.body.errors[0].extensions.code).toBe('validation_failed');
    const res = await graphql(env, key.key, DELETE, { id: def.id, input: { replacementForLibraryDefault: next.id } });
    expect(res.body.data.deleteTemplate.id).toBe(def.id);
    const read = await graphql(env, key.key, `query($id: String!) { template(id: $id) { template { isLibraryDefault } } }`, { id: next.id });
    expect(read.body.data.template.template.isLibraryDefault).toBe(true);
  });

  it('refuses mutations to a view_only key with extensions.code forbidden, and lets it read', async () => {
    const viewer = await g.key({ teamId: manager.teamId }, 'view_only');
    const before = await t.snapshot(manager.teamId);
    const res = await graphql(env, viewer.key, CREATE, { input: { name: templateName(), groups: [{ name: 'G', fields: [] }] } });
    expect(res.body.errors[0].extensions.code).toBe('forbidden');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
    const list = await graphql(env, viewer.key, `{ templates { pagination { totalCount } } }`);
    expect(list.body.errors).toBeUndefined();
  });

  it("gives not_found for another library's template", async () => {
    const tpl = await t.template(manager);
    const stranger = await g.key(await g.team(), 'manage');
    const res = await graphql(env, stranger.key, `query($id: String!) { template(id: $id) { etag } }`, { id: tpl.id });
    expect(res.body.errors[0].extensions.code).toBe('not_found');
  });
});

describe("a template's versions are admitted against the answer", () => {
  let counting: CountingApp;
  beforeAll(async () => {
    counting = await countingApp(env);
  });
  afterAll(async () => counting.close());

  /** Statements a template(id) query sends, with and without versions. */
  async function versionStatements(key: GivenKey, id: string): Promise<{ versions: number; statements: number }> {
    const run = async (selection: string) => {
      counting.statements.length = 0;
      const res = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        payload: { query: `query($id: String!) { template(id: $id) { template { id ${selection} } } }`, variables: { id } },
      });
      const body = res.json();
      expect(body.errors).toBeUndefined();
      return { body, statements: counting.statements.length };
    };
    const without = await run('');
    const withVersions = await run('versions { id number description groups { id } }');
    return { versions: withVersions.body.data.template.template.versions.length, statements: withVersions.statements - without.statements };
  }

  it('versions whose groups are not asked are read without their definitions, in one statement', async () => {
    const key = await g.key(await g.team(), 'manage');
    const tpl = await t.template(key, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const ctx = await g.ctx(key);
    await env.core.catalogue.templates.update(ctx, tpl.id, { description: 'v2' });
    const read = async (selection: string, fragments = '') => {
      counting.statements.length = 0;
      const res = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        payload: { query: `query($id: String!) { template(id: $id) { template { id versions { ${selection} } } } } ${fragments}`, variables: { id: tpl.id } },
      });
      expect(res.json().errors).toBeUndefined();
      return { versions: res.json().data.template.template.versions, statements: [...counting.statements] };
    };
    const summaries = await read('id number description createdAt');
    expect(summaries.versions.map((v: { number: number; description: string | null }) => [v.number, v.description])).toEqual([
      [1, null],
      [2, 'v2'],
    ]);
    // read with the template (one statement), its versions' part without their definitions
    const versionsRead = summaries.statements.filter((sql) => sql.includes('template_versions tv'));
    expect(versionsRead).toHaveLength(1);
    expect(versionsRead[0]).not.toMatch(/tv\.definition/);
    // asked through a fragment, the groups come with their definitions
    const full = await read('...V', 'fragment V on TemplateVersion { number groups { fields { key } } }');
    expect(full.versions[1].groups[0].fields.map((f: { key: string }) => f.key)).toEqual(['name', 'sku', 'mainImage', 'a']);
    expect(full.statements.filter((sql) => sql.includes('cross join lateral') && sql.includes('definition'))).toHaveLength(1);
  });

  it('template(id) with versions whose groups are not asked reads the template and those versions in one statement', async () => {
    const key = await g.key(await g.team(), 'manage');
    const tpl = await t.template(key, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const ctx = await g.ctx(key);
    for (const description of ['v2', 'v3']) await env.core.catalogue.templates.update(ctx, tpl.id, { description });
    const read = async (selection: string, variables: Record<string, unknown> = {}, as: GivenKey = key) => {
      counting.statements.length = 0;
      const res = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${as.key}`, 'content-type': 'application/json' },
        payload: {
          query: `query($id: String!${'n' in variables ? ', $n: Int' : ''}) { template(id: $id) { etag template { id ${selection} } } }`,
          variables: { id: tpl.id, ...variables },
        },
      });
      return { body: res.json(), statements: counting.statements.length };
    };
    const numbers = (versions: Array<{ number: number }>) => versions.map((v) => v.number);
    const alone = await read('');
    const withVersions = await read('versions { id number name description createdAt }');
    expect(withVersions.body.errors).toBeUndefined();
    expect(numbers(withVersions.body.data.template.template.versions)).toEqual([1, 2, 3]);
    expect(withVersions.body.data.template.etag).toBe(alone.body.data.template.etag);
    expect(withVersions.statements).toBe(alone.statements);
    // the window's arguments, literal or variables, and two windows at once answer as their own reads
    expect(numbers((await read('versions(last: 1) { number }')).body.data.template.template.versions)).toEqual([3]);
    expect(numbers((await read('versions(before: 3, last: 1) { number }')).body.data.template.template.versions)).toEqual([2]);
    expect(numbers((await read('versions(last: $n) { number }', { n: 2 })).body.data.template.template.versions)).toEqual([2, 3]);
    expect((await read('versions(last: 0) { number }')).body.data.template.template.versions).toEqual([]);
    const two = (await read('a: versions(last: 1) { number } b: versions(before: 2) { number description }')).body.data.template.template;
    expect([numbers(two.a), numbers(two.b)]).toEqual([[3], [1]]);
    // another team's key sees no such template
    const other = await g.key(await g.team(), 'manage');
    const foreign = await read('versions { number }', {}, other);
    expect(foreign.body.errors[0].extensions.code).toBe('not_found');
    expect(foreign.body.data).toBeNull();
  });

  it('versions carrying at most READ_WITH_SIZE_BYTES come with their stored size in one statement', async () => {
    const key = await g.key(await g.team(), 'manage');
    const tpl = await t.template(key, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const ctx = await g.ctx(key);
    for (let v = 2; v <= 3; v++) await env.core.catalogue.templates.update(ctx, tpl.id, { description: `v${v}` });
    expect(await versionStatements(key, tpl.id)).toEqual({ versions: 3, statements: 1 });
  });

  it('versions carrying more than READ_WITH_SIZE_BYTES are sized first and read once admitted (two statements)', async () => {
    const key = await g.key(await g.team(), 'manage');
    // 200 fields with 255-character placeholders: about 120 KB of definition a version
    const fields = Array.from({ length: 197 }, (_, i) => ({ ...textField(`f${i}`), name: `${'n'.repeat(120)}${i}`, placeholder: 'p'.repeat(255) }));
    const tpl = await t.template(key, { groups: [{ name: 'G', fields }] });
    const ctx = await g.ctx(key);
    for (let v = 2; v <= 3; v++) await env.core.catalogue.templates.update(ctx, tpl.id, { description: `v${v}` });
    const [sized] = await env.orm.em
      .fork()
      .execute<{ bytes: number }[]>('select sum(octet_length(definition::text))::int as bytes from template_versions where template_id = ?', [tpl.id]);
    expect(sized!.bytes).toBeGreaterThan(READ_WITH_SIZE_BYTES);
    expect(await versionStatements(key, tpl.id)).toEqual({ versions: 3, statements: 2 });
  });

  it('a versions read past what the answer may still carry fails with response_too_large, small or large', async () => {
    const key = await g.key(await g.team(), 'manage');
    const tpl = await t.template(key, { groups: [{ name: 'G', fields: [textField('a')] }] });
    const ctx = await g.ctx(key);
    await env.core.catalogue.templates.update(ctx, tpl.id, { description: 'v2' });
    const windows = [{ templateId: tpl.id, before: null, last: 10 }];
    const budget = new AnswerBudget(64 * 1024 * 1024);
    const tight = { ...ctx, answer: new AnswerAllowance(budget, 100) };
    await expect(env.core.catalogue.templates.versionWindows(tight, windows)).rejects.toMatchObject({ code: 'response_too_large' });
    const roomy = { ...ctx, answer: new AnswerAllowance(budget, 1024 * 1024) };
    const [versions] = await env.core.catalogue.templates.versionWindows(roomy, windows);
    expect(versions!.map((v) => v.description)).toEqual([null, 'v2']);
    expect(roomy.answer.admittedBytes).toBeGreaterThan(100);
    expect(budget.used).toBeGreaterThan(0);
    roomy.answer.releaseAll();
    expect(budget.used).toBe(0);
  });
});
