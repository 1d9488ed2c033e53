import { createHash } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceProcessor } from '../../workers/maintenance.worker.ts';
import type { EventWorld } from '../support/event-world.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { writtenDeliveries } from '../support/outbox.ts';

/*
 * Uploads over HTTP (docs/library.md "Uploads"): the tus 1.0 protocol under /v1/uploads and the
 * one-request upload, through the real app. What an upload places is what `asset import` places
 * (type from the bytes, folders, tags, dedup, events); every bad input gets its status and leaves
 * nothing behind; another team's upload is never found.
 */

let lib: LibraryEventWorld;
let world: EventWorld;
let key: GivenKey;
let viewer: GivenKey;
let other: GivenTeam;
let otherKey: GivenKey;
let png: Buffer;
let inbox: number;
let address: string;

beforeAll(async () => {
  lib = await createLibraryEventWorld({
    name: 'uploads',
    folder: '/inbox',
    materialEvents: ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER'],
    settings: { UPLOAD_MAX_FILE_BYTES: String(MAX_FILE), UPLOAD_TEAM_QUOTA_BYTES: String(QUOTA) },
  });
  ({ world, folderId: inbox } = lib);
  key = world.key;
  viewer = await given(world.env).key(world.team, 'view_only');
  other = await given(world.env).team('Elsewhere');
  otherKey = await given(world.env).key(other, 'manage');
  address = await world.env.app.listen({ port: 0, host: '127.0.0.1' });
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
});
afterAll(() => lib.close());

const MAX_FILE = 1_000_000;
const QUOTA = 2_500_000;
const TUS = { 'tus-resumable': '1.0.0' };
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const metadata = (pairs: Record<string, string>) =>
  Object.entries(pairs)
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(',');

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: any;
}

/** A request over real HTTP to the listening app (as clients send it: bodies streamed, 413s drained). */
async function request(
  method: string,
  url: string,
  options: { key?: string | null; headers?: Record<string, string>; payload?: Buffer | string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.key === undefined ? key.key : options.key;
  if (auth) headers.authorization = `Bearer ${auth}`;
  const body = options.payload === undefined ? undefined : typeof options.payload === 'string' ? options.payload : new Uint8Array(options.payload);
  const response = await fetch(`${address}${url}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body: parsed };
}

async function create(length: number, meta: Record<string, string> = {}, as: string = key.key): Promise<Answer & { url: string }> {
  const answer = await request('POST', '/v1/uploads', { key: as, headers: { ...TUS, 'upload-length': String(length), 'upload-metadata': metadata(meta) } });
  return { ...answer, url: answer.headers.location ?? '' };
}

function patch(url: string, offset: number, bytes: Buffer, extra: Record<string, string> = {}, as: string = key.key): Promise<Answer> {
  return request('PATCH', url, {
    key: as,
    headers: { ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset), ...extra },
    payload: bytes,
  });
}

async function liveFileCount(teamId = world.team.teamId): Promise<number> {
  const [row] = await world.env.orm.em
    .fork()
    .execute<{ n: string }[]>('select count(*) as n from library_files where team_id = ? and deleted_at is null', [teamId]);
  return Number(row!.n);
}

/** What the store holds of an upload (its object `data` while it receives). */
async function partFiles(id: string): Promise<string[]> {
  return readdir(join(lib.storage.path, 'uploads', id)).catch(() => []);
}

describe('tus discovery', () => {
  it('OPTIONS answers the tus capabilities without a key, with the CORS headers a browser needs', async () => {
    const answer = await request('OPTIONS', '/v1/uploads', { key: null });
    expect(answer.status).toBe(204);
    expect(answer.headers['tus-resumable']).toBe('1.0.0');
    expect(answer.headers['tus-version']).toBe('1.0.0');
    expect(answer.headers['tus-extension']).toBe('creation,creation-with-upload,termination,expiration,checksum');
    expect(answer.headers['tus-checksum-algorithm']).toContain('sha1');
    expect(Number(answer.headers['tus-max-size'])).toBe(world.env.config.uploadMaxFileBytes);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-headers']).toContain('Upload-Offset');
    expect(answer.headers['access-control-expose-headers']).toContain('Location');
    expect(answer.headers['access-control-expose-headers']).toContain('Upload-Offset');
  });
});

describe('tus upload: created, sent in chunks, placed as asset import places a file', () => {
  it('places the file with its metadata, type from the bytes, one MATERIAL_INBOUND_COMPLETED with source UPLOAD_ASSETS and MATERIAL_ADDED_TO_FOLDER', async () => {
    const before = (await writtenDeliveries(world.env, world.team.teamId)).length;
    const created = await create(png.length, {
      filename: 'red.bin',
      filetype: 'text/plain',
      folder: '/inbox/uploads',
      tags: 'red,upload',
      description: 'A red square',
      score: '4',
      link: 'https://example.com/red',
    });
    expect(created.status).toBe(201);
    expect(created.url).toMatch(/^\/v1\/uploads\/[0-9a-f-]{36}$/);
    expect(created.headers['upload-expires']).toBeDefined();
    const head = await request('HEAD', created.url, { headers: TUS });
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe('0');
    expect(head.headers['upload-length']).toBe(String(png.length));
    expect(head.headers['cache-control']).toBe('no-store');
    const half = Math.floor(png.length / 2);
    const first = await patch(created.url, 0, png.subarray(0, half));
    expect(first.status).toBe(204);
    expect(first.headers['upload-offset']).toBe(String(half));
    // nothing is placed before the last byte
    expect((await request('GET', created.url)).body.data.result).toBeNull();
    const last = await patch(created.url, half, png.subarray(half));
    expect(last.status).toBe(204);
    expect(last.headers['upload-offset']).toBe(String(png.length));
    const done = (await request('GET', created.url)).body.data;
    expect(done.status).toBe('completed');
    const fileId = done.result.fileId as number;
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>(
        'select f.name, f.mime_type, f.width, f.height, f.description, f.score, f.link, f.byte_size, o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = ?',
        [fileId],
      );
    expect(file).toMatchObject({
      name: 'red.bin',
      mime_type: 'image/png',
      width: 64,
      height: 48,
      description: 'A red square',
      score: 4,
      link: 'https://example.com/red',
    });
    expect(file!.sha256).toBe(createHash('sha256').update(png).digest('hex'));
    const tags = await world.env.orm.em
      .fork()
      .execute<{ name: string }[]>('select t.name from library_file_tags ft join library_tags t on t.id = ft.tag_id where ft.file_id = ? order by t.name', [
        fileId,
      ]);
    expect(tags.map((t) => t.name)).toEqual(['red', 'upload']);
    // the upload's object goes once the file is placed (behind the answer)
    await expect.poll(() => partFiles(done.id)).toEqual([]);
    const events = (await writtenDeliveries(world.env, world.team.teamId)).slice(before).filter((d) => d.path === '/m');
    const inbound = events.filter((e) => e.body.eventType === 'MATERIAL_INBOUND_COMPLETED');
    expect(inbound).toHaveLength(1);
    expect(inbound[0]!.body.payload).toMatchObject({
      source: 'UPLOAD_ASSETS',
      materialIds: [fileId],
      uploadResults: [{ id: fileId, name: 'red.bin', width: 64, height: 48, uploadStatus: 'SUCCESS' }],
    });
    const added = events.filter((e) => e.body.eventType === 'MATERIAL_ADDED_TO_FOLDER');
    expect(added).toHaveLength(1);
    expect(added[0]!.body.payload.folderIds).toEqual([done.result.folderIds.at(-1)]);
    expect(done.result.folderIds[0]).toBe(inbox);
  });
});

/** The state a refused request must leave as it was: upload rows, library files, part objects. */
async function snapshot(): Promise<unknown> {
  const rows = await world.env.orm.em.fork().execute('select id::text as id, byte_offset, parts, status, expires_at from library_uploads order by id');
  return { rows, files: await liveFileCount(), otherFiles: await liveFileCount(other.teamId) };
}

async function expectRefused(send: () => Promise<Answer>, status: number, code: string): Promise<Answer> {
  const before = await snapshot();
  const answer = await send();
  expect(answer.status).toBe(status);
  if (answer.body !== undefined) expect(answer.body.code).toBe(code);
  expect(await snapshot()).toEqual(before);
  return answer;
}

async function expire(url: string): Promise<void> {
  await world.env.orm.em.fork().execute(`update library_uploads set expires_at = now() - interval '1 second' where id = ?::uuid`, [url.split('/').pop()]);
}

describe('tus creation-with-upload', () => {
  it('a creation with a body takes its bytes at once: the whole file places it, a part leaves the rest for PATCH', async () => {
    const whole = await request('POST', '/v1/uploads', {
      headers: { ...TUS, 'upload-length': '5', 'upload-metadata': metadata({ filename: 'whole.txt' }), 'content-type': 'application/offset+octet-stream' },
      payload: Buffer.from('whole'),
    });
    expect(whole.status).toBe(201);
    expect(whole.headers['upload-offset']).toBe('5');
    expect((await request('GET', whole.headers.location!)).body.data.status).toBe('completed');
    const part = await request('POST', '/v1/uploads', {
      headers: { ...TUS, 'upload-length': '8', 'upload-metadata': metadata({ filename: 'part.txt' }), 'content-type': 'application/offset+octet-stream' },
      payload: Buffer.from('part'),
    });
    expect(part.status).toBe(201);
    expect(part.headers['upload-offset']).toBe('4');
    expect((await patch(part.headers.location!, 4, Buffer.from('rest'))).status).toBe(204);
    expect((await request('GET', part.headers.location!)).body.data.status).toBe('completed');
  });
});

describe('who may upload', () => {
  it('a request without a key is 401 and a view_only key 403: nothing is created', async () => {
    await expectRefused(() => create(10, {}, null as unknown as string), 401, 'invalid_credentials');
    await expectRefused(() => create(10, {}, viewer.key), 403, 'forbidden');
  });
});

describe('tus bad input: each refused with its status, nothing changed', () => {
  it('Tus-Resumable other than 1.0.0 is 412 with Tus-Version', async () => {
    const answer = await expectRefused(
      () => request('POST', '/v1/uploads', { headers: { 'tus-resumable': '0.2.2', 'upload-length': '10' } }),
      412,
      'tus_version_unsupported',
    );
    expect(answer.headers['tus-version']).toBe('1.0.0');
  });

  it('a missing or malformed Upload-Length is 400; Upload-Defer-Length is 400', async () => {
    await expectRefused(() => request('POST', '/v1/uploads', { headers: TUS }), 400, 'upload_header_invalid');
    await expectRefused(() => request('POST', '/v1/uploads', { headers: { ...TUS, 'upload-length': '-1' } }), 400, 'upload_header_invalid');
    await expectRefused(() => request('POST', '/v1/uploads', { headers: { ...TUS, 'upload-defer-length': '1' } }), 400, 'upload_header_invalid');
  });

  it('a length over the file limit is 413 at creation, before any byte is sent', async () => {
    await expectRefused(() => create(MAX_FILE + 1), 413, 'payload_too_large');
  });

  it('a length over the team quota is 413 at creation; abandoned (expired) and terminated uploads count against nothing', async () => {
    const first = await create(MAX_FILE);
    expect(first.status).toBe(201);
    const second = await create(MAX_FILE);
    expect(second.status).toBe(201);
    // the seed file and the two open uploads leave less than MAX_FILE of the quota
    await expectRefused(() => create(MAX_FILE), 413, 'payload_too_large');
    await expire(first.url);
    const third = await create(MAX_FILE);
    expect(third.status).toBe(201);
    await expectRefused(() => create(MAX_FILE), 413, 'payload_too_large');
    expect((await request('DELETE', third.url, { headers: TUS })).status).toBe(204);
    expect((await request('DELETE', second.url, { headers: TUS })).status).toBe(204);
    expect((await create(MAX_FILE)).status).toBe(201);
  });

  it('names and folder paths with control characters, and any other bad placement, are refused at creation (422)', async () => {
    await expectRefused(() => create(10, { filename: 'bad\u0001name.png' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { filename: 'ok.png', folder: '/a/b\u0007c' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { tags: 'fine,bad\u001ftag' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { folder: 'no-leading-slash' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { score: '9' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { versionOf: '999999' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { pending: 'true', versionOf: '1' }), 422, 'validation_failed');
    await expectRefused(() => create(10, { cover: 'true' }), 422, 'validation_failed');
    await expectRefused(
      () => request('POST', '/v1/uploads', { headers: { ...TUS, 'upload-length': '10', 'upload-metadata': 'filename ***' } }),
      400,
      'upload_header_invalid',
    );
  });

  it('a PATCH without Content-Type application/offset+octet-stream is 415', async () => {
    const created = await create(20, { filename: 'a.txt' });
    await expectRefused(
      () => request('PATCH', created.url, { headers: { ...TUS, 'content-type': 'application/octet-stream', 'upload-offset': '0' }, payload: Buffer.alloc(20) }),
      415,
      'unsupported_media_type',
    );
  });

  it('a wrong Upload-Offset is 409 and keeps nothing of the body', async () => {
    const created = await create(20, { filename: 'a.txt' });
    expect((await patch(created.url, 0, Buffer.from('0123456789'))).status).toBe(204);
    await expectRefused(() => patch(created.url, 0, Buffer.from('abcdefghij')), 409, 'upload_offset_mismatch');
    await expectRefused(() => patch(created.url, 15, Buffer.from('abcde')), 409, 'upload_offset_mismatch');
    // an empty PATCH at the right offset takes nothing and says where the upload stands
    const empty = await patch(created.url, 10, Buffer.alloc(0));
    expect(empty.status).toBe(204);
    expect(empty.headers['upload-offset']).toBe('10');
    expect((await request('HEAD', created.url, { headers: TUS })).headers['upload-offset']).toBe('10');
  });

  it('bytes past Upload-Length are 413 and keep nothing', async () => {
    const created = await create(10, { filename: 'a.txt' });
    await expectRefused(() => patch(created.url, 0, Buffer.alloc(11, 65)), 413, 'payload_too_large');
    expect(await partFiles(created.url.split('/').pop()!)).toEqual([]);
  });

  it('a checksum mismatch is 460 and keeps nothing; a matching sha1 is taken; an unknown algorithm is 400', async () => {
    const text = Buffer.from('hello checksum');
    const created = await create(text.length, { filename: 'c.txt' });
    const id = created.url.split('/').pop()!;
    const wrong = createHash('sha1').update('something else').digest('base64');
    await expectRefused(() => patch(created.url, 0, text, { 'upload-checksum': `sha1 ${wrong}` }), 460, 'checksum_mismatch');
    expect(await partFiles(id)).toEqual([]);
    await expectRefused(() => patch(created.url, 0, text, { 'upload-checksum': `crc32 AAAA` }), 400, 'checksum_algorithm_unsupported');
    const right = createHash('sha1').update(text).digest('base64');
    expect((await patch(created.url, 0, text, { 'upload-checksum': `sha1 ${right}` })).status).toBe(204);
    expect((await request('GET', created.url)).body.data.status).toBe('completed');
  });

  it("an unknown upload is 404, an expired one 410, another team's 404 on every method; none is changed", async () => {
    const unknown = '/v1/uploads/00000000-0000-4000-8000-000000000000';
    await expectRefused(() => request('HEAD', unknown, { headers: TUS }), 404, 'not_found');
    await expectRefused(() => patch(unknown, 0, Buffer.from('x')), 404, 'not_found');
    await expectRefused(() => request('HEAD', '/v1/uploads/not-a-uuid', { headers: TUS }), 404, 'not_found');
    const mine = await create(10, { filename: 'mine.txt' });
    expect((await patch(mine.url, 0, Buffer.from('12345'))).status).toBe(204);
    for (const method of ['HEAD', 'GET', 'DELETE']) {
      await expectRefused(() => request(method, mine.url, { key: otherKey.key, headers: TUS }), 404, 'not_found');
    }
    await expectRefused(() => patch(mine.url, 5, Buffer.from('67890'), {}, otherKey.key), 404, 'not_found');
    expect((await request('HEAD', mine.url, { headers: TUS })).headers['upload-offset']).toBe('5');
    await expire(mine.url);
    await expectRefused(() => request('HEAD', mine.url, { headers: TUS }), 410, 'upload_expired');
    await expectRefused(() => patch(mine.url, 5, Buffer.from('67890')), 410, 'upload_expired');
  });
});

describe('tus termination and expiry', () => {
  it('DELETE removes the upload and its bytes; it is 404 afterwards', async () => {
    const created = await create(10, { filename: 'gone.txt' });
    const id = created.url.split('/').pop()!;
    expect((await patch(created.url, 0, Buffer.from('12345'))).status).toBe(204);
    expect(await partFiles(id)).toHaveLength(1);
    expect((await request('DELETE', created.url, { headers: TUS })).status).toBe(204);
    expect(await partFiles(id)).toEqual([]);
    expect((await request('HEAD', created.url, { headers: TUS })).status).toBe(404);
  });

  it('the maintenance job removes expired uploads: their bytes and rows', async () => {
    const created = await create(10, { filename: 'abandoned.txt' });
    const id = created.url.split('/').pop()!;
    expect((await patch(created.url, 0, Buffer.from('12345'))).status).toBe(204);
    const kept = await create(10, { filename: 'kept.txt' });
    await expire(created.url);
    const result = await maintenanceProcessor(world.env.core)({ name: 'purge-uploads' } as Job);
    expect(result).toMatchObject({ purged: expect.any(Number) });
    expect(await partFiles(id)).toEqual([]);
    expect((await request('HEAD', created.url, { headers: TUS })).status).toBe(404);
    expect((await request('HEAD', kept.url, { headers: TUS })).status).toBe(200);
  });
});

describe('what an upload is', () => {
  it('is searchable as soon as it is placed, and a member named with X-Shelf-Member owns it and initiated it', async () => {
    const ann = (await given(world.env).member(world.team, 'Ann')).userId;
    const before = (await writtenDeliveries(world.env, world.team.teamId)).length;
    const bytes = Buffer.from('searchable upload body');
    const created = await request('POST', '/v1/uploads', {
      headers: {
        ...TUS,
        'upload-length': String(bytes.length),
        'upload-metadata': metadata({ filename: 'zebra-crossing.txt', folder: '/inbox' }),
        'x-shelf-member': String(ann),
      },
    });
    expect(created.status).toBe(201);
    expect((await patch(created.headers.location!, 0, bytes, { 'x-shelf-member': String(ann) })).status).toBe(204);
    const fileId = (await request('GET', created.headers.location!)).body.data.result.fileId;
    const search = await world.env.app.inject({
      method: 'POST',
      url: '/open/search-assets',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ keywords: ['zebra-crossing'], endPoint: 10 }),
    });
    expect(search.json().result.assets.map((a: { id: number }) => a.id)).toEqual([fileId]);
    const [file] = await world.env.orm.em.fork().execute<Record<string, unknown>[]>('select owner_id, creator_id from library_files where id = ?', [fileId]);
    expect(file).toEqual({ owner_id: ann, creator_id: ann });
    const inbound = (await writtenDeliveries(world.env, world.team.teamId))
      .slice(before)
      .filter((d) => d.path === '/m' && d.body.eventType === 'MATERIAL_INBOUND_COMPLETED');
    expect(inbound.map((e) => e.body.payload.initiatorUserId)).toEqual([String(ann)]);
  });

  it('a zero-byte file is complete at creation and placed', async () => {
    const created = await create(0, { filename: 'empty.txt', folder: '/zero' });
    expect(created.status).toBe(201);
    expect(created.headers['upload-offset']).toBe('0');
    const done = (await request('GET', created.url)).body.data;
    expect(done.status).toBe('completed');
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select name, byte_size from library_files where id = ?', [done.result.fileId]);
    expect(file).toMatchObject({ name: 'empty.txt', byte_size: '0' });
  });

  it('identical bytes uploaded twice are stored once', async () => {
    const bytes = Buffer.from('the same bytes, twice');
    const results = [];
    for (const name of ['one.txt', 'two.txt']) {
      const created = await create(bytes.length, { filename: name });
      expect((await patch(created.url, 0, bytes)).status).toBe(204);
      results.push((await request('GET', created.url)).body.data.result);
    }
    expect(results[0].fileId).not.toBe(results[1].fileId);
    expect(results[0].assetId).toBe(results[1].assetId);
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(await readdir(join(lib.storage.path, 'objects', sha.slice(0, 2)))).toEqual([sha]);
  });

  it('pending holds the upload as a pending inbound; versionOf makes it the newest version of a line', async () => {
    const before = await liveFileCount();
    const held = await create(5, { filename: 'held.txt', pending: '' });
    expect((await patch(held.url, 0, Buffer.from('held!'))).status).toBe(204);
    const result = (await request('GET', held.url)).body.data.result;
    expect(result).toMatchObject({ fileId: null, pendingIds: [expect.any(Number)] });
    expect(await liveFileCount()).toBe(before);
    const base = await create(4, { filename: 'v1.txt' });
    expect((await patch(base.url, 0, Buffer.from('v1v1'))).status).toBe(204);
    const baseId = (await request('GET', base.url)).body.data.result.fileId;
    const next = await create(4, { filename: 'v2.txt', versionOf: String(baseId), cover: 'true' });
    expect((await patch(next.url, 0, Buffer.from('v2v2'))).status).toBe(204);
    const nextId = (await request('GET', next.url)).body.data.result.fileId;
    const members = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>(
        'select f.id, f.version_number, l.cover_file_id from library_files f join library_version_lines l on l.id = f.version_line_id where f.id in (?, ?) order by f.version_number',
        [baseId, nextId],
      );
    expect(members).toEqual([
      { id: baseId, version_number: 1, cover_file_id: nextId },
      { id: nextId, version_number: 2, cover_file_id: nextId },
    ]);
  });

  it('the file store failing mid-upload is 503 with Retry-After, nothing recorded; the upload resumes from its offset once the store is back', async () => {
    const created = await create(10, { filename: 'store-back.txt' });
    const id = created.url.split('/').pop()!;
    expect((await patch(created.url, 0, Buffer.from('12345'))).status).toBe(204);
    // the upload's object set aside and its place taken by a directory: the store cannot write it
    const data = join(lib.storage.path, 'uploads', id, 'data');
    await rename(data, `${data}.aside`);
    await mkdir(data);
    const down = await patch(created.url, 5, Buffer.from('67890'));
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBeDefined();
    expect((await request('HEAD', created.url, { headers: TUS })).headers['upload-offset']).toBe('5');
    await rm(data, { recursive: true });
    await rename(`${data}.aside`, data);
    expect((await patch(created.url, 5, Buffer.from('67890'))).status).toBe(204);
    const done = (await request('GET', created.url)).body.data;
    expect(done.status).toBe('completed');
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [
        done.result.fileId,
      ]);
    expect(file!.sha256).toBe(createHash('sha256').update('1234567890').digest('hex'));
  });
});

describe("an upload's one object", () => {
  it('bytes written past the recorded offset by a request that never recorded them (a process killed mid-chunk) are not part of the file', async () => {
    const created = await create(10, { filename: 'cut.txt' });
    const id = created.url.split('/').pop()!;
    expect((await patch(created.url, 0, Buffer.from('12345'))).status).toBe(204);
    await appendFile(join(lib.storage.path, 'uploads', id, 'data'), 'garbage that was never recorded');
    expect((await request('HEAD', created.url, { headers: TUS })).headers['upload-offset']).toBe('5');
    expect((await patch(created.url, 5, Buffer.from('67890'))).status).toBe(204);
    const done = (await request('GET', created.url)).body.data;
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select o.sha256, o.storage_key from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [
        done.result.fileId,
      ]);
    expect(file!.sha256).toBe(createHash('sha256').update('1234567890').digest('hex'));
    expect((await readFile(join(lib.storage.path, String(file!.storage_key)))).toString()).toBe('1234567890');
  });
});

describe('one-request upload', () => {
  it('PUT /v1/uploads/files/{name} with the raw bytes places the file (curl -T)', async () => {
    const answer = await request('PUT', '/v1/uploads/files/photo.png?folder=/one/request&tags=a,b', { headers: { 'content-type': 'image/png' }, payload: png });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({ status: 'completed', length: png.length, offset: png.length });
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select name, mime_type from library_files where id = ?', [answer.body.data.result.fileId]);
    expect(file).toMatchObject({ name: 'photo.png', mime_type: 'image/png' });
  });

  it('POST /v1/uploads/files?name= takes any Content-Type, JSON included, as bytes', async () => {
    const answer = await request('POST', '/v1/uploads/files?name=data.json', { headers: { 'content-type': 'application/json' }, payload: '{"not": "parsed"}' });
    expect(answer.status).toBe(201);
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select name, byte_size from library_files where id = ?', [answer.body.data.result.fileId]);
    expect(file).toMatchObject({ name: 'data.json', byte_size: '17' });
  });

  it('a control character in the name, a body over the limit, a view_only key: refused, nothing placed', async () => {
    await expectRefused(() => request('PUT', '/v1/uploads/files/bad%01.png', { payload: png }), 422, 'validation_failed');
    await expectRefused(() => request('PUT', '/v1/uploads/files/big.bin', { payload: Buffer.alloc(MAX_FILE + 1) }), 413, 'payload_too_large');
    await expectRefused(() => request('PUT', '/v1/uploads/files/v.png', { key: viewer.key, payload: png }), 403, 'forbidden');
  });
});

describe('two PATCHes to one upload at once', () => {
  it('one wins, the other (and a DELETE) is refused with 423 while it runs, and the bytes are not mixed; the one running holds no database transaction', async () => {
    const first = Buffer.alloc(200_000, 'a');
    const intruder = Buffer.alloc(200_000, 'b');
    const created = await create(first.length, { filename: 'race.txt' });
    const id = created.url.split('/').pop()!;
    // the first PATCH sends half its body and waits
    let finish!: () => void;
    const answered = new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${address}${created.url}`, {
        method: 'PATCH',
        headers: {
          ...TUS,
          authorization: `Bearer ${key.key}`,
          'content-type': 'application/offset+octet-stream',
          'upload-offset': '0',
          'content-length': String(first.length),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write(first.subarray(0, 100_000));
      finish = () => req.end(first.subarray(100_000));
    });
    // its bytes are being appended to the upload's object: it holds the upload
    await expect.poll(async () => (await partFiles(id)).includes('data'), { timeout: 20_000 }).toBe(true);
    // it holds the upload's lease, not a database transaction: a slow client ties up no connection
    const open = await world.env.orm.em
      .fork()
      .execute<{ n: string }[]>("select count(*) as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'");
    expect(Number(open[0]!.n)).toBe(0);
    const refused = await patch(created.url, 0, intruder);
    expect(refused.status).toBe(423);
    expect(refused.body.code).toBe('upload_locked');
    const terminated = await request('DELETE', created.url, { headers: TUS });
    expect(terminated.status).toBe(423);
    finish();
    expect(await answered).toBe(204);
    const done = (await request('GET', created.url)).body.data;
    expect(done.status).toBe('completed');
    const [file] = await world.env.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [
        done.result.fileId,
      ]);
    expect(file!.sha256).toBe(createHash('sha256').update(first).digest('hex'));
  });
});
