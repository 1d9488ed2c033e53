import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { zipEntryNames } from '../../src/core/catalogue/products/product-download.service.ts';
import type { TestEnv } from '../support/env.ts';
import type { GivenKey, GivenTeam } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';
import { unzip } from '../support/unzip.ts';

const world = useProductWorld({ team: 'Downloads' });
let env: TestEnv;
let storage: ProductWorld['storage'];
let team: GivenTeam;
let editor: GivenKey;
let usable: GivenKey;
let viewer: GivenKey;
let manager: GivenKey;
let stranger: GivenKey;
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, storage, team, gp, stranger } = world);
  ({ editable: editor, usable, view_only: viewer, manage: manager } = world.keys);
});

interface Download {
  status: number;
  headers: Record<string, unknown>;
  bytes: Buffer;
  json: any;
}

async function download(productId: number, key: GivenKey, body?: unknown, idempotencyKey?: string): Promise<Download> {
  const headers: Record<string, string> = { authorization: `Bearer ${key.key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await env.app.inject({
    method: 'POST',
    url: `/v1/products/${productId}/downloads`,
    headers,
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  let json: unknown;
  try {
    json = res.json();
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, json };
}

/** The stored bytes of a library file. */
async function storedBytes(fileId: number): Promise<Buffer> {
  const [row] = await env.orm.em
    .fork()
    .execute<{ sha256: string }[]>('select o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [fileId]);
  return readFile(join(storage.path, ...objectKey(row!.sha256).split('/')));
}

async function recordCount(teamId = team.teamId): Promise<number> {
  const [row] = await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from download_records where team_id = ?', [teamId]);
  return row!.n;
}

describe('POST /v1/products/{id}/downloads', () => {
  it("delivers the product's media as one ZIP, byte for byte, and records who downloaded what", async () => {
    const image = await gp.image(team, 'front.png');
    const text = await gp.textFile(team, 'manual.txt');
    const product = await gp.published(editor, { imageAssetIds: [image], relatedAssetIds: [text] });
    const before = await recordCount();
    const res = await download(product.id, usable);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="product-\d+-download-\d+\.zip"/);
    expect(Number(res.headers['content-length'])).toBe(res.bytes.length);
    const entries = await unzip(res.bytes);
    expect([...entries.keys()]).toEqual(['front.png', 'manual.txt']);
    expect(entries.get('front.png')!.equals(await storedBytes(image))).toBe(true);
    expect(entries.get('manual.txt')!.equals(await storedBytes(text))).toBe(true);
    expect(await recordCount()).toBe(before + 1);
    const records = await send(env, { url: `/v1/products/${product.id}/download-records`, key: usable.key });
    expect(records.status).toBe(200);
    expect(records.headers.etag).toBeUndefined();
    expect(records.body.data[0]).toMatchObject({
      id: Number(res.headers['download-record-id']),
      productId: product.id,
      fileIds: [image, text],
      fileCount: 2,
      actor: `key:${usable.keyId}`,
      keyId: usable.keyId,
      role: 'usable',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(Number(records.body.data[0].totalBytes)).toBe(entries.get('front.png')!.length + entries.get('manual.txt')!.length);
  });

  it('delivers only the listed file-path IDs, in the order asked; one that is not a media file of the product is 422 and records nothing', async () => {
    const [a, b, c] = await gp.textFiles(team, 3, 'pick');
    const product = await gp.published(editor, { relatedAssetIds: [a!, b!, c!] });
    const picked = await download(product.id, usable, { assetIds: [c, a] });
    expect(picked.status).toBe(200);
    expect([...(await unzip(picked.bytes)).keys()]).toEqual(['pick-2.txt', 'pick-0.txt']);
    const other = await gp.textFile(team, 'elsewhere.txt');
    const before = await recordCount();
    const refused = await download(product.id, usable, { assetIds: [a, other] });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({
      success: false,
      code: 'validation_failed',
      details: [{ field: 'assetIds', message: `${other} is not a media file of this product` }],
    });
    const unknownField = await download(product.id, usable, { assetIds: [a], format: 'tar' });
    expect(unknownField.status).toBe(422);
    expect(await recordCount()).toBe(before);
  });

  it('refuses more than 100 files or 2 GiB with 413 payload_too_large before anything is written', async () => {
    const files = await gp.textFiles(team, 2, 'limit');
    const product = await gp.published(editor, { relatedAssetIds: files });
    const em = env.orm.em.fork();
    // the API keeps a product at 100 media; the download limit still holds for a product stored with more
    await em.execute('update products set related_file_ids = ?::int[] where id = ?', [
      `{${[...files, ...(await gp.textFiles(team, 99, 'many'))].join(',')}}`,
      product.id,
    ]);
    const before = await recordCount();
    const tooMany = await download(product.id, usable);
    expect(tooMany.status).toBe(413);
    expect(tooMany.json).toMatchObject({ success: false, code: 'payload_too_large', message: expect.stringContaining('101 files') });

    const big = await gp.published(editor, { relatedAssetIds: [files[0]!] });
    await em.execute('update library_files set byte_size = ? where id = ?', [2 * 1024 ** 3 + 1, files[0]]);
    const tooBig = await download(big.id, usable);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json).toMatchObject({ code: 'payload_too_large' });
    expect(await recordCount()).toBe(before);
  });

  it('replays with the same Idempotency-Key: the same files again, Idempotent-Replayed, no second record', async () => {
    const file = await gp.textFile(team, 'replay.txt');
    const product = await gp.published(editor, { relatedAssetIds: [file] });
    const first = await download(product.id, usable, undefined, 'dl-replay-1');
    const before = await recordCount();
    const again = await download(product.id, usable, undefined, 'dl-replay-1');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['download-record-id']).toBe(first.headers['download-record-id']);
    expect((await unzip(again.bytes)).get('replay.txt')!.equals(await storedBytes(file))).toBe(true);
    expect(await recordCount()).toBe(before);
    const changed = await download(product.id, usable, { assetIds: [file] }, 'dl-replay-1');
    expect(changed.status).toBe(409);
    expect(changed.json).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('answers 409 mutation_response_unavailable with a mutationOutcome when the record committed but the bytes are gone, and delivers on a retry with the same key', async () => {
    const file = await gp.textFile(team, 'vanishing.txt');
    const product = await gp.published(editor, { relatedAssetIds: [file] });
    const [row] = await env.orm.em
      .fork()
      .execute<{ sha256: string }[]>('select o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [file]);
    const path = join(storage.path, ...objectKey(row!.sha256).split('/'));
    await rename(path, `${path}.away`);
    const before = await recordCount();
    const failed = await download(product.id, usable, undefined, 'dl-gone-1');
    expect(failed.status).toBe(409);
    expect(failed.json).toMatchObject({
      success: false,
      data: null,
      code: 'mutation_response_unavailable',
      mutationOutcome: {
        resource: 'download_record',
        id: expect.any(Number),
        replayed: false,
        retry: { method: 'POST', path: `/v1/products/${product.id}/downloads`, idempotencyKey: 'dl-gone-1' },
        lookup: `/v1/products/${product.id}/download-records`,
      },
    });
    expect(await recordCount()).toBe(before + 1);
    await rename(`${path}.away`, path);
    const retried = await download(product.id, usable, undefined, 'dl-gone-1');
    expect(retried.status).toBe(200);
    expect(retried.headers['download-record-id']).toBe(String(failed.json.mutationOutcome.id));
    expect(await recordCount()).toBe(before + 1);
  });

  it('needs usable or higher: view_only is 403; usable sees published products only (a draft is 404); editable downloads drafts', async () => {
    const file = await gp.textFile(team, 'roles.txt');
    const published = await gp.published(editor, { relatedAssetIds: [file] });
    const draft = await gp.product(editor, { name: 'Draft', relatedAssetIds: [file] });
    const before = await recordCount();
    expect((await download(published.id, viewer)).json).toMatchObject({ code: 'forbidden' });
    expect((await download(draft.id, usable)).json).toMatchObject({ code: 'not_found' });
    expect(await recordCount()).toBe(before);
    expect((await download(draft.id, editor)).status).toBe(200);
    expect((await send(env, { url: `/v1/products/${published.id}/download-records`, key: viewer.key })).status).toBe(403);
  });

  it("never delivers or lists another team's product or downloads", async () => {
    const file = await gp.textFile(team, 'private.txt');
    const product = await gp.published(editor, { relatedAssetIds: [file] });
    await download(product.id, usable);
    const strangerBefore = await recordCount(stranger.teamId);
    expect((await download(product.id, stranger)).json).toMatchObject({ code: 'not_found' });
    expect((await send(env, { url: `/v1/products/${product.id}/download-records`, key: stranger.key })).body).toMatchObject({ code: 'not_found' });
    expect((await send(env, { url: '/v1/download-records', key: stranger.key })).body.data).toEqual([]);
    expect(await recordCount(stranger.teamId)).toBe(strangerBefore);
  });

  it("lists the whole team's downloads for manage only, newest first, and records each in the activity log", async () => {
    const file = await gp.textFile(team, 'team.txt');
    const product = await gp.published(editor, { relatedAssetIds: [file] });
    const res = await download(product.id, usable);
    const all = await send(env, { url: '/v1/download-records?pageSize=1', key: manager.key });
    expect(all.status).toBe(200);
    expect(all.body.data[0].id).toBe(Number(res.headers['download-record-id']));
    expect(all.body.pagination).toMatchObject({ page: 1, pageSize: 1 });
    expect((await send(env, { url: '/v1/download-records', key: editor.key })).body).toMatchObject({ code: 'forbidden' });
    const activity = await send(env, { url: `/v1/activity-records?resourceType=download&resourceId=${res.headers['download-record-id']}`, key: manager.key });
    expect(activity.body.data).toEqual([expect.objectContaining({ resourceType: 'download', action: 'created', keyId: usable.keyId })]);
  });
});

describe('ZIP entry names', () => {
  it('makes repeated names unique before the extension and keeps separators and dot names inside the archive', () => {
    expect(
      zipEntryNames([
        { id: 1, name: 'a.jpg' },
        { id: 2, name: 'A.jpg' },
        { id: 3, name: 'a.jpg' },
        { id: 4, name: '../etc/passwd' },
        { id: 5, name: '..' },
        { id: 6, name: 'README' },
      ]),
    ).toEqual(['a.jpg', 'A (2).jpg', 'a (3).jpg', '.._etc_passwd', 'file-5', 'README']);
  });
});
