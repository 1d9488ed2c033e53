import { beforeAll, describe, expect, it } from 'vitest';
import { colourFamilyOf, FACET_LIMITS } from '../../src/core/assets/search/facets.ts';
import type { TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { type SearchLibrary, useSearchLibrary } from '../support/search-library.ts';

/*
 * Facet counts in asset search (docs/search.md "Facets"): opt-in `facets` on search-assets and
 * GraphQL searchAssets, exact counts over the search's own matches, bad input in the /open
 * envelope, and isolation between teams and from files the caller cannot see.
 */

const fixture = useSearchLibrary();
let env: TestEnv;
let lib: SearchLibrary;
let manageA: GivenKey;
let editorA: GivenKey;
/** A select custom field (options tv, social, print) and a text one, of team A's template. */
let channelField: number;
let codeField: number;
let template: number;

const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);

interface FacetJson {
  facet: string;
  values: Array<{ value: string; label: string | null; count: number }>;
  other: number;
  otherValues: number;
  missing: number;
}

async function search(body: Record<string, unknown>, key = lib.keyA.key) {
  return send(env, { method: 'POST', url: '/open/search-assets', key, body });
}

/** The facets of a search (which must succeed), by facet name. */
async function facetsOf(body: Record<string, unknown>, key = lib.keyA.key): Promise<Record<string, FacetJson>> {
  const res = await search({ endPoint: 100, ...body }, key);
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries((res.body.result.facets as FacetJson[]).map((f) => [f.facet, f]));
}

/** value -> count of a facet's listed values. */
const countsOf = (facet: FacetJson) => Object.fromEntries(facet.values.map((v) => [v.value, v.count]));

/** The same counts computed in TypeScript from the matches' rows: the oracle the SQL is checked against. */
async function expectedCounts(ids: number[]) {
  const rows = await db<{
    id: number;
    extension: string | null;
    mime_type: string;
    width: number | null;
    height: number | null;
    folder_id: number | null;
    tag_ids: number[];
    validity_status: number;
    l: number | null;
    a: number | null;
    b: number | null;
  }>(
    `select f.id, f.extension, f.mime_type, f.width, f.height, f.folder_id, f.tag_ids, f.validity_status, c.l, c.a, c.b
       from library_files f left join stored_object_colours c on c.object_id = f.object_id and c.position = 0
      where f.id = any(?::int[])`,
    [`{${ids.join(',')}}`],
  );
  const tally = (values: Array<string | null>) => {
    const counts: Record<string, number> = {};
    let missing = 0;
    for (const v of values) {
      if (v === null) missing++;
      else counts[v] = (counts[v] ?? 0) + 1;
    }
    return { counts, missing };
  };
  const type = (mime: string) =>
    mime.startsWith('image/')
      ? 'IMAGE'
      : mime.startsWith('video/')
        ? 'VIDEO'
        : mime.startsWith('audio/')
          ? 'AUDIO'
          : mime.startsWith('text/') || mime === 'application/pdf'
            ? 'DOCUMENT'
            : 'OTHER';
  return {
    extension: tally(rows.map((r) => r.extension)),
    type: tally(rows.map((r) => type(r.mime_type))),
    orientation: tally(
      rows.map((r) => (r.width === null || r.height === null ? null : r.width > r.height ? 'LANDSCAPE' : r.width < r.height ? 'PORTRAIT' : 'SQUARE')),
    ),
    tags: { counts: tally(rows.flatMap((r) => r.tag_ids.map(String))).counts, missing: rows.filter((r) => r.tag_ids.length === 0).length },
    colorFamily: tally(rows.map((r) => (r.l === null ? null : colourFamilyOf({ l: r.l, a: r.a!, b: r.b! })))),
    folder: tally(rows.map((r) => (r.folder_id === null ? null : String(r.folder_id)))),
    validity: tally(rows.map((r) => ['VALID', 'NOT_STARTED', 'EXPIRED'][r.validity_status]!)),
  };
}

const ALL_BUILTIN = ['extension', 'type', 'orientation', 'tags', 'colorFamily', 'folder', 'validity'];

beforeAll(async () => {
  ({ env, lib } = fixture);
  manageA = await given(env).key(lib.teamA, 'manage');
  editorA = await given(env).key(lib.teamA, 'editable');
  const created = await graphql(
    env,
    manageA.key,
    'mutation($input: CustomFieldTemplateInput!) { createCustomFieldTemplate(input: $input) { id fields { id name } } }',
    {
      input: {
        name: 'Campaign',
        fields: [
          { name: 'Channel', type: 'SELECT', options: ['tv', 'social', 'print'] },
          { name: 'Code', type: 'TEXT' },
        ],
      },
    },
  );
  expect(created.body.errors).toBeUndefined();
  const t = created.body.data.createCustomFieldTemplate;
  template = t.id;
  channelField = t.fields.find((f: { name: string }) => f.name === 'Channel').id;
  codeField = t.fields.find((f: { name: string }) => f.name === 'Code').id;
  const setChannel = async (file: string, value: string) => {
    const res = await graphql(
      env,
      editorA.key,
      'mutation($id: Int!, $t: Int!, $values: [LibraryCustomFieldValueInput!]!) { setLibraryFileCustomFields(id: $id, templateId: $t, values: $values) { materialId } }',
      {
        id: lib.files[file],
        t: template,
        values: [{ customFieldId: channelField, value }],
      },
    );
    expect(res.body.errors).toBeUndefined();
  };
  await setChannel('red.png', 'tv');
  await setChannel('blue.jpg', 'social');
  await setChannel('half-green.png', 'tv');
});

describe('search-assets facets are opt-in', () => {
  it('answers exactly assets and total without facets, with facets null, and with facets []', async () => {
    for (const body of [{}, { facets: null }, { facets: [] }]) {
      const res = await search(body);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body.result).sort()).toEqual(['assets', 'total']);
    }
  });

  it('adds facets next to the page, one entry per facet in request order, leaving assets and total as they were', async () => {
    const plain = await search({ endPoint: 100 });
    const res = await search({ endPoint: 100, facets: ['validity', 'extension', 'tags'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.facets.map((f: FacetJson) => f.facet)).toEqual(['validity', 'extension', 'tags']);
    expect(res.body.result.total).toBe(plain.body.result.total);
    expect(res.body.result.assets).toHaveLength(plain.body.result.assets.length);
  });
});

describe("facet counts are exact over the search's matches", () => {
  it('counts every built-in facet over all files as the rows say (extension, type, orientation, tags, colorFamily, folder, validity)', async () => {
    const res = await search({ endPoint: 100, facets: ALL_BUILTIN, facetLimit: 50 });
    expect(res.status, res.text).toBe(200);
    const ids = res.body.result.assets.map((a: { id: number }) => a.id);
    const expected = await expectedCounts(ids);
    for (const facet of res.body.result.facets as FacetJson[]) {
      const want = expected[facet.facet as keyof typeof expected];
      expect(countsOf(facet), facet.facet).toEqual(want.counts);
      expect(facet.missing, facet.facet).toBe(want.missing);
      expect([facet.other, facet.otherValues], facet.facet).toEqual([0, 0]);
    }
  });

  it("names the fixture's known values: colour families of the solid images, types, orientations, and labels of tags and folders", async () => {
    const facets = await facetsOf({ facets: ALL_BUILTIN });
    // red.png #ff0000, blue.jpg #0000ff, half-green.png 70 % #00c000, root.png #ffff00, logo.webp #336699
    expect(countsOf(facets.colorFamily!)).toEqual({ red: 1, blue: 2, green: 1, yellow: 1 });
    expect(facets.colorFamily!.missing).toBe(3);
    expect(countsOf(facets.type!)).toEqual({ IMAGE: 5, AUDIO: 2, DOCUMENT: 1 });
    expect(countsOf(facets.orientation!)).toEqual({ LANDSCAPE: 3, SQUARE: 2 });
    expect(facets.tags!.values).toEqual(
      [
        { value: String(lib.tags.sale), label: 'sale', count: 2 },
        { value: String(lib.tags.warm), label: 'warm', count: 2 },
        { value: String(lib.tags.cold), label: 'cold', count: 1 },
      ].sort((x, y) => y.count - x.count || (x.value < y.value ? -1 : 1)),
    );
    expect(facets.folder!.values.find((v) => v.value === String(lib.folders['/media']))).toEqual({
      value: String(lib.folders['/media']),
      label: 'media',
      count: 2,
    });
    expect(facets.folder!.missing).toBe(1);
  });

  it('counts under the same filters as total: each single-valued facet adds up to total', async () => {
    for (const body of [
      { extensions: ['png', 'wav'] },
      { tags: [lib.tags.warm] },
      { parentId: lib.folders['/photos'] },
      { keywords: ['red'] },
      { color: 'ff0000' },
    ]) {
      const res = await search({ endPoint: 100, ...body, facets: ['extension', 'folder', 'orientation', 'colorFamily'] });
      expect(res.status, res.text).toBe(200);
      const { total, assets } = res.body.result;
      const expected = await expectedCounts(assets.map((a: { id: number }) => a.id));
      for (const facet of res.body.result.facets as FacetJson[]) {
        const sum = facet.values.reduce((s, v) => s + v.count, 0) + facet.other + facet.missing;
        expect(sum, `${JSON.stringify(body)} ${facet.facet}`).toBe(total);
        expect(countsOf(facet), `${JSON.stringify(body)} ${facet.facet}`).toEqual(expected[facet.facet as keyof typeof expected].counts);
      }
    }
  });

  it('lists at most facetLimit values, most matches first, and sums the rest in other and otherValues', async () => {
    const full = await facetsOf({ facets: ['extension', 'tags'], facetLimit: 50 });
    const top = await facetsOf({ facets: ['extension', 'tags'], facetLimit: 1 });
    for (const name of ['extension', 'tags']) {
      const [all, one] = [full[name]!, top[name]!];
      expect(one.values).toEqual(all.values.slice(0, 1));
      expect(one.otherValues).toBe(all.values.length - 1);
      expect(one.other).toBe(all.values.slice(1).reduce((s, v) => s + v.count, 0));
      expect(one.missing).toBe(all.missing);
    }
    // ties by value as text: png (4) first, then wav (2); jpg, txt and webp (1 each) in that order
    expect(full.extension!.values.map((v) => v.value)).toEqual(['png', 'wav', 'jpg', 'txt', 'webp']);
  });

  it('counts the options of a select custom field, files without a value as missing', async () => {
    const facets = await facetsOf({ facets: [`customField:${channelField}`] });
    expect(facets[`customField:${channelField}`]).toEqual({
      facet: `customField:${channelField}`,
      values: [
        { value: 'tv', label: null, count: 2 },
        { value: 'social', label: null, count: 1 },
      ],
      other: 0,
      otherValues: 0,
      missing: 5,
    });
    const photos = await facetsOf({ parentId: lib.folders['/photos/summer'], facets: [`customField:${channelField}`] });
    expect(countsOf(photos[`customField:${channelField}`]!)).toEqual({ tv: 1 });
  });

  it('follows a change at once: the memo of facet counts is keyed by the library version', async () => {
    const before = await facetsOf({ facets: ['validity'] });
    expect(countsOf(before.validity!)).toEqual({ VALID: 8 });
    const expire = (endTime: string | null) =>
      graphql(env, editorA.key, 'mutation($id: Int!, $input: FileValidityInput!) { setLibraryFileValidity(id: $id, input: $input) { validityStatus } }', {
        id: lib.files['notes.txt'],
        input: { endTime },
      });
    expect((await expire('2020-01-01T00:00:00Z')).body.errors).toBeUndefined();
    try {
      expect(countsOf((await facetsOf({ facets: ['validity'] })).validity!)).toEqual({ VALID: 7, EXPIRED: 1 });
    } finally {
      expect((await expire(null)).body.errors).toBeUndefined();
    }
    expect(countsOf((await facetsOf({ facets: ['validity'] })).validity!)).toEqual({ VALID: 8 });
  });

  it('repeats of a search (other pages included) count nothing: the counts come from the memo', async () => {
    const memo = env.core.assets.facetCounts;
    await facetsOf({ facets: ['extension', 'type'], ratings: [5, 4, 3] });
    const misses = memo.misses;
    const again = await facetsOf({ facets: ['type', 'extension'], ratings: [3, 4, 5], startPoint: 1, endPoint: 2 });
    expect(memo.misses).toBe(misses);
    expect(countsOf(again.extension!)).toEqual({ png: 1, jpg: 1, webp: 1 });
  });
});

describe('facets and visibility', () => {
  it("never counts another team's files, in either direction", async () => {
    const a = await facetsOf({ facets: ['tags', 'extension', 'folder'] });
    const b = await facetsOf({ facets: ['tags', 'extension', 'folder'] }, lib.keyB.key);
    expect(b.tags!.values).toEqual([{ value: expect.any(String), label: 'warm', count: 1 }]);
    expect(b.tags!.values[0]!.value).not.toBe(String(lib.tags.warm));
    expect(countsOf(b.extension!)).toEqual({ png: 1 });
    expect(b.folder!.values).toEqual([{ value: String(lib.folderOfB), label: 'photos', count: 1 }]);
    expect(countsOf(a.tags!)[String(lib.tags.warm)]).toBe(2);
    expect(a.folder!.values.map((v) => v.value)).not.toContain(String(lib.folderOfB));
  });

  it('with currentUserId counts only the files that member may access', async () => {
    const res = await search({ endPoint: 100, currentUserId: lib.ann, facets: ['extension', 'folder', 'tags'] });
    expect(res.status, res.text).toBe(200);
    const ids = res.body.result.assets.map((a: { id: number }) => a.id);
    const owned = await db<{ id: number }>('select id from library_files where team_id = ? and owner_id = ? and deleted_at is null', [
      lib.teamA.teamId,
      lib.ann,
    ]);
    expect(ids.sort()).toEqual(owned.map((r) => r.id).sort());
    const expected = await expectedCounts(ids);
    const facets = Object.fromEntries((res.body.result.facets as FacetJson[]).map((f) => [f.facet, f]));
    expect(countsOf(facets.extension!)).toEqual(expected.extension.counts);
    expect(countsOf(facets.folder!)).toEqual(expected.folder.counts);
    expect(countsOf(facets.tags!)).toEqual(expected.tags.counts);
  });

  it('refuses a custom field of another team as it refuses an unknown one, saying nothing about it', async () => {
    const theirs = await graphql(
      env,
      (await given(env).key(lib.teamB, 'manage')).key,
      'mutation($input: CustomFieldTemplateInput!) { createCustomFieldTemplate(input: $input) { fields { id } } }',
      {
        input: { name: 'Theirs', fields: [{ name: 'Region', type: 'SELECT', options: ['north'] }] },
      },
    );
    const theirField = theirs.body.data.createCustomFieldTemplate.fields[0].id;
    const asked = await search({ facets: [`customField:${theirField}`] });
    const unknown = await search({ facets: ['customField:999999'] });
    expect(asked.status).toBe(400);
    expect(asked.body.details).toEqual([{ field: 'facets[0]', message: `customField:${theirField} is not a custom field of the team` }]);
    expect(unknown.body.details).toEqual([{ field: 'facets[0]', message: 'customField:999999 is not a custom field of the team' }]);
  });
});

describe('facets: bad input gets 400 invalid_parameter naming the field, and changes nothing', () => {
  async function libraryState(): Promise<string> {
    const rows = await db<{ state: string }>(
      `select (select coalesce(max(version), 0) from library_versions) || '/' || (select count(*) from library_files) as state`,
    );
    return `${rows[0]!.state}/${env.core.assets.facetCounts.misses}`;
  }

  const cases: Array<[string, () => Record<string, unknown>, string, RegExp]> = [
    [
      'an unknown facet name',
      () => ({ facets: ['extension', 'colour'] }),
      'facets[1]',
      /is not a facet: one of extension, type, orientation, tags, colorFamily, folder, validity/,
    ],
    ['a malformed custom field facet', () => ({ facets: ['customField:abc'] }), 'facets[0]', /is not a facet/],
    [
      'too many facets',
      () => ({ facets: ['extension', 'type', 'orientation', 'tags', 'colorFamily', 'folder', 'validity', `customField:${channelField}`, 'extension'] }),
      'facets',
      /8/,
    ],
    ['a facet asked twice', () => ({ facets: ['tags', 'tags'] }), 'facets[1]', /asks for tags a second time/],
    [
      'a facet over a text custom field',
      () => ({ facets: ['tags', `customField:${codeField}`] }),
      'facets[1]',
      /is a text field: only select custom fields have facets/,
    ],
    ['facetLimit without facets', () => ({ facetLimit: 5 }), 'facetLimit', /allowed only with facets/],
    ['facetLimit over 50', () => ({ facets: ['tags'], facetLimit: FACET_LIMITS.maxValues + 1 }), 'facetLimit', /50/],
    ['an empty facet name', () => ({ facets: [''] }), 'facets[0]', /./],
  ];
  for (const [label, body, field, message] of cases) {
    it(`rejects ${label} (${field})`, async () => {
      const before = await libraryState();
      const res = await search(body());
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_parameter', result: null, traceId: res.headers['x-request-id'] });
      const issue = res.body.details.find((d: { field: string }) => d.field === field);
      expect(issue, res.text).toBeDefined();
      expect(issue.message).toMatch(message);
      expect(await libraryState()).toBe(before);
    });
  }
});

describe('GraphQL searchAssets facets', () => {
  const QUERY = `query($input: SearchAssetsInput) { searchAssets(input: $input) { total facets { facet values { value label count } other otherValues missing } } }`;

  it('answers the same counts as REST, and facets null when none was asked', async () => {
    const input = { tags: [lib.tags.warm, lib.tags.sale], tagOrAnd: false, facets: ['tags', 'extension', `customField:${channelField}`], facetLimit: 2 };
    const res = await graphql(env, lib.keyA.key, QUERY, { input });
    expect(res.body.errors).toBeUndefined();
    const rest = await search(input);
    expect(res.body.data.searchAssets.facets).toEqual(rest.body.result.facets);
    expect(res.body.data.searchAssets.total).toBe(rest.body.result.total);
    const plain = await graphql(env, lib.keyA.key, QUERY, { input: {} });
    expect(plain.body.data.searchAssets.facets).toBeNull();
  });

  it('refuses bad facets with validation_failed naming the field', async () => {
    const res = await graphql(env, lib.keyA.key, QUERY, { input: { facets: ['nope'] } });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'facets[0]' }] });
    const text = await graphql(env, lib.keyA.key, QUERY, { input: { facets: [`customField:${codeField}`] } });
    expect(text.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'facets[0]' }] });
  });
});
