import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';

/*
 * Uploads from GraphQL (docs/library.md "Uploads"): a small file in one mutation with the GraphQL
 * multipart request spec, and a resumable upload for a large one whose bytes go to its tus URL.
 */

let env: TestEnv;
let key: GivenKey;
let viewer: GivenKey;
let otherKey: GivenKey;
let storage: Awaited<ReturnType<typeof tempDir>>;
let png: Buffer;
let address: string;

beforeAll(async () => {
  storage = await tempDir('uploads-graphql-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path, UPLOAD_MAX_FILE_BYTES: '5000000' });
  const team = await given(env).team('Uploads');
  key = await given(env).key(team, 'editable');
  viewer = await given(env).key(team, 'view_only');
  otherKey = await given(env).key(await given(env).team('Other'), 'manage');
  address = await env.app.listen({ port: 0, host: '127.0.0.1' });
  png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#00ff00' } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await env.close();
  await storage.remove();
});

const UPLOAD_FILE = `mutation Upload($file: File!, $folder: String, $tags: [String!], $name: String) {
  uploadFile(file: $file, folder: $folder, tags: $tags, name: $name) { id status length offset result { fileId assetId folderIds pendingIds } }
}`;

/** A GraphQL multipart request (operations, map, the file part), as apollo-upload-client sends it. */
async function multipart(as: string, variables: Record<string, unknown>, file: { bytes: Buffer; name: string }) {
  const form = new FormData();
  form.set('operations', JSON.stringify({ query: UPLOAD_FILE, variables: { ...variables, file: null } }));
  form.set('map', JSON.stringify({ 0: ['variables.file'] }));
  form.set('0', new Blob([new Uint8Array(file.bytes)], { type: 'application/octet-stream' }), file.name);
  // over real HTTP, as a browser's fetch sends it (multipart body and boundary set by FormData)
  const response = await fetch(`${address}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${as}` }, body: form });
  return { status: response.status, body: await response.json() };
}

async function fileCount(): Promise<number> {
  const [row] = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from library_files');
  return Number(row!.n);
}

describe('uploadFile (GraphQL multipart request spec)', () => {
  it('places the file as asset import does: type from the bytes, folders created, tags', async () => {
    const answer = await multipart(key.key, { folder: '/from/graphql', tags: ['green'] }, { bytes: png, name: 'green.png' });
    expect(answer.body.errors).toBeUndefined();
    const upload = answer.body.data.uploadFile;
    expect(upload).toMatchObject({ status: 'completed', length: png.length, offset: png.length });
    const [file] = await env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select name, mime_type, width, height from library_files where id = ?', [upload.result.fileId]);
    expect(file).toEqual({ name: 'green.png', mime_type: 'image/png', width: 30, height: 20 });
    expect(upload.result.folderIds).toHaveLength(2);
  });

  it('a view_only key is forbidden, a name with a control character is validation_failed, a body over 1 MiB is payload_too_large: nothing placed', async () => {
    const before = await fileCount();
    const forbidden = await multipart(viewer.key, {}, { bytes: png, name: 'v.png' });
    expect(forbidden.body.errors[0].extensions.code).toBe('forbidden');
    const bad = await multipart(key.key, { name: 'bad\u0001.png' }, { bytes: png, name: 'x.png' });
    expect(bad.body.errors[0].extensions.code).toBe('validation_failed');
    const big = await multipart(key.key, {}, { bytes: Buffer.alloc(1_100_000), name: 'big.bin' });
    expect(big.status).toBe(413);
    expect(await fileCount()).toBe(before);
  });
});

describe('multipart bodies that are not GraphQL multipart requests', () => {
  it("are answered in GraphQL's shape with errors, never a server error", async () => {
    for (const payload of ['{"query":"{ __typename }"}', '--x\r\nContent-Disposition: form-data; name="map"\r\n\r\n{}\r\n--x--\r\n', '']) {
      const response = await env.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'multipart/form-data; boundary=x' },
        payload,
      });
      expect(response.statusCode, payload).toBeLessThan(500);
      expect(response.json().errors[0].message).toBeDefined();
    }
  });
});

describe('createUpload: a resumable upload for a large file', () => {
  it('answers the tus URL; the bytes sent there place the file; upload(id) shows what it became', async () => {
    const created = await graphql(
      env,
      key.key,
      'mutation { createUpload(length: 10, name: "big.txt", folder: "/large") { id url length offset status result { fileId } } }',
    );
    expect(created.body.errors).toBeUndefined();
    const upload = created.body.data.createUpload;
    expect(upload).toMatchObject({ length: 10, offset: 0, status: 'receiving', result: null });
    expect(upload.url).toBe(`${env.config.publicBaseUrl}/v1/uploads/${upload.id}`);
    const patched = await env.app.inject({
      method: 'PATCH',
      url: new URL(upload.url).pathname,
      headers: { authorization: `Bearer ${key.key}`, 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      payload: Buffer.from('0123456789'),
    });
    expect(patched.statusCode).toBe(204);
    const read = await graphql(env, key.key, 'query ($id: String!) { upload(id: $id) { status offset result { fileId folderIds } } }', { id: upload.id });
    expect(read.body.data.upload).toMatchObject({ status: 'completed', offset: 10, result: { fileId: expect.any(Number) } });
  });

  it("a length over the limit is payload_too_large; another team's upload is not_found; nothing created", async () => {
    const tooBig = await graphql(env, key.key, 'mutation { createUpload(length: 5000001, name: "huge.bin") { id } }');
    expect(tooBig.body.errors[0].extensions.code).toBe('payload_too_large');
    const mine = await graphql(env, key.key, 'mutation { createUpload(length: 5, name: "mine.txt") { id } }');
    const id = mine.body.data.createUpload.id;
    const count = async () => (await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from library_uploads'))[0]!.n;
    const n = await count();
    const theirs = await graphql(env, otherKey.key, 'query ($id: String!) { upload(id: $id) { id } }', { id });
    expect(theirs.body.errors[0].extensions.code).toBe('not_found');
    expect(await count()).toBe(n);
  });
});
