import { beforeAll, describe, expect, it } from 'vitest';
import type { EventWorld } from '../support/event-world.ts';
import type { GivenKey } from '../support/given.ts';
import { CREATE_TEMPLATE, type CustomMetadataWorld, SET_CUSTOM, useCustomMetadata } from './custom-metadata.support.ts';

/*
 * custom metadata fields and custom field templates: search-assets by
 * customFieldTemplateIds / customFieldId, through REST and GraphQL, and isolation between teams.
 */

const { fixture, gql, newFile, db, search } = useCustomMetadata();
let world: EventWorld;
let viewer: GivenKey;
let editor: GivenKey;
let other: CustomMetadataWorld['other'];
/** The custom field templates of the team: the ones the definition tests of custom-metadata-fields.graphql.test.ts make, made the same way. */
let template: { id: number; fields: Record<string, number> };
let secondTemplate: { id: number; fields: Record<string, number> };

beforeAll(async () => {
  ({ world, viewer, editor, other } = fixture);
  const define = async (input: Record<string, unknown>) => {
    const res = await gql(world.key, CREATE_TEMPLATE, { input });
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createCustomFieldTemplate;
    return {
      id: created.id as number,
      fields: Object.fromEntries(created.fields.map((f: { name: string; id: number }) => [f.name, f.id])) as Record<string, number>,
    };
  };
  template = await define({
    name: 'Campaign',
    fields: [
      { name: 'Code', type: 'TEXT' },
      { name: 'Reach', type: 'NUMBER' },
      { name: 'Launch', type: 'DATE' },
      { name: 'Channel', type: 'SELECT', options: ['tv', 'social'] },
    ],
  });
  secondTemplate = await define({ name: 'Archive', fields: [{ name: 'Box', type: 'TEXT' }] });
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
    const carriers = await db<{ file_id: number }>('select distinct file_id from library_file_custom_values where template_id = ? order by file_id', [
      template.id,
    ]);
    expect(all).toEqual(carriers.map((c) => c.file_id));
  });

  it('customFieldId: files having a value for that custom field; with customFieldTemplateIds both must hold', async () => {
    expect(await search({ customFieldId: template.fields.Reach })).toEqual(
      (await db<{ file_id: number }>('select file_id from library_file_custom_values where field_id = ? order by file_id', [template.fields.Reach])).map(
        (r) => r.file_id,
      ),
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
    expect(res.body.data.searchAssets.assets[1].customFields.map((c: { templateId: number }) => c.templateId).sort()).toEqual(
      [template.id, secondTemplate.id].sort(),
    );
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
