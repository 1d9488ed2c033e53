import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { EventWorld } from '../support/event-world.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { writeImage } from '../support/media-files.ts';
import { type WrittenDelivery, writtenDeliveries } from '../support/outbox.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * What the custom metadata files share: a library event world whose material
 * subscription takes MATERIAL_METADATA_UPDATED and whose folder subscription is on `/cm`, keys of
 * the team and a member Ann, another team with a field, a template and a file carrying a value of
 * its own, and the helpers that make files, read the events they caused and search.
 */

export interface CustomMetadataWorld {
  lib: LibraryEventWorld;
  world: EventWorld;
  files: LibraryEventWorld['files'];
  viewer: GivenKey;
  editor: GivenKey;
  ann: number;
  folderId: number;
  other: { team: GivenTeam; key: GivenKey; member: number; fileId: number; fieldId: number; templateId: number; customFieldId: number };
  cliEnv: Record<string, string>;
}

export const CREATE_FIELD = 'mutation($input: CustomFieldDefinitionInput!) { createLibraryMetadataField(input: $input) { id name type options createdAt } }';
export const LIST_FIELDS = '{ libraryMetadataFields { id name type options } }';
export const CREATE_TEMPLATE =
  'mutation($input: CustomFieldTemplateInput!) { createCustomFieldTemplate(input: $input) { id name fields { id templateId name type options position } } }';
export const LIST_TEMPLATES = '{ customFieldTemplates { id name fields { id name type options position } } }';
export const SET_METADATA =
  'mutation($id: Int!, $values: [LibraryMetadataValueInput!]!) { setLibraryFileMetadata(id: $id, values: $values) { materialId recordId values { fieldId name type value } } }';
export const SET_CUSTOM =
  'mutation($id: Int!, $t: Int!, $values: [LibraryCustomFieldValueInput!]!) { setLibraryFileCustomFields(id: $id, templateId: $t, values: $values) { materialId templateId templateName values { customFieldId name type value } } }';
export const READ =
  'query($id: Int!) { libraryFile(id: $id) { id metadata { recordId values { name value } } customFields { templateId templateName values { customFieldId value } } } }';

/**
 * Registers the hooks that build the world above before a file's tests and close it after them,
 * and returns it (its fields set once the file's first beforeAll has run) with the helpers.
 */
export function useCustomMetadata() {
  const fixture = {} as CustomMetadataWorld;

  const gql = (key: GivenKey, query: string, variables: Record<string, unknown> = {}) => graphql(fixture.world.env, key.key, query, variables);

  /** A GraphQL request of the manage key acting for a member (X-Shelf-Member), as a signed-in frontend sends it. */
  function asAnn(query: string, variables: Record<string, unknown>) {
    return send(fixture.world.env, {
      method: 'POST',
      url: '/graphql',
      key: fixture.world.key.key,
      headers: { 'x-shelf-member': String(fixture.ann) },
      body: { query, variables },
    });
  }

  beforeAll(async () => {
    // the folder exists first (an import of blue.png creates it), then the subscriptions
    const lib = await createLibraryEventWorld({
      name: 'custom-metadata',
      folder: '/cm',
      materialEvents: ['MATERIAL_METADATA_UPDATED'],
      seedFile: async (dir) => {
        await writeImage(join(dir.path, 'blue.png'), { width: 20, height: 10, colour: '#0000ff', format: 'png' });
        return join(dir.path, 'blue.png');
      },
    });
    fixture.lib = lib;
    ({ world: fixture.world, files: fixture.files, cliEnv: fixture.cliEnv, folderId: fixture.folderId } = lib);
    const { world, files } = fixture;
    fixture.viewer = await given(world.env).key(world.team, 'view_only');
    fixture.editor = await given(world.env).key(world.team, 'editable');
    fixture.ann = (await given(world.env).member(world.team, 'Ann')).userId;

    // another team with a field, a template and a file of its own
    const team = await given(world.env).team('Elsewhere');
    const key = await given(world.env).key(team, 'manage');
    const member = (await given(world.env).member(team, 'Eve')).userId;
    const fileId = (await given(world.env).libraryFile(team, { file: join(files.path, 'blue.png'), folder: '/theirs', name: 'theirs.png' })).id;
    const field = await gql(key, CREATE_FIELD, { input: { name: 'Budget', type: 'NUMBER' } });
    const tpl = await gql(key, CREATE_TEMPLATE, { input: { name: 'Rights', fields: [{ name: 'Licence', type: 'TEXT' }] } });
    const theirTemplate = tpl.body.data.createCustomFieldTemplate;
    const other = {
      team,
      key,
      member,
      fileId,
      fieldId: field.body.data.createLibraryMetadataField.id,
      templateId: theirTemplate.id,
      customFieldId: theirTemplate.fields[0].id,
    };
    fixture.other = other;
    const carried = await gql(key, SET_CUSTOM, { id: fileId, t: other.templateId, values: [{ customFieldId: other.customFieldId, value: 'CC-BY' }] });
    expect(carried.body.errors).toBeUndefined();
  });
  afterAll(() => fixture.lib?.close());

  async function newFile(name: string): Promise<number> {
    return (await given(fixture.world.env).libraryFile(fixture.world.team, { file: join(fixture.files.path, 'blue.png'), folder: '/cm/sub', name })).id;
  }

  const isMetadataEventOf = (fileId: number) => (path: string, body: any) =>
    path === '/m' && (body as { payload: { materialIds: number[] } }).payload.materialIds[0] === fileId;

  /** The MATERIAL_METADATA_UPDATED events received for a file, once at least `count` have arrived. */
  async function eventsFor(fileId: number, count: number): Promise<Received[]> {
    const about = isMetadataEventOf(fileId);
    const mine = () => fixture.world.receiver.received.filter((r) => about(r.path, r.body));
    await expect.poll(() => mine().length).toBeGreaterThanOrEqual(count);
    return mine();
  }

  /** The MATERIAL_METADATA_UPDATED events written for a file so far: all it will ever be sent, known without waiting (support/outbox.ts). */
  async function eventsWrittenFor(fileId: number): Promise<WrittenDelivery[]> {
    const about = isMetadataEventOf(fileId);
    return (await writtenDeliveries(fixture.world.env, fixture.world.team.teamId)).filter((d) => about(d.path, d.body));
  }

  /** The folder UPDATEs received for a file (its import sent ADD), once at least `count` have arrived. */
  async function folderUpdatesFor(fileId: number, count: number): Promise<Received[]> {
    const mine = () =>
      fixture.world.receiver.received.filter(
        (r) => r.path === '/f' && r.body.type === 'UPDATE' && (r.body as { assets: Array<{ id: number }> }).assets[0]?.id === fileId,
      );
    await expect.poll(() => mine().length).toBeGreaterThanOrEqual(count);
    return mine();
  }

  const db = <T>(sql: string, params: unknown[] = []) => fixture.world.env.orm.em.fork().execute<T[]>(sql, params);

  /** What a file's values are in the database, and when it was last updated. */
  async function stored(fileId: number) {
    const [file] = await db<{ updated_at: Date }>('select updated_at from library_files where id = ?', [fileId]);
    const [record] = await db<{ values: unknown }>('select values from library_metadata_records where file_id = ?', [fileId]);
    const custom = await db('select field_id, template_id, value from library_file_custom_values where file_id = ? order by field_id', [fileId]);
    return { updatedAt: file!.updated_at, metadata: record?.values ?? null, custom };
  }

  async function search(body: Record<string, unknown>, key: GivenKey = fixture.world.key): Promise<number[]> {
    const res = await send(fixture.world.env, { method: 'POST', url: '/open/search-assets', key: key.key, body: { endPoint: 100, ...body } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.total).toBe(res.body.result.assets.length);
    return res.body.result.assets.map((a: { id: number }) => a.id).sort((a: number, b: number) => a - b);
  }

  return { fixture, gql, asAnn, newFile, eventsFor, eventsWrittenFor, folderUpdatesFor, db, stored, search };
}
