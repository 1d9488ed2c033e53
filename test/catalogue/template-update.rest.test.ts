import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey } from '../support/given.ts';
import { templateName, textField } from '../support/given-templates.ts';
import { send } from '../support/http.ts';
import { type TemplateRestWorld, URL, useTemplateRest } from './template.rest.support.ts';

/** GET, PATCH and DELETE /v1/product-info-templates/{id} (getTemplate, updateTemplate, deleteTemplate). */
const { world, versionCount, create } = useTemplateRest();
let env: TestEnv;
let manager: GivenKey;
let t: TemplateRestWorld['t'];

beforeAll(() => {
  ({ env, manager, t } = world);
});

describe('GET /v1/product-info-templates/{id} (getTemplate)', () => {
  it('returns the template with the ETag given at creation', async () => {
    const created = await create({ name: templateName(), groups: [{ name: 'B', fields: [textField('a')] }] });
    const res = await send(env, { url: `${URL}/${created.body.data.id}`, key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(created.body.data);
    expect(res.headers.etag).toBe(created.headers.etag);
  });

  it('gives 404 not_found for an unknown id of 128 characters and for a deleted template', async () => {
    expect((await send(env, { url: `${URL}/${'x'.repeat(128)}`, key: manager.key })).body.code).toBe('not_found');
    const gone = await t.template(manager);
    await send(env, { method: 'DELETE', url: `${URL}/${gone.id}`, key: manager.key });
    const res = await send(env, { url: `${URL}/${gone.id}`, key: manager.key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, data: null, code: 'not_found' });
  });

  for (const length of [129, 2000]) {
    it(`rejects a ${length}-character path id with 422 validation_failed in the envelope`, async () => {
      const res = await send(env, { url: `${URL}/${'x'.repeat(length)}`, key: manager.key });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, data: null, code: 'validation_failed' });
      expect(res.body.details[0].field).toBe('id');
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
    });
  }
});

describe('PATCH /v1/product-info-templates/{id} (updateTemplate)', () => {
  it('changes only the given metadata, bumps updatedAt, returns a new ETag and writes a new version even without groups', async () => {
    const created = await create({ name: templateName(), description: 'keep', groups: [{ name: 'B', fields: [textField('a')] }] });
    const id = created.body.data.id;
    const name = templateName();
    const res = await send(env, { method: 'PATCH', url: `${URL}/${id}`, key: manager.key, body: { name: ` ${name} ` } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name, description: 'keep', groups: created.body.data.groups });
    expect(res.body.data.updatedAt > created.body.data.updatedAt).toBe(true);
    expect(res.headers.etag).not.toBe(created.headers.etag);
    expect(await versionCount(id)).toBe(2);
    const enabledOnly = await send(env, { method: 'PATCH', url: `${URL}/${id}`, key: manager.key, body: { enabled: false } });
    expect(enabledOnly.body.data.enabled).toBe(false);
    expect(await versionCount(id)).toBe(3);
  });

  it('clears the description with null', async () => {
    const tpl = await t.template(manager, { description: 'd' });
    const res = await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body: { description: null } });
    expect(res.body.data.description).toBeNull();
  });

  it('applies the change when If-Match carries the current ETag', async () => {
    const created = await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] });
    const res = await send(env, {
      method: 'PATCH',
      url: `${URL}/${created.body.data.id}`,
      key: manager.key,
      body: { enabled: false },
      headers: { 'if-match': created.headers.etag! },
    });
    expect(res.status).toBe(200);
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const created = await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] });
    const id = created.body.data.id;
    await send(env, { method: 'PATCH', url: `${URL}/${id}`, key: manager.key, body: { description: 'elsewhere' } });
    const before = await t.snapshot(manager.teamId);
    const res = await send(env, {
      method: 'PATCH',
      url: `${URL}/${id}`,
      key: manager.key,
      body: { description: 'mine' },
      headers: { 'if-match': created.headers.etag! },
    });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('precondition_failed');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('lets the later write win when If-Match is omitted', async () => {
    const tpl = await t.template(manager);
    await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body: { description: 'first' } });
    const res = await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body: { description: 'second' } });
    expect(res.body.data.description).toBe('second');
  });

  it('gives one 200 and one 412 to two PATCHes racing with the same If-Match, and keeps versions consistent', async () => {
    const created = await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] });
    const id = created.body.data.id;
    const etag = created.headers.etag!;
    const results = await Promise.all(
      ['one', 'two'].map((description) =>
        send(env, { method: 'PATCH', url: `${URL}/${id}`, key: manager.key, body: { description }, headers: { 'if-match': etag } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    const winner = results.find((r) => r.status === 200)!;
    const rows = await env.orm.em.fork().execute<{ number: number; description: string | null; current: boolean }[]>(
      `select v.number, v.description, v.id = t.current_version_id as current
         from template_versions v join product_info_templates t on t.id = v.template_id where v.template_id = ? order by v.number`,
      [id],
    );
    expect(rows).toEqual([
      { number: 1, description: null, current: false },
      { number: 2, description: winner.body.data.description, current: true },
    ]);
    const read = await send(env, { url: `${URL}/${id}`, key: manager.key });
    expect(read.headers.etag).toBe(winner.headers.etag);
  });

  it('rejects a name taken by another live template with 409 name_in_use and changes nothing', async () => {
    const taken = await t.template(manager);
    const tpl = await t.template(manager);
    const before = await t.snapshot(manager.teamId);
    const res = await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body: { name: taken.name } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('name_in_use');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('keeps its own name when PATCHed with it', async () => {
    const tpl = await t.template(manager);
    expect((await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body: { name: tpl.name } })).status).toBe(200);
  });

  const badPatches: Array<[string, unknown, string]> = [
    ['an empty body', {}, '(body)'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['a blank name', { name: ' ' }, 'name'],
    ['a 31-character name', { name: 'n'.repeat(31) }, 'name'],
    ['a 51-character description', { description: 'd'.repeat(51) }, 'description'],
    ['an empty groups array', { groups: [] }, 'groups'],
    ['a syncStrategy other than newOnly', { syncStrategy: 'repin' }, 'syncStrategy'],
    ['a brand id that does not exist', { boundBrandIds: [2147483647] }, 'boundBrandIds'],
  ];
  for (const [label, body, field] of badPatches) {
    it(`rejects ${label} with 422 validation_failed and changes nothing`, async () => {
      const tpl = await t.template(manager);
      const before = await t.snapshot(manager.teamId);
      const res = await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await t.snapshot(manager.teamId)).toEqual(before);
    });
  }

  it('gives 404 for an unknown template and writes nothing', async () => {
    const before = await t.snapshot(manager.teamId);
    const res = await send(env, { method: 'PATCH', url: `${URL}/tpl_missing`, key: manager.key, body: { enabled: false } });
    expect(res.status).toBe(404);
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });
});

describe('DELETE /v1/product-info-templates/{id} (deleteTemplate)', () => {
  it('soft-deletes: 200 with data {id} as a string and an ETag; the template reads and lists as absent; its versions remain', async () => {
    const tpl = await t.template(manager);
    await send(env, { method: 'PATCH', url: `${URL}/${tpl.id}`, key: manager.key, body: { enabled: false } });
    const res = await send(env, { method: 'DELETE', url: `${URL}/${tpl.id}`, key: manager.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: tpl.id });
    expect(res.headers.etag).toMatch(/^"/);
    expect((await send(env, { url: `${URL}/${tpl.id}`, key: manager.key })).status).toBe(404);
    const list = await send(env, { url: `${URL}?pageSize=100`, key: manager.key });
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(tpl.id);
    const rows = await env.orm.em.fork().execute<{ deleted_at: string | null }[]>('select deleted_at from product_info_templates where id = ?', [tpl.id]);
    expect(rows[0]!.deleted_at).not.toBeNull();
    expect(await versionCount(tpl.id)).toBe(2);
  });

  it('gives 404 on a second delete', async () => {
    const tpl = await t.template(manager);
    await send(env, { method: 'DELETE', url: `${URL}/${tpl.id}`, key: manager.key });
    expect((await send(env, { method: 'DELETE', url: `${URL}/${tpl.id}`, key: manager.key })).status).toBe(404);
  });

  it('refuses a stale If-Match with 412 and deletes nothing', async () => {
    const created = await create({ name: templateName(), groups: [{ name: 'B', fields: [] }] });
    await send(env, { method: 'PATCH', url: `${URL}/${created.body.data.id}`, key: manager.key, body: { enabled: false } });
    const before = await t.snapshot(manager.teamId);
    const res = await send(env, { method: 'DELETE', url: `${URL}/${created.body.data.id}`, key: manager.key, headers: { 'if-match': created.headers.etag! } });
    expect(res.status).toBe(412);
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });

  it('rejects an unknown body field with 422 and deletes nothing', async () => {
    const tpl = await t.template(manager);
    const before = await t.snapshot(manager.teamId);
    const res = await send(env, { method: 'DELETE', url: `${URL}/${tpl.id}`, key: manager.key, body: { force: true } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe('force');
    expect(await t.snapshot(manager.teamId)).toEqual(before);
  });
});
