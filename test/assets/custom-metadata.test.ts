import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import type { EventWorld } from '../support/event-world.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { given, type GivenKey, type GivenTeam } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { writeImage } from '../support/media-files.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * Issue 14 item 5: custom metadata fields and custom field templates, the values files carry, their
 * METADATA and CUSTOM_FIELD events received by a real HTTP receiver through a material subscription
 * (and folder UPDATE through a folder subscription), search by customFieldTemplateIds /
 * customFieldId, and isolation between teams; through GraphQL and the operator CLI.
 */

let lib: LibraryEventWorld;
let world: EventWorld;
let files: LibraryEventWorld['files'];
let viewer: GivenKey;
let editor: GivenKey;
let ann: number;
let folderId: number;
let other: { team: GivenTeam; key: GivenKey; member: number; fileId: number; fieldId: number; templateId: number; customFieldId: number };
let cliEnv: Record<string, string>;
/** The metadata fields and the template of the team, by name. */
const fields: Record<string, number> = {};
let template: { id: number; fields: Record<string, number> };
let secondTemplate: { id: number; fields: Record<string, number> };

const CREATE_FIELD = 'mutation($input: CustomFieldDefinitionInput!) { createLibraryMetadataField(input: $input) { id name type options createdAt } }';
const LIST_FIELDS = '{ libraryMetadataFields { id name type options } }';
const CREATE_TEMPLATE = 'mutation($input: CustomFieldTemplateInput!) { createCustomFieldTemplate(input: $input) { id name fields { id templateId name type options position } } }';
const LIST_TEMPLATES = '{ customFieldTemplates { id name fields { id name type options position } } }';
const SET_METADATA = 'mutation($id: Int!, $values: [LibraryMetadataValueInput!]!) { setLibraryFileMetadata(id: $id, values: $values) { materialId recordId values { fieldId name type value } } }';
const SET_CUSTOM = 'mutation($id: Int!, $t: Int!, $values: [LibraryCustomFieldValueInput!]!) { setLibraryFileCustomFields(id: $id, templateId: $t, values: $values) { materialId templateId templateName values { customFieldId name type value } } }';
const READ = 'query($id: Int!) { libraryFile(id: $id) { id metadata { recordId values { name value } } customFields { templateId templateName values { customFieldId value } } } }';

const gql = (key: GivenKey, query: string, variables: Record<string, unknown> = {}) => graphql(world.env, key.key, query, variables);

/** A GraphQL request of the manage key acting for a member (X-Shelf-Member), as a signed-in frontend sends it. */
function asAnn(query: string, variables: Record<string, unknown>) {
  return send(world.env, { method: 'POST', url: '/graphql', key: world.key.key, headers: { 'x-shelf-member': String(ann) }, body: { query, variables } });
}

beforeAll(async () => {
  // the folder exists first (an import of blue.png creates it), then the subscriptions
  lib = await createLibraryEventWorld({
    name: 'custom-metadata',
    folder: '/cm',
    materialEvents: ['MATERIAL_METADATA_UPDATED'],
    seedFile: async (dir) => {
      await writeImage(join(dir.path, 'blue.png'), { width: 20, height: 10, colour: '#0000ff', format: 'png' });
      return join(dir.path, 'blue.png');
    },
  });
  ({ world, files, cliEnv, folderId } = lib);
  viewer = await given(world.env).key(world.team, 'view_only');
  editor = await given(world.env).key(world.team, 'editable');
  ann = (await given(world.env).member(world.team, 'Ann')).userId;

  // another team with a field, a template and a file of its own
  const team = await given(world.env).team('Elsewhere');
  const key = await given(world.env).key(team, 'manage');
  const member = (await given(world.env).member(team, 'Eve')).userId;
  const fileId = (await given(world.env).libraryFile(team, { file: join(files.path, 'blue.png'), folder: '/theirs', name: 'theirs.png' })).id;
  const field = await gql(key, CREATE_FIELD, { input: { name: 'Budget', type: 'NUMBER' } });
  const tpl = await gql(key, CREATE_TEMPLATE, { input: { name: 'Rights', fields: [{ name: 'Licence', type: 'TEXT' }] } });
  const theirTemplate = tpl.body.data.createCustomFieldTemplate;
  other = { team, key, member, fileId, fieldId: field.body.data.createLibraryMetadataField.id, templateId: theirTemplate.id, customFieldId: theirTemplate.fields[0].id };
  const carried = await gql(key, SET_CUSTOM, { id: fileId, t: other.templateId, values: [{ customFieldId: other.customFieldId, value: 'CC-BY' }] });
  expect(carried.body.errors).toBeUndefined();
});
afterAll(() => lib.close());

async function newFile(name: string): Promise<number> {
  return (await given(world.env).libraryFile(world.team, { file: join(files.path, 'blue.png'), folder: '/cm/sub', name })).id;
}

/** The MATERIAL_METADATA_UPDATED events received for a file, waiting up to 10 s for `count` of them. */
async function eventsFor(fileId: number, count: number): Promise<Received[]> {
  const mine = () => world.receiver.received.filter((r) => r.path === '/m' && (r.body as { payload: { materialIds: number[] } }).payload.materialIds[0] === fileId);
  const deadline = Date.now() + 10_000;
  while (mine().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return mine();
}

/** The folder UPDATEs received for a file (its import sent ADD), waiting up to 10 s for `count` of them. */
async function folderUpdatesFor(fileId: number, count: number): Promise<Received[]> {
  const mine = () => world.receiver.received.filter((r) => r.path === '/f' && r.body.type === 'UPDATE' && (r.body as { assets: Array<{ id: number }> }).assets[0]?.id === fileId);
  const deadline = Date.now() + 10_000;
  while (mine().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return mine();
}

/** Gives the relay time to deliver anything that would (wrongly) have been written. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 600));
}

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);

/** What a file's values are in the database, and when it was last updated. */
async function stored(fileId: number) {
  const [file] = await db<{ updated_at: Date }>('select updated_at from library_files where id = ?', [fileId]);
  const [record] = await db<{ values: unknown }>('select values from library_metadata_records where file_id = ?', [fileId]);
  const custom = await db('select field_id, template_id, value from library_file_custom_values where file_id = ? order by field_id', [fileId]);
  return { updatedAt: file!.updated_at, metadata: record?.values ?? null, custom };
}

async function search(body: Record<string, unknown>, key: GivenKey = world.key): Promise<number[]> {
  const res = await send(world.env, { method: 'POST', url: '/open/search-assets', key: key.key, body: { endPoint: 100, ...body } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.result.total).toBe(res.body.result.assets.length);
  return res.body.result.assets.map((a: { id: number }) => a.id).sort((a: number, b: number) => a - b);
}

describe('custom metadata fields and custom field templates: definitions', () => {
  it('defines metadata fields of each type with a manage key; any role of the team lists them, by name', async () => {
    const inputs = [
      { name: 'Photographer', type: 'TEXT' },
      { name: 'Budget', type: 'NUMBER' },
      { name: 'Shot on', type: 'DATE' },
      { name: 'Usage', type: 'SELECT', options: ['web', 'print'] },
    ];
    for (const input of inputs) {
      const res = await gql(world.key, CREATE_FIELD, { input });
      expect(res.body.errors).toBeUndefined();
      const field = res.body.data.createLibraryMetadataField;
      expect(field).toEqual({ id: expect.any(Number), name: input.name, type: input.type, options: input.options ?? null, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) });
      fields[input.name] = field.id;
    }
    const listed = await gql(viewer, LIST_FIELDS);
    expect(listed.body.data.libraryMetadataFields.map((f: { name: string }) => f.name)).toEqual(['Budget', 'Photographer', 'Shot on', 'Usage']);
    expect(listed.body.data.libraryMetadataFields).toContainEqual({ id: fields.Usage, name: 'Usage', type: 'SELECT', options: ['web', 'print'] });
  });

  it('defines custom field templates with their fields in order', async () => {
    const res = await gql(world.key, CREATE_TEMPLATE, {
      input: { name: 'Campaign', fields: [{ name: 'Code', type: 'TEXT' }, { name: 'Reach', type: 'NUMBER' }, { name: 'Launch', type: 'DATE' }, { name: 'Channel', type: 'SELECT', options: ['tv', 'social'] }] },
    });
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createCustomFieldTemplate;
    expect(created).toMatchObject({ name: 'Campaign', fields: [{ name: 'Code', type: 'TEXT', options: null, position: 0, templateId: created.id }, { name: 'Reach', position: 1 }, { name: 'Launch', position: 2 }, { name: 'Channel', type: 'SELECT', options: ['tv', 'social'], position: 3 }] });
    template = { id: created.id, fields: Object.fromEntries(created.fields.map((f: { name: string; id: number }) => [f.name, f.id])) };
    const second = (await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Archive', fields: [{ name: 'Box', type: 'TEXT' }] } })).body.data.createCustomFieldTemplate;
    secondTemplate = { id: second.id, fields: { Box: second.fields[0].id } };
    const listed = await gql(viewer, LIST_TEMPLATES);
    expect(listed.body.data.customFieldTemplates.map((t: { name: string }) => t.name)).toEqual(['Archive', 'Campaign']);
  });

  it('refuses a weaker role, a named member, a taken name and bad definitions; nothing is defined', async () => {
    const countBefore = await db<{ n: number }>('select (select count(*) from library_metadata_fields)::int + (select count(*) from library_custom_field_templates)::int as n');
    expect((await gql(editor, CREATE_FIELD, { input: { name: 'X', type: 'TEXT' } })).body.errors[0].extensions.code).toBe('forbidden');
    expect((await asAnn(CREATE_FIELD, { input: { name: 'X', type: 'TEXT' } })).body.errors[0].extensions.code).toBe('forbidden');
    expect((await gql(editor, CREATE_TEMPLATE, { input: { name: 'X', fields: [{ name: 'a', type: 'TEXT' }] } })).body.errors[0].extensions.code).toBe('forbidden');
    expect((await gql(world.key, CREATE_FIELD, { input: { name: 'Budget', type: 'TEXT' } })).body.errors[0].extensions.code).toBe('name_in_use');
    expect((await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Campaign', fields: [{ name: 'a', type: 'TEXT' }] } })).body.errors[0].extensions.code).toBe('name_in_use');
    const refusals: Array<[Record<string, unknown>, { field: string; message: string }]> = [
      [{ name: 'Kind', type: 'SELECT' }, { field: 'options', message: 'are required for type select' }],
      [{ name: 'Kind', type: 'TEXT', options: ['a'] }, { field: 'options', message: 'are allowed only for type select' }],
      [{ name: 'Kind', type: 'SELECT', options: ['a', 'a'] }, { field: 'options[1]', message: 'repeats an earlier option' }],
      [{ name: '   ', type: 'TEXT' }, { field: 'name', message: 'must not be blank' }],
    ];
    for (const [input, detail] of refusals) {
      const res = await gql(world.key, CREATE_FIELD, { input });
      expect(res.body.errors[0].extensions, JSON.stringify(input)).toMatchObject({ code: 'validation_failed', details: [detail] });
    }
    const twins = await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Twins', fields: [{ name: 'a', type: 'TEXT' }, { name: 'a', type: 'NUMBER' }] } });
    expect(twins.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'fields[1].name', message: 'repeats an earlier field\'s name' }] });
    const empty = await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Empty', fields: [] } });
    expect(empty.body.errors[0].extensions.code).toBe('validation_failed');
    expect(await db('select (select count(*) from library_metadata_fields)::int + (select count(*) from library_custom_field_templates)::int as n')).toEqual(countBefore);
  });

  it('keeps each team\'s definitions to itself', async () => {
    const theirs = await gql(other.key, LIST_FIELDS);
    expect(theirs.body.data.libraryMetadataFields.map((f: { name: string }) => f.name)).toEqual(['Budget']);
    expect((await gql(other.key, LIST_TEMPLATES)).body.data.customFieldTemplates.map((t: { name: string }) => t.name)).toEqual(['Rights']);
    const ours = await gql(world.key, LIST_FIELDS);
    expect(ours.body.data.libraryMetadataFields.map((f: { id: number }) => f.id)).not.toContain(other.fieldId);
  });

  it('`asset metadata-field` and `asset field-template` define and list for a team from the CLI', async () => {
    const field = await runCli(['asset', 'metadata-field', 'create', '--team', String(world.team.teamId), '--name', 'Region', '--type', 'select', '--options', 'EU,US'], cliEnv);
    expect(field.code, field.stdout).toBe(0);
    expect(field.json).toMatchObject({ id: expect.any(Number), name: 'Region', type: 'select', options: ['EU', 'US'] });
    fields.Region = field.json.id;
    const listed = await runCli(['asset', 'metadata-field', 'list', '--team', String(world.team.teamId)], cliEnv);
    expect(listed.json.fields.map((f: { name: string }) => f.name)).toEqual(['Budget', 'Photographer', 'Region', 'Shot on', 'Usage']);
    const tpl = await runCli(['asset', 'field-template', 'create', '--team', String(world.team.teamId), '--name', 'Print', '--fields', '[{"name":"Paper","type":"text"}]'], cliEnv);
    expect(tpl.json).toMatchObject({ name: 'Print', fields: [{ name: 'Paper', type: 'text', position: 0 }] });
    const templates = await runCli(['asset', 'field-template', 'list', '--team', String(world.team.teamId)], cliEnv);
    expect(templates.json.templates.map((t: { name: string }) => t.name)).toEqual(['Archive', 'Campaign', 'Print']);
    const badType = await runCli(['asset', 'metadata-field', 'create', '--team', String(world.team.teamId), '--name', 'Odd', '--type', 'colour'], cliEnv);
    expect(badType.code).toBe(1);
    expect(badType.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'type' }] });
    const noTeam = await runCli(['asset', 'metadata-field', 'list', '--team', '999999'], cliEnv);
    expect(noTeam.json.error.code).toBe('not_found');
  }, 90_000);
});

describe('a file\'s metadata values (changeType METADATA)', () => {
  it('sets a value of each type and sends METADATA with the record and the fields created now, and folder UPDATE', async () => {
    const fileId = await newFile('meta.png');
    const res = await asAnn(SET_METADATA, {
      id: fileId,
      values: [
        { fieldId: fields.Photographer, value: 'Ann Lee' },
        { fieldId: fields.Budget, value: 1250.5 },
        { fieldId: fields['Shot on'], value: '2026-03-01T10:00:00.5+02:00' },
        { fieldId: fields.Usage, value: 'web' },
      ],
    });
    expect(res.body.errors).toBeUndefined();
    const view = res.body.data.setLibraryFileMetadata;
    expect(view).toEqual({
      materialId: fileId,
      recordId: expect.any(Number),
      values: [
        { fieldId: fields.Budget, name: 'Budget', type: 'NUMBER', value: 1250.5 },
        { fieldId: fields.Photographer, name: 'Photographer', type: 'TEXT', value: 'Ann Lee' },
        { fieldId: fields['Shot on'], name: 'Shot on', type: 'DATE', value: '2026-03-01T08:00:00.500000Z' },
        { fieldId: fields.Usage, name: 'Usage', type: 'SELECT', value: 'web' },
      ],
    });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_METADATA_UPDATED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'member', id: ann },
      payload: {
        changeType: 'METADATA',
        materialIds: [fileId],
        materials: [{ materialId: fileId, recordId: view.recordId, metadata: { Photographer: 'Ann Lee', Budget: 1250.5, 'Shot on': '2026-03-01T08:00:00.500000Z', Usage: 'web' } }],
      },
      sequence: 1,
    });
    const [update] = await folderUpdatesFor(fileId, 1);
    expect(update!.body).toMatchObject({ eventType: 'FOLDER_CONTENT_UPDATE', folderId, type: 'UPDATE', assets: [{ id: fileId, name: 'meta.png', userId: String(ann) }], orgId: world.team.teamId });
  });

  it('sends only the fields updated now; clearing sends null; a call that changes nothing writes nothing', async () => {
    const fileId = await newFile('meta-changes.png');
    const first = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Photographer, value: 'Ann' }, { fieldId: fields.Budget, value: 10 }] });
    const recordId = first.body.data.setLibraryFileMetadata.recordId;
    await eventsFor(fileId, 1);
    const second = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Photographer, value: 'Ann' }, { fieldId: fields.Budget, value: 12 }, { fieldId: fields['Shot on'], value: '2026-05-04' }] });
    expect(second.body.data.setLibraryFileMetadata.recordId).toBe(recordId);
    const [, updated] = await eventsFor(fileId, 2);
    expect(updated!.body.payload).toEqual({ changeType: 'METADATA', materialIds: [fileId], materials: [{ materialId: fileId, recordId, metadata: { Budget: 12, 'Shot on': '2026-05-04' } }] });
    const cleared = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Budget, value: null }, { fieldId: fields.Usage }] });
    expect(cleared.body.data.setLibraryFileMetadata.values.map((v: { name: string }) => v.name)).toEqual(['Photographer', 'Shot on']);
    const [, , clearedEvent] = await eventsFor(fileId, 3);
    expect(clearedEvent!.body.payload.materials).toEqual([{ materialId: fileId, recordId, metadata: { Budget: null } }]);
    const before = await stored(fileId);
    const same = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Photographer, value: 'Ann' }, { fieldId: fields.Usage, value: null }] });
    expect(same.body.errors).toBeUndefined();
    expect(await stored(fileId)).toEqual(before);
    await settle();
    expect(await eventsFor(fileId, 0)).toHaveLength(3);
  });

  it('refuses a value of the wrong type, a field of no or another team, an unknown or foreign file and a view_only key: a clear error, nothing changed, no event', async () => {
    const fileId = await newFile('meta-refused.png');
    await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Photographer, value: 'Kept' }] });
    await eventsFor(fileId, 1);
    const before = await stored(fileId);
    const wrong: Array<[number, unknown, string]> = [
      [fields.Budget!, '12', 'must be a finite number ("Budget" is number)'],
      [fields['Shot on']!, '2026-02-30', 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time ("Shot on" is date)'],
      [fields['Shot on']!, 'next week', 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time ("Shot on" is date)'],
      [fields.Usage!, 'radio', 'must be one of the field\'s options ("Usage" is select)'],
      [fields.Photographer!, true, 'must be a string of at most 2000 characters ("Photographer" is text)'],
      [fields.Photographer!, 'x'.repeat(2001), 'must be a string of at most 2000 characters ("Photographer" is text)'],
    ];
    for (const [fieldId, value, message] of wrong) {
      // a valid value first: the whole call is refused, that one too
      const valid = fieldId === fields.Usage ? { fieldId: fields.Budget, value: 99 } : { fieldId: fields.Usage, value: 'print' };
      const res = await gql(editor, SET_METADATA, { id: fileId, values: [valid, { fieldId, value }] });
      expect(res.body.errors[0].extensions, String(value)).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[1].value', message }] });
    }
    for (const fieldId of [999_999, other.fieldId]) {
      const res = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId, value: 1 }] });
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[0].fieldId', message: 'is not a metadata field of the team' }] });
    }
    const twice = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Budget, value: 1 }, { fieldId: fields.Budget, value: 2 }] });
    expect(twice.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[1].fieldId' }] });
    expect((await gql(editor, SET_METADATA, { id: 999_999, values: [{ fieldId: fields.Budget, value: 1 }] })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(other.key, SET_METADATA, { id: fileId, values: [{ fieldId: other.fieldId, value: 1 }] })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(editor, SET_METADATA, { id: other.fileId, values: [{ fieldId: fields.Budget, value: 1 }] })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(viewer, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Budget, value: 1 }] })).body.errors[0].extensions.code).toBe('forbidden');
    expect(await stored(fileId)).toEqual(before);
    await settle();
    expect(await eventsFor(fileId, 0)).toHaveLength(1);
  });

  it('`asset metadata set` sets values as a member from the CLI', async () => {
    const fileId = await newFile('meta-cli.png');
    const res = await runCli(['asset', 'metadata', 'set', '--user', String(ann), '--file', String(fileId), '--values', JSON.stringify({ [fields.Region!]: 'EU', [fields.Budget!]: 3 })], cliEnv);
    expect(res.code, res.stdout).toBe(0);
    expect(res.json).toMatchObject({ materialId: fileId, recordId: expect.any(Number), values: [{ name: 'Budget', value: 3 }, { name: 'Region', value: 'EU' }] });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({ actor: { kind: 'member', id: ann }, payload: { changeType: 'METADATA', materials: [{ materialId: fileId, recordId: res.json.recordId, metadata: { Region: 'EU', Budget: 3 } }] } });
    const bad = await runCli(['asset', 'metadata', 'set', '--user', String(ann), '--file', String(fileId), '--values', JSON.stringify({ [fields.Region!]: 'ASIA' })], cliEnv);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[0].value' }] });
    const foreign = await runCli(['asset', 'metadata', 'set', '--user', String(other.member), '--file', String(fileId), '--values', JSON.stringify({ [other.fieldId]: 1 })], cliEnv);
    expect(foreign.json.error.code).toBe('not_found');
    const malformed = await runCli(['asset', 'metadata', 'set', '--user', String(ann), '--file', String(fileId), '--values', '{oops'], cliEnv);
    expect(malformed.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'values' }] });
  }, 90_000);
});

describe('a file\'s custom field values (changeType CUSTOM_FIELD)', () => {
  it('sets values of a template and sends CUSTOM_FIELD keyed by the template id, and folder UPDATE', async () => {
    const fileId = await newFile('custom.png');
    const res = await gql(editor, SET_CUSTOM, {
      id: fileId,
      t: template.id,
      values: [
        { customFieldId: template.fields.Code, value: 'SUMMER-26' },
        { customFieldId: template.fields.Reach, value: 40000 },
        { customFieldId: template.fields.Launch, value: '2026-06-01' },
        { customFieldId: template.fields.Channel, value: 'social' },
      ],
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.setLibraryFileCustomFields).toEqual({
      materialId: fileId,
      templateId: template.id,
      templateName: 'Campaign',
      values: [
        { customFieldId: template.fields.Code, name: 'Code', type: 'TEXT', value: 'SUMMER-26' },
        { customFieldId: template.fields.Reach, name: 'Reach', type: 'NUMBER', value: 40000 },
        { customFieldId: template.fields.Launch, name: 'Launch', type: 'DATE', value: '2026-06-01' },
        { customFieldId: template.fields.Channel, name: 'Channel', type: 'SELECT', value: 'social' },
      ],
    });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_METADATA_UPDATED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'key', id: editor.keyId },
      payload: {
        changeType: 'CUSTOM_FIELD',
        materialIds: [fileId],
        materials: [
          {
            materialId: fileId,
            customFields: [{ [String(template.id)]: { [String(template.fields.Code)]: 'SUMMER-26', [String(template.fields.Reach)]: 40000, [String(template.fields.Launch)]: '2026-06-01', [String(template.fields.Channel)]: 'social' } }],
          },
        ],
      },
      sequence: 1,
    });
    const [update] = await folderUpdatesFor(fileId, 1);
    expect(update!.body).toMatchObject({ folderId, type: 'UPDATE', assets: [{ id: fileId, name: 'custom.png' }] });
    const read = await gql(viewer, READ, { id: fileId });
    expect(read.body.data.libraryFile).toMatchObject({ metadata: { recordId: null, values: [] }, customFields: [{ templateId: template.id, templateName: 'Campaign' }] });
  });

  it('sends only the custom fields set or cleared now; a call that changes nothing writes nothing', async () => {
    const fileId = await newFile('custom-changes.png');
    await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'A' }, { customFieldId: template.fields.Reach, value: 1 }] });
    await eventsFor(fileId, 1);
    await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'A' }, { customFieldId: template.fields.Reach, value: null }] });
    const [, second] = await eventsFor(fileId, 2);
    expect(second!.body.payload.materials).toEqual([{ materialId: fileId, customFields: [{ [String(template.id)]: { [String(template.fields.Reach)]: null } }] }]);
    const before = await stored(fileId);
    await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'A' }, { customFieldId: template.fields.Launch, value: null }] });
    expect(await stored(fileId)).toEqual(before);
    await settle();
    expect(await eventsFor(fileId, 0)).toHaveLength(2);
  });

  it('refuses an unknown or foreign template, a field of another template, a wrong value and a view_only key: nothing changed, no event', async () => {
    const fileId = await newFile('custom-refused.png');
    await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'Kept' }] });
    await eventsFor(fileId, 1);
    const before = await stored(fileId);
    for (const t of [999_999, other.templateId]) {
      const res = await gql(editor, SET_CUSTOM, { id: fileId, t, values: [{ customFieldId: other.customFieldId, value: 'x' }] });
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'not_found' });
      expect(res.body.errors[0].message).toBe('Custom field template not found');
    }
    const elsewhere = await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'New' }, { customFieldId: secondTemplate.fields.Box, value: 'x' }] });
    expect(elsewhere.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[1].customFieldId', message: `is not a custom field of template ${template.id}` }] });
    const wrong = await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'New' }, { customFieldId: template.fields.Reach, value: 'many' }] });
    expect(wrong.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[1].value', message: 'must be a finite number ("Reach" is number)' }] });
    const channel = await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Channel, value: 'radio' }] });
    expect(channel.body.errors[0].extensions.code).toBe('validation_failed');
    expect((await gql(editor, SET_CUSTOM, { id: other.fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'x' }] })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(other.key, SET_CUSTOM, { id: fileId, t: other.templateId, values: [{ customFieldId: other.customFieldId, value: 'x' }] })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(viewer, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'x' }] })).body.errors[0].extensions.code).toBe('forbidden');
    expect(await stored(fileId)).toEqual(before);
    await settle();
    expect(await eventsFor(fileId, 0)).toHaveLength(1);
  });

  it('`asset custom-fields set` sets values as a member from the CLI', async () => {
    const fileId = await newFile('custom-cli.png');
    const res = await runCli(['asset', 'custom-fields', 'set', '--user', String(ann), '--file', String(fileId), '--template', String(secondTemplate.id), '--values', JSON.stringify({ [secondTemplate.fields.Box!]: 'B-12' })], cliEnv);
    expect(res.code, res.stdout).toBe(0);
    expect(res.json).toEqual({ materialId: fileId, templateId: secondTemplate.id, templateName: 'Archive', values: [{ customFieldId: secondTemplate.fields.Box, name: 'Box', type: 'text', value: 'B-12' }] });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({ actor: { kind: 'member', id: ann }, payload: { changeType: 'CUSTOM_FIELD', materials: [{ materialId: fileId, customFields: [{ [String(secondTemplate.id)]: { [String(secondTemplate.fields.Box)]: 'B-12' } }] }] } });
    const foreign = await runCli(['asset', 'custom-fields', 'set', '--user', String(ann), '--file', String(fileId), '--template', String(other.templateId), '--values', JSON.stringify({ [other.customFieldId]: 'x' })], cliEnv);
    expect(foreign.json.error.code).toBe('not_found');
  }, 90_000);
});

describe('search-assets by customFieldTemplateIds and customFieldId', () => {
  let campaignOnly: number;
  let archiveOnly: number;
  let both: number;

  beforeAll(async () => {
    campaignOnly = await newFile('s-campaign.png');
    archiveOnly = await newFile('s-archive.png');
    both = await newFile('s-both.png');
    const set = async (id: number, t: number, values: object[]) => expect((await gql(editor, SET_CUSTOM, { id, t, values })).body.errors).toBeUndefined();
    await set(campaignOnly, template.id, [{ customFieldId: template.fields.Code, value: 'C' }]);
    await set(archiveOnly, secondTemplate.id, [{ customFieldId: secondTemplate.fields.Box, value: 'B' }]);
    await set(both, template.id, [{ customFieldId: template.fields.Reach, value: 5 }]);
    await set(both, secondTemplate.id, [{ customFieldId: secondTemplate.fields.Box, value: 'B' }]);
  });

  /** Files of this block among the ids a search found. */
  const ours = (ids: number[]) => ids.filter((id) => [campaignOnly, archiveOnly, both].includes(id));

  it('customFieldTemplateIds: files carrying a value of any of the templates', async () => {
    expect(ours(await search({ customFieldTemplateIds: [secondTemplate.id] }))).toEqual([archiveOnly, both]);
    expect(ours(await search({ customFieldTemplateIds: [template.id, secondTemplate.id] }))).toEqual([campaignOnly, archiveOnly, both]);
    // every file found carries one of them
    const all = await search({ customFieldTemplateIds: [template.id] });
    const carriers = await db<{ file_id: number }>('select distinct file_id from library_file_custom_values where template_id = ? order by file_id', [template.id]);
    expect(all).toEqual(carriers.map((c) => c.file_id));
  });

  it('customFieldId: files having a value for that custom field; with customFieldTemplateIds both must hold', async () => {
    expect(await search({ customFieldId: template.fields.Reach })).toEqual(
      (await db<{ file_id: number }>('select file_id from library_file_custom_values where field_id = ? order by file_id', [template.fields.Reach])).map((r) => r.file_id),
    );
    expect(ours(await search({ customFieldId: template.fields.Reach }))).toEqual([both]);
    expect(ours(await search({ customFieldId: secondTemplate.fields.Box, customFieldTemplateIds: [template.id] }))).toEqual([both]);
    expect(ours(await search({ customFieldId: template.fields.Code, customFieldTemplateIds: [secondTemplate.id] }))).toEqual([]);
  });

  it('follows a cleared value at once (the memo of totals is keyed by the library version)', async () => {
    expect(ours(await search({ customFieldId: template.fields.Code }))).toEqual([campaignOnly]);
    await gql(editor, SET_CUSTOM, { id: campaignOnly, t: template.id, values: [{ customFieldId: template.fields.Code, value: null }] });
    expect(ours(await search({ customFieldId: template.fields.Code }))).toEqual([]);
    expect(ours(await search({ customFieldTemplateIds: [template.id] }))).toEqual([both]);
    await gql(editor, SET_CUSTOM, { id: campaignOnly, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'C' }] });
    expect(ours(await search({ customFieldTemplateIds: [template.id] }))).toEqual([campaignOnly, both]);
  });

  it('ids of another team match nothing, in either direction, and never an error', async () => {
    expect(await search({ customFieldTemplateIds: [other.templateId] })).toEqual([]);
    expect(await search({ customFieldId: other.customFieldId })).toEqual([]);
    expect(await search({ customFieldTemplateIds: [template.id] }, other.key)).toEqual([]);
    expect(await search({ customFieldTemplateIds: [other.templateId] }, other.key)).toEqual([other.fileId]);
    expect(await search({ customFieldId: other.customFieldId }, other.key)).toEqual([other.fileId]);
    expect(await search({ customFieldTemplateIds: [999_999], customFieldId: 999_998 })).toEqual([]);
  });

  it('works through GraphQL searchAssets, with other filters and sorts', async () => {
    const res = await gql(viewer, 'query($input: SearchAssetsInput) { searchAssets(input: $input) { total assets { id customFields { templateId } } } }', {
      input: { customFieldTemplateIds: [secondTemplate.id], keywords: ['s-'], keywordSearchType: 'DEFAULT', sort: { sortName: 'NAME', sortType: 'ASC' } },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.searchAssets.assets.map((a: { id: number }) => a.id)).toEqual([archiveOnly, both]);
    expect(res.body.data.searchAssets.assets[1].customFields.map((c: { templateId: number }) => c.templateId).sort()).toEqual([template.id, secondTemplate.id].sort());
  });

  it('can be answered through the indexes of library_file_custom_values (a tiny table is scanned otherwise)', async () => {
    const explain = (condition: string, value: unknown) =>
      world.env.orm.em.fork().transactional(async (em) => {
        await em.execute('set local enable_seqscan = off');
        const rows = await em.execute(
          `explain (format json) select f.id from library_files f where f.team_id = ? and f.deleted_at is null
             and f.id in (select v.file_id from library_file_custom_values v where v.team_id = ? and v.${condition})`,
          [world.team.teamId, world.team.teamId, value],
        );
        return JSON.stringify(rows);
      });
    expect(await explain('template_id = any(?::int[])', `{${template.id}}`)).toContain('library_file_custom_values_team_id_template_id_file_id_index');
    expect(await explain('field_id = ?', template.fields.Code)).toContain('library_file_custom_values_team_id_field_id_file_id_index');
  });
});
