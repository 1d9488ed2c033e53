import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/core/access/roles.ts';
import type { TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type SearchLibrary, useSearchLibrary } from '../support/search-library.ts';

const fixture = useSearchLibrary();
let env: TestEnv;
let lib: SearchLibrary;
beforeAll(() => {
  ({ env, lib } = fixture);
});

/** What a search must never change: the library's version and its rows. */
async function libraryState(): Promise<string> {
  const rows = await env.orm.em.fork().execute<{ state: string }[]>(
    `select (select coalesce(max(version), 0) from library_versions) || '/' || (select count(*) from library_files) || '/' ||
            (select count(*) from library_folders) || '/' || (select count(*) from library_shares) as state`,
  );
  return rows[0]!.state;
}

const badBodies: Array<[string, unknown, string]> = [
  ['a zero parentId', { parentId: 0 }, 'parentId'],
  ['a parentId past 2147483647', { parentId: 2147483648 }, 'parentId'],
  ['a fractional parentId', { parentId: 1.5 }, 'parentId'],
  ['a string parentId', { parentId: '7' }, 'parentId'],
  ['extensions that are not a list', { extensions: 'png' }, 'extensions'],
  ['an empty extension', { extensions: [''] }, 'extensions[0]'],
  ['an extension with a space', { extensions: ['pn g'] }, 'extensions[0]'],
  ['51 extensions', { extensions: Array.from({ length: 51 }, (_, i) => `e${i}`) }, 'extensions'],
  ['a colour name', { color: 'red' }, 'color'],
  ['a short hex colour', { color: '#ff00' }, 'color'],
  ['areaThreshold 0', { color: 'ff0000', areaThreshold: 0 }, 'areaThreshold'],
  ['areaThreshold 101', { color: 'ff0000', areaThreshold: 101 }, 'areaThreshold'],
  ['colorThreshold 101', { color: 'ff0000', colorThreshold: 101 }, 'colorThreshold'],
  ['a negative minLength', { minLength: -1 }, 'minLength'],
  ['minSize above maxSize', { minSize: 10, maxSize: 9 }, 'maxSize'],
  ['minWidth above maxWidth', { minWidth: 10, maxWidth: 9 }, 'maxWidth'],
  ['minHeight above maxHeight', { minHeight: 10, maxHeight: 9 }, 'maxHeight'],
  ['minLength above maxLength', { minLength: 10, maxLength: 9 }, 'maxLength'],
  ['startTime after endTime', { startTime: 10, endTime: 9 }, 'endTime'],
  ['an empty keyword', { keywords: [''] }, 'keywords[0]'],
  ['a blank keyword', { keywords: ['ok', '   '] }, 'keywords[1]'],
  ['a 101-character keyword', { keywords: ['k'.repeat(101)] }, 'keywords[0]'],
  ['11 keywords', { keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) }, 'keywords'],
  ['an unknown keywordSearchType', { keywords: ['a'], keywordSearchType: 'FUZZY' }, 'keywordSearchType'],
  ['a zero tag id', { tags: [0] }, 'tags[0]'],
  ['a non-boolean tagOrAnd', { tags: [1], tagOrAnd: 'yes' }, 'tagOrAnd'],
  ['a negative createUsers id', { createUsers: [-5] }, 'createUsers[0]'],
  ['rating 6', { ratings: [6] }, 'ratings[0]'],
  ['a string hasLink', { hasLink: 'true' }, 'hasLink'],
  ['an empty link text', { link: '' }, 'link'],
  ['a blank desc text', { desc: '  ' }, 'desc'],
  ['an unknown sortName', { sort: { sortName: 'PRICE' } }, 'sort.sortName'],
  ['a sort without sortName', { sort: { sortType: 'ASC' } }, 'sort.sortName'],
  ['an unknown sortType', { sort: { sortName: 'NAME', sortType: 'UP' } }, 'sort.sortType'],
  ['an unknown field in sort', { sort: { sortName: 'NAME', order: 1 } }, 'sort.order'],
  ['a negative startPoint', { startPoint: -1 }, 'startPoint'],
  ['endPoint before startPoint', { startPoint: 5, endPoint: 4 }, 'endPoint'],
  ['a page of 101', { startPoint: 0, endPoint: 101 }, 'endPoint'],
  ['region that is not a list of numbers', { region: ['a'] }, 'region[0]'],
  ['w 0', { w: 0 }, 'w'],
  ['w 6001', { w: 6001 }, 'w'],
  ['h 6001', { h: 6001 }, 'h'],
  ['an unknown mode', { w: 10, mode: 'stretch' }, 'mode'],
  ['q 0', { q: 0 }, 'q'],
  ['q 101', { q: 101 }, 'q'],
  ['format gif', { f: 'gif' }, 'f'],
  ['bg with #', { bg: '#ffffff' }, 'bg'],
  ['bg of 3 digits', { bg: 'fff' }, 'bg'],
  ['bg that is not hex', { bg: 'zzzzzz' }, 'bg'],
  ['a zero currentUserId', { currentUserId: 0 }, 'currentUserId'],
  ['an unknown field', { folder: 1 }, 'folder'],
];

describe('POST /open/search-assets with an invalid body', () => {
  for (const [label, body, field] of badBodies) {
    it(`rejects ${label} with 400 invalid_parameter naming ${field}, and changes nothing`, async () => {
      const before = await libraryState();
      const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_parameter', result: null, traceId: res.headers['x-request-id'] });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await libraryState()).toBe(before);
    });
  }

  it('rejects a body that is not JSON, a JSON array and a wrong Content-Type with 400 invalid_parameter', async () => {
    const before = await libraryState();
    const cases = [
      { rawBody: '{"keywords": [', headers: { 'content-type': 'application/json' } },
      { rawBody: '[]', headers: { 'content-type': 'application/json' } },
      { rawBody: 'keywords=red', headers: { 'content-type': 'text/plain' } },
    ];
    for (const c of cases) {
      const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, ...c });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_parameter', result: null });
    }
    expect(await libraryState()).toBe(before);
  });

  it('says the page rule in words for an endPoint far past startPoint (a page is refused, not cut short)', async () => {
    for (const url of ['/open/search-assets', '/open/search-share']) {
      const res = await send(env, {
        method: 'POST',
        url,
        key: lib.keyA.key,
        body: { linkToken: url.endsWith('share') ? 'x' : undefined, endPoint: 1_000_000 },
      });
      expect(res.status, res.text).toBe(400);
      const endPoint = res.body.details.find((d: { field: string }) => d.field === 'endPoint');
      expect(endPoint.message).toBe(
        'may be at most 100 more than startPoint (0): a request returns at most 100 results; ask for [0, 100) and continue from there',
      );
    }
  });

  it('rejects a body over 1 MiB with 413 payload_too_large in the open envelope', async () => {
    const res = await send(env, { method: 'POST', url: '/open/search-assets', key: lib.keyA.key, body: { desc: 'x'.repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large', result: null, traceId: res.headers['x-request-id'] });
  });
});

describe('open API authentication (Bearer key of the team)', () => {
  it('answers 401 invalid_credentials without a key or with an unknown key, in the open envelope', async () => {
    for (const key of [null, 'shelf_not-a-real-key']) {
      const res = await send(env, { method: 'POST', url: '/open/search-assets', key, body: {} });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_credentials', result: null, traceId: res.headers['x-request-id'] });
      expect(res.body).not.toHaveProperty('success');
    }
  });

  it('answers 401 key_inactive for a revoked or expired key', async () => {
    const g = given(env);
    const revoked = await g.key(lib.teamA, 'manage');
    await env.core.access.revokeKey(env.core.operatorCtx(), { keyId: revoked.keyId });
    const expired = await g.key(lib.teamA, 'manage', '2020-01-01T00:00:00Z');
    for (const key of [revoked, expired]) {
      const res = await send(env, { method: 'POST', url: '/open/search-share', key: key.key, body: { linkToken: 'x' } });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('key_inactive');
    }
  });

  it('lets a key of every role search (Area B has no collaborator role)', async () => {
    for (const role of ROLES) {
      const key: GivenKey = await given(env).key(lib.teamA, role);
      const res = await send(env, { method: 'POST', url: '/open/search-assets', key: key.key, body: { extensions: ['jpg'] } });
      expect(res.status, role).toBe(200);
      expect(res.body.result.total).toBe(1);
    }
  });

  it('answers an unknown /open route with 404 not_found in the open envelope, and keeps X-Request-Id', async () => {
    const res = await send(env, { method: 'POST', url: '/open/search-everything', key: lib.keyA.key, body: {}, headers: { 'x-request-id': 'trace-123' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: expect.any(String), result: null, traceId: 'trace-123' });
    expect(res.headers['x-request-id']).toBe('trace-123');
  });

  it('keeps the Area A envelope under /v1', async () => {
    const res = await send(env, { url: '/v1/brands' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_credentials' });
  });
});
