import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import type { EventWorld } from '../support/event-world.ts';
import type { GivenKey } from '../support/given.ts';
import {
  CREATE_FIELD,
  CREATE_TEMPLATE,
  type CustomMetadataWorld,
  LIST_FIELDS,
  LIST_TEMPLATES,
  READ,
  SET_CUSTOM,
  SET_METADATA,
  useCustomMetadata,
} from './custom-metadata.support.ts';

/*
 * custom metadata fields and custom field templates, the values files carry, their
 * METADATA and CUSTOM_FIELD events received by a real HTTP receiver through a material subscription
 * (and folder UPDATE through a folder subscription), and isolation between teams; through GraphQL
 * and the operator CLI. The blocks run in order: the definitions make the fields and templates the
 * values use.
 */

const { fixture, gql, asAnn, newFile, eventsFor, folderUpdatesFor, eventsWrittenFor, db, stored } = useCustomMetadata();
let world: EventWorld;
let viewer: GivenKey;
let editor: GivenKey;
let ann: number;
let folderId: number;
let other: CustomMetadataWorld['other'];
let cliEnv: Record<string, string>;
/** The metadata fields and the template of the team, by name. */
const fields: Record<string, number> = {};
let template: { id: number; fields: Record<string, number> };
let secondTemplate: { id: number; fields: Record<string, number> };

beforeAll(() => {
  ({ world, viewer, editor, ann, folderId, other, cliEnv } = fixture);
});

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
      expect(field).toEqual({
        id: expect.any(Number),
        name: input.name,
        type: input.type,
        options: input.options ?? null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      });
      fields[input.name] = field.id;
    }
    const listed = await gql(viewer, LIST_FIELDS);
    expect(listed.body.data.libraryMetadataFields.map((f: { name: string }) => f.name)).toEqual(['Budget', 'Photographer', 'Shot on', 'Usage']);
    expect(listed.body.data.libraryMetadataFields).toContainEqual({ id: fields.Usage, name: 'Usage', type: 'SELECT', options: ['web', 'print'] });
  });

  it('defines custom field templates with their fields in order', async () => {
    const res = await gql(world.key, CREATE_TEMPLATE, {
      input: {
        name: 'Campaign',
        fields: [
          { name: 'Code', type: 'TEXT' },
          { name: 'Reach', type: 'NUMBER' },
          { name: 'Launch', type: 'DATE' },
          { name: 'Channel', type: 'SELECT', options: ['tv', 'social'] },
        ],
      },
    });
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createCustomFieldTemplate;
    expect(created).toMatchObject({
      name: 'Campaign',
      fields: [
        { name: 'Code', type: 'TEXT', options: null, position: 0, templateId: created.id },
        { name: 'Reach', position: 1 },
        { name: 'Launch', position: 2 },
        { name: 'Channel', type: 'SELECT', options: ['tv', 'social'], position: 3 },
      ],
    });
    template = { id: created.id, fields: Object.fromEntries(created.fields.map((f: { name: string; id: number }) => [f.name, f.id])) };
    const second = (await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Archive', fields: [{ name: 'Box', type: 'TEXT' }] } })).body.data
      .createCustomFieldTemplate;
    secondTemplate = { id: second.id, fields: { Box: second.fields[0].id } };
    const listed = await gql(viewer, LIST_TEMPLATES);
    expect(listed.body.data.customFieldTemplates.map((t: { name: string }) => t.name)).toEqual(['Archive', 'Campaign']);
  });

  it('refuses a weaker role, a named member, a taken name and bad definitions; nothing is defined', async () => {
    const countBefore = await db<{ n: number }>(
      'select (select count(*) from library_metadata_fields)::int + (select count(*) from library_custom_field_templates)::int as n',
    );
    expect((await gql(editor, CREATE_FIELD, { input: { name: 'X', type: 'TEXT' } })).body.errors[0].extensions.code).toBe('forbidden');
    expect((await asAnn(CREATE_FIELD, { input: { name: 'X', type: 'TEXT' } })).body.errors[0].extensions.code).toBe('forbidden');
    expect((await gql(editor, CREATE_TEMPLATE, { input: { name: 'X', fields: [{ name: 'a', type: 'TEXT' }] } })).body.errors[0].extensions.code).toBe(
      'forbidden',
    );
    expect((await gql(world.key, CREATE_FIELD, { input: { name: 'Budget', type: 'TEXT' } })).body.errors[0].extensions.code).toBe('name_in_use');
    expect((await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Campaign', fields: [{ name: 'a', type: 'TEXT' }] } })).body.errors[0].extensions.code).toBe(
      'name_in_use',
    );
    const refusals: Array<[Record<string, unknown>, { field: string; message: string }]> = [
      [
        { name: 'Kind', type: 'SELECT' },
        { field: 'options', message: 'are required for type select' },
      ],
      [
        { name: 'Kind', type: 'TEXT', options: ['a'] },
        { field: 'options', message: 'are allowed only for type select' },
      ],
      [
        { name: 'Kind', type: 'SELECT', options: ['a', 'a'] },
        { field: 'options[1]', message: 'repeats an earlier option' },
      ],
      [
        { name: '   ', type: 'TEXT' },
        { field: 'name', message: 'must not be blank' },
      ],
    ];
    for (const [input, detail] of refusals) {
      const res = await gql(world.key, CREATE_FIELD, { input });
      expect(res.body.errors[0].extensions, JSON.stringify(input)).toMatchObject({ code: 'validation_failed', details: [detail] });
    }
    const twins = await gql(world.key, CREATE_TEMPLATE, {
      input: {
        name: 'Twins',
        fields: [
          { name: 'a', type: 'TEXT' },
          { name: 'a', type: 'NUMBER' },
        ],
      },
    });
    expect(twins.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'fields[1].name', message: "repeats an earlier field's name" }],
    });
    const empty = await gql(world.key, CREATE_TEMPLATE, { input: { name: 'Empty', fields: [] } });
    expect(empty.body.errors[0].extensions.code).toBe('validation_failed');
    expect(await db('select (select count(*) from library_metadata_fields)::int + (select count(*) from library_custom_field_templates)::int as n')).toEqual(
      countBefore,
    );
  });

  it("keeps each team's definitions to itself", async () => {
    const theirs = await gql(other.key, LIST_FIELDS);
    expect(theirs.body.data.libraryMetadataFields.map((f: { name: string }) => f.name)).toEqual(['Budget']);
    expect((await gql(other.key, LIST_TEMPLATES)).body.data.customFieldTemplates.map((t: { name: string }) => t.name)).toEqual(['Rights']);
    const ours = await gql(world.key, LIST_FIELDS);
    expect(ours.body.data.libraryMetadataFields.map((f: { id: number }) => f.id)).not.toContain(other.fieldId);
  });

  it('`asset metadata-field` and `asset field-template` define and list for a team from the CLI', async () => {
    const field = await runCli(
      ['asset', 'metadata-field', 'create', '--team', String(world.team.teamId), '--name', 'Region', '--type', 'select', '--options', 'EU,US'],
      cliEnv,
    );
    expect(field.code, field.stdout).toBe(0);
    expect(field.json).toMatchObject({ id: expect.any(Number), name: 'Region', type: 'select', options: ['EU', 'US'] });
    fields.Region = field.json.id;
    const listed = await runCli(['asset', 'metadata-field', 'list', '--team', String(world.team.teamId)], cliEnv);
    expect(listed.json.fields.map((f: { name: string }) => f.name)).toEqual(['Budget', 'Photographer', 'Region', 'Shot on', 'Usage']);
    const tpl = await runCli(
      ['asset', 'field-template', 'create', '--team', String(world.team.teamId), '--name', 'Print', '--fields', '[{"name":"Paper","type":"text"}]'],
      cliEnv,
    );
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

describe("a file's metadata values (changeType METADATA)", () => {
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
        materials: [
          {
            materialId: fileId,
            recordId: view.recordId,
            metadata: { Photographer: 'Ann Lee', Budget: 1250.5, 'Shot on': '2026-03-01T08:00:00.500000Z', Usage: 'web' },
          },
        ],
      },
      sequence: 1,
    });
    const [update] = await folderUpdatesFor(fileId, 1);
    expect(update!.body).toMatchObject({
      eventType: 'FOLDER_CONTENT_UPDATE',
      folderId,
      type: 'UPDATE',
      assets: [{ id: fileId, name: 'meta.png', userId: String(ann) }],
      orgId: world.team.teamId,
    });
  });

  it('sends only the fields updated now; clearing sends null; a call that changes nothing writes nothing', async () => {
    const fileId = await newFile('meta-changes.png');
    const first = await gql(editor, SET_METADATA, {
      id: fileId,
      values: [
        { fieldId: fields.Photographer, value: 'Ann' },
        { fieldId: fields.Budget, value: 10 },
      ],
    });
    const recordId = first.body.data.setLibraryFileMetadata.recordId;
    await eventsFor(fileId, 1);
    const second = await gql(editor, SET_METADATA, {
      id: fileId,
      values: [
        { fieldId: fields.Photographer, value: 'Ann' },
        { fieldId: fields.Budget, value: 12 },
        { fieldId: fields['Shot on'], value: '2026-05-04' },
      ],
    });
    expect(second.body.data.setLibraryFileMetadata.recordId).toBe(recordId);
    const [, updated] = await eventsFor(fileId, 2);
    expect(updated!.body.payload).toEqual({
      changeType: 'METADATA',
      materialIds: [fileId],
      materials: [{ materialId: fileId, recordId, metadata: { Budget: 12, 'Shot on': '2026-05-04' } }],
    });
    const cleared = await gql(editor, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Budget, value: null }, { fieldId: fields.Usage }] });
    expect(cleared.body.data.setLibraryFileMetadata.values.map((v: { name: string }) => v.name)).toEqual(['Photographer', 'Shot on']);
    const [, , clearedEvent] = await eventsFor(fileId, 3);
    expect(clearedEvent!.body.payload.materials).toEqual([{ materialId: fileId, recordId, metadata: { Budget: null } }]);
    const before = await stored(fileId);
    const same = await gql(editor, SET_METADATA, {
      id: fileId,
      values: [
        { fieldId: fields.Photographer, value: 'Ann' },
        { fieldId: fields.Usage, value: null },
      ],
    });
    expect(same.body.errors).toBeUndefined();
    expect(await stored(fileId)).toEqual(before);
    expect(await eventsWrittenFor(fileId)).toHaveLength(3);
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
      expect(res.body.errors[0].extensions).toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'values[0].fieldId', message: 'is not a metadata field of the team' }],
      });
    }
    const twice = await gql(editor, SET_METADATA, {
      id: fileId,
      values: [
        { fieldId: fields.Budget, value: 1 },
        { fieldId: fields.Budget, value: 2 },
      ],
    });
    expect(twice.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[1].fieldId' }] });
    expect((await gql(editor, SET_METADATA, { id: 999_999, values: [{ fieldId: fields.Budget, value: 1 }] })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(other.key, SET_METADATA, { id: fileId, values: [{ fieldId: other.fieldId, value: 1 }] })).body.errors[0].extensions.code).toBe(
      'not_found',
    );
    expect((await gql(editor, SET_METADATA, { id: other.fileId, values: [{ fieldId: fields.Budget, value: 1 }] })).body.errors[0].extensions.code).toBe(
      'not_found',
    );
    expect((await gql(viewer, SET_METADATA, { id: fileId, values: [{ fieldId: fields.Budget, value: 1 }] })).body.errors[0].extensions.code).toBe('forbidden');
    expect(await stored(fileId)).toEqual(before);
    expect(await eventsWrittenFor(fileId)).toHaveLength(1);
  });

  it('`asset metadata set` sets values as a member from the CLI', async () => {
    const fileId = await newFile('meta-cli.png');
    const res = await runCli(
      [
        'asset',
        'metadata',
        'set',
        '--user',
        String(ann),
        '--file',
        String(fileId),
        '--values',
        JSON.stringify({ [fields.Region!]: 'EU', [fields.Budget!]: 3 }),
      ],
      cliEnv,
    );
    expect(res.code, res.stdout).toBe(0);
    expect(res.json).toMatchObject({
      materialId: fileId,
      recordId: expect.any(Number),
      values: [
        { name: 'Budget', value: 3 },
        { name: 'Region', value: 'EU' },
      ],
    });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({
      actor: { kind: 'member', id: ann },
      payload: { changeType: 'METADATA', materials: [{ materialId: fileId, recordId: res.json.recordId, metadata: { Region: 'EU', Budget: 3 } }] },
    });
    const bad = await runCli(
      ['asset', 'metadata', 'set', '--user', String(ann), '--file', String(fileId), '--values', JSON.stringify({ [fields.Region!]: 'ASIA' })],
      cliEnv,
    );
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'values[0].value' }] });
    const foreign = await runCli(
      ['asset', 'metadata', 'set', '--user', String(other.member), '--file', String(fileId), '--values', JSON.stringify({ [other.fieldId]: 1 })],
      cliEnv,
    );
    expect(foreign.json.error.code).toBe('not_found');
    const malformed = await runCli(['asset', 'metadata', 'set', '--user', String(ann), '--file', String(fileId), '--values', '{oops'], cliEnv);
    expect(malformed.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'values' }] });
  }, 90_000);
});

describe("a file's custom field values (changeType CUSTOM_FIELD)", () => {
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
            customFields: [
              {
                [String(template.id)]: {
                  [String(template.fields.Code)]: 'SUMMER-26',
                  [String(template.fields.Reach)]: 40000,
                  [String(template.fields.Launch)]: '2026-06-01',
                  [String(template.fields.Channel)]: 'social',
                },
              },
            ],
          },
        ],
      },
      sequence: 1,
    });
    const [update] = await folderUpdatesFor(fileId, 1);
    expect(update!.body).toMatchObject({ folderId, type: 'UPDATE', assets: [{ id: fileId, name: 'custom.png' }] });
    const read = await gql(viewer, READ, { id: fileId });
    expect(read.body.data.libraryFile).toMatchObject({
      metadata: { recordId: null, values: [] },
      customFields: [{ templateId: template.id, templateName: 'Campaign' }],
    });
  });

  it('sends only the custom fields set or cleared now; a call that changes nothing writes nothing', async () => {
    const fileId = await newFile('custom-changes.png');
    await gql(editor, SET_CUSTOM, {
      id: fileId,
      t: template.id,
      values: [
        { customFieldId: template.fields.Code, value: 'A' },
        { customFieldId: template.fields.Reach, value: 1 },
      ],
    });
    await eventsFor(fileId, 1);
    await gql(editor, SET_CUSTOM, {
      id: fileId,
      t: template.id,
      values: [
        { customFieldId: template.fields.Code, value: 'A' },
        { customFieldId: template.fields.Reach, value: null },
      ],
    });
    const [, second] = await eventsFor(fileId, 2);
    expect(second!.body.payload.materials).toEqual([
      { materialId: fileId, customFields: [{ [String(template.id)]: { [String(template.fields.Reach)]: null } }] },
    ]);
    const before = await stored(fileId);
    await gql(editor, SET_CUSTOM, {
      id: fileId,
      t: template.id,
      values: [
        { customFieldId: template.fields.Code, value: 'A' },
        { customFieldId: template.fields.Launch, value: null },
      ],
    });
    expect(await stored(fileId)).toEqual(before);
    expect(await eventsWrittenFor(fileId)).toHaveLength(2);
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
    const elsewhere = await gql(editor, SET_CUSTOM, {
      id: fileId,
      t: template.id,
      values: [
        { customFieldId: template.fields.Code, value: 'New' },
        { customFieldId: secondTemplate.fields.Box, value: 'x' },
      ],
    });
    expect(elsewhere.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'values[1].customFieldId', message: `is not a custom field of template ${template.id}` }],
    });
    const wrong = await gql(editor, SET_CUSTOM, {
      id: fileId,
      t: template.id,
      values: [
        { customFieldId: template.fields.Code, value: 'New' },
        { customFieldId: template.fields.Reach, value: 'many' },
      ],
    });
    expect(wrong.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'values[1].value', message: 'must be a finite number ("Reach" is number)' }],
    });
    const channel = await gql(editor, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Channel, value: 'radio' }] });
    expect(channel.body.errors[0].extensions.code).toBe('validation_failed');
    expect(
      (await gql(editor, SET_CUSTOM, { id: other.fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'x' }] })).body.errors[0]
        .extensions.code,
    ).toBe('not_found');
    expect(
      (await gql(other.key, SET_CUSTOM, { id: fileId, t: other.templateId, values: [{ customFieldId: other.customFieldId, value: 'x' }] })).body.errors[0]
        .extensions.code,
    ).toBe('not_found');
    expect(
      (await gql(viewer, SET_CUSTOM, { id: fileId, t: template.id, values: [{ customFieldId: template.fields.Code, value: 'x' }] })).body.errors[0].extensions
        .code,
    ).toBe('forbidden');
    expect(await stored(fileId)).toEqual(before);
    expect(await eventsWrittenFor(fileId)).toHaveLength(1);
  });

  it('`asset custom-fields set` sets values as a member from the CLI', async () => {
    const fileId = await newFile('custom-cli.png');
    const res = await runCli(
      [
        'asset',
        'custom-fields',
        'set',
        '--user',
        String(ann),
        '--file',
        String(fileId),
        '--template',
        String(secondTemplate.id),
        '--values',
        JSON.stringify({ [secondTemplate.fields.Box!]: 'B-12' }),
      ],
      cliEnv,
    );
    expect(res.code, res.stdout).toBe(0);
    expect(res.json).toEqual({
      materialId: fileId,
      templateId: secondTemplate.id,
      templateName: 'Archive',
      values: [{ customFieldId: secondTemplate.fields.Box, name: 'Box', type: 'text', value: 'B-12' }],
    });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({
      actor: { kind: 'member', id: ann },
      payload: {
        changeType: 'CUSTOM_FIELD',
        materials: [{ materialId: fileId, customFields: [{ [String(secondTemplate.id)]: { [String(secondTemplate.fields.Box)]: 'B-12' } }] }],
      },
    });
    const foreign = await runCli(
      [
        'asset',
        'custom-fields',
        'set',
        '--user',
        String(ann),
        '--file',
        String(fileId),
        '--template',
        String(other.templateId),
        '--values',
        JSON.stringify({ [other.customFieldId]: 'x' }),
      ],
      cliEnv,
    );
    expect(foreign.json.error.code).toBe('not_found');
  }, 90_000);
});
