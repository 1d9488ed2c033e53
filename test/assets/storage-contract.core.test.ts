import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskStorage, type Storage, StorageUnavailableError } from '../../src/core/assets/storage/storage.ts';
import { tempDir } from '../support/media-files.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';

/**
 * One contract, two backends: every test below runs against local disk and against an S3 bucket
 * on the RADOS Gateway (scripts/objectstore.sh), so the core can rely on the same behaviour from
 * either (docs/operations.md "Object storage").
 */
let dir: Awaited<ReturnType<typeof tempDir>>;
let bucket: TestBucket;
const backends: Record<string, () => Storage> = {};

beforeAll(async () => {
  dir = await tempDir('storage-contract');
  bucket = await testBucket();
  backends.local = () => new LocalDiskStorage(dir.path);
  // a prefix, as a deployment sharing a bucket would set: nothing may be written outside it
  backends.s3 = () => bucket.storage({ prefix: 'shelf/' });
});
afterAll(async () => {
  await bucket?.remove();
  await dir?.remove();
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAll(storage: Storage, key: string): Promise<Buffer | null> {
  const opened = await storage.open(key);
  return opened ? buffer(opened.stream) : null;
}

async function readWithReader(storage: Storage, key: string, bufferSize: number): Promise<Buffer | null> {
  const reader = await storage.openReader(key);
  if (!reader) return null;
  const parts: Buffer[] = [];
  const into = Buffer.alloc(bufferSize);
  try {
    for (let n = await reader.readInto(into); n > 0; n = await reader.readInto(into)) parts.push(Buffer.from(into.subarray(0, n)));
  } finally {
    await reader.close();
  }
  return Buffer.concat(parts);
}

async function listed(storage: Storage, prefix?: string): Promise<{ key: string; size: number }[]> {
  const all: { key: string; size: number }[] = [];
  for await (const { key, size, modifiedAt } of storage.list(prefix)) {
    expect(Math.abs(modifiedAt.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    all.push({ key, size });
  }
  // listed in key order, as the storage check's merge with the database's keys needs
  expect(all.map((o) => o.key)).toEqual(all.map((o) => o.key).sort());
  return all;
}

describe.each(['local', 's3'])('the storage contract on %s', (backend) => {
  const storage = () => backends[backend]!();
  const ns = `c-${backend}`;

  it('stores bytes under a key and gives them back, with their size, until removed', async () => {
    const s = storage();
    await s.put(`${ns}/put/a.txt`, Buffer.from('hello'));
    expect(await s.exists(`${ns}/put/a.txt`)).toBe(true);
    expect(await s.size(`${ns}/put/a.txt`)).toBe(5);
    const opened = await s.open(`${ns}/put/a.txt`);
    expect(opened!.size).toBe(5);
    expect((await buffer(opened!.stream)).toString()).toBe('hello');
    await s.put(`${ns}/put/a.txt`, Buffer.from('replaced'));
    expect((await readAll(s, `${ns}/put/a.txt`))!.toString()).toBe('replaced');
    await s.remove(`${ns}/put/a.txt`);
    expect(await s.exists(`${ns}/put/a.txt`)).toBe(false);
    // removing what is not there is not an error
    await s.remove(`${ns}/put/a.txt`);
  });

  it('answers null for an object that does not exist', async () => {
    const s = storage();
    expect(await s.open(`${ns}/missing`)).toBeNull();
    expect(await s.openReader(`${ns}/missing`)).toBeNull();
    expect(await s.size(`${ns}/missing`)).toBeNull();
    expect(await s.exists(`${ns}/missing`)).toBe(false);
  });

  it('refuses keys that are not relative slash-separated paths, before touching the store', async () => {
    const s = storage();
    for (const key of ['../escape', 'a/../b', '/abs', 'a//b', 'a b', '']) {
      await expect(s.put(key, Buffer.from('x'))).rejects.toThrow(/invalid storage key/);
    }
    expect(await listed(s, ns)).toEqual([]);
  });

  it('streams a large object in (several multipart parts on S3) and out, byte for byte', async () => {
    const s = storage();
    const bytes = randomBytes(20 * 1024 * 1024 + 123);
    await s.putStream(`${ns}/big`, Readable.from([bytes.subarray(0, 7_000_000), bytes.subarray(7_000_000)]));
    expect(await s.size(`${ns}/big`)).toBe(bytes.length);
    expect(sha256((await readAll(s, `${ns}/big`))!)).toBe(sha256(bytes));
    // the buffer reader of ZIP downloads, with a buffer smaller and one larger than a network chunk
    expect(sha256((await readWithReader(s, `${ns}/big`, 1000))!)).toBe(sha256(bytes));
    expect(sha256((await readWithReader(s, `${ns}/big`, 4 * 1024 * 1024))!)).toBe(sha256(bytes));
    await s.remove(`${ns}/big`);
  });

  it('keeps nothing of a stream that fails midway', async () => {
    const s = storage();
    async function* failing() {
      yield randomBytes(9 * 1024 * 1024);
      // what Node's request stream fails with when the client goes away
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    }
    // the source's own error (a client that went away), not the store's: never a 503
    const failure = await s.putStream(`${ns}/broken`, Readable.from(failing())).catch((e: unknown) => e);
    expect(failure).not.toBeInstanceOf(StorageUnavailableError);
    expect((failure as Error).message).toBe('aborted');
    expect(await s.exists(`${ns}/broken`)).toBe(false);
    expect(await listed(s, ns)).toEqual([]);
    // nor parts of an unfinished multipart upload, which S3 would keep (and bill) until aborted
    if (backend === 's3') expect(await bucket.openUploads()).toBe(0);
  });

  it('reads a range of an object (start and end inclusive)', async () => {
    const s = storage();
    await s.put(`${ns}/range`, Buffer.from('0123456789'));
    const opened = await s.open(`${ns}/range`, { start: 2, end: 5 });
    expect(opened!.size).toBe(4);
    expect((await buffer(opened!.stream)).toString()).toBe('2345');
    expect((await buffer((await s.open(`${ns}/range`, { start: 9, end: 9 }))!.stream)).toString()).toBe('9');
    expect(await s.open(`${ns}/range-missing`, { start: 0, end: 1 })).toBeNull();
    await s.remove(`${ns}/range`);
  });

  it('places a received object under the key known at the end, once, leaving nothing under incoming/', async () => {
    const s = storage();
    const first = await s.receive();
    await first.write(Buffer.from('hello '));
    await first.write(Buffer.from('world'));
    expect(await first.place(`${ns}/objects/hw`)).toBe(true);
    expect((await readAll(s, `${ns}/objects/hw`))!.toString()).toBe('hello world');
    const second = await s.receive();
    await second.write(Buffer.from('hello world'));
    expect(await second.place(`${ns}/objects/hw`)).toBe(false);
    expect(await listed(s, 'incoming')).toEqual([]);
    await expect(first.place(`${ns}/objects/other`)).rejects.toThrow(/already placed/);
    await s.remove(`${ns}/objects/hw`);
  });

  it('receives a large object in parts and places it without losing a byte', async () => {
    const s = storage();
    const bytes = randomBytes(18 * 1024 * 1024);
    const object = await s.receive();
    for (let at = 0; at < bytes.length; at += 1024 * 1024) await object.write(bytes.subarray(at, at + 1024 * 1024));
    expect(await object.place(`${ns}/objects/large`)).toBe(true);
    expect(sha256((await readAll(s, `${ns}/objects/large`))!)).toBe(sha256(bytes));
    expect(await listed(s, 'incoming')).toEqual([]);
    await s.remove(`${ns}/objects/large`);
  });

  it('drops a discarded object: nothing placed, nothing under incoming/, discarding twice changes nothing', async () => {
    const s = storage();
    const object = await s.receive();
    await object.write(randomBytes(1024));
    await object.discard();
    await object.discard();
    expect(await listed(s, 'incoming')).toEqual([]);
    expect(await listed(s, ns)).toEqual([]);
    // a discard after the first part was sent aborts the multipart upload: no parts stay behind
    const large = await s.receive();
    await large.write(randomBytes(12 * 1024 * 1024));
    await large.discard();
    expect(await listed(s, 'incoming')).toEqual([]);
    if (backend === 's3') expect(await bucket.openUploads()).toBe(0);
  });

  it('appends pieces, each from a fresh instance (another process), below and above the minimum part size, into one object', async () => {
    const bytes = randomBytes(21 * 1024 * 1024 + 77);
    const key = `${ns}/uploads/u1/data`;
    // 5 MB pieces (what tus clients send), then an 11 MB one, then the rest
    const cuts = [0, 5_000_000, 10_000_000, 21_000_000, bytes.length];
    let state: Record<string, unknown> | null = null;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const piece = await storage().appendPiece(key, { offset: cuts[i]!, length: bytes.length, state }, Readable.from([bytes.subarray(cuts[i], cuts[i + 1])]));
      expect(piece.written).toBe(cuts[i + 1]! - cuts[i]!);
      await piece.recorded();
      state = piece.state;
    }
    // nothing is readable under the key before it is completed
    if (backend === 's3') expect(await storage().exists(key)).toBe(false);
    await storage().completeAppends(key, state!, bytes.length);
    expect(sha256((await readAll(storage(), key))!)).toBe(sha256(bytes));
    expect(await storage().placeAs(key, `${ns}/objects/appended`)).toBe(true);
    expect(await storage().placeAs(key, `${ns}/objects/appended`)).toBe(false);
    await storage().removeTree(`${ns}/uploads`);
    expect(sha256((await readAll(storage(), `${ns}/objects/appended`))!)).toBe(sha256(bytes));
    expect(await listed(storage(), ns)).toEqual([{ key: `${ns}/objects/appended`, size: bytes.length }]);
    if (backend === 's3') expect(await bucket.openUploads()).toBe(0);
    await storage().remove(`${ns}/objects/appended`);
  });

  it('a small object in pieces, or in one piece, is whole once completed; a dropped last piece leaves it to be sent again', async () => {
    const key = `${ns}/uploads/u4/data`;
    const bytes = randomBytes(300_000);
    const first = await storage().appendPiece(key, { offset: 0, length: bytes.length, state: null }, Readable.from([bytes.subarray(0, 100_000)]));
    await first.recorded();
    const last = await storage().appendPiece(key, { offset: 100_000, length: bytes.length, state: first.state }, Readable.from([bytes.subarray(100_000)]));
    await last.drop();
    const again = await storage().appendPiece(key, { offset: 100_000, length: bytes.length, state: first.state }, Readable.from([bytes.subarray(100_000)]));
    await again.recorded();
    await storage().completeAppends(key, again.state, bytes.length);
    expect(sha256((await readAll(storage(), key))!)).toBe(sha256(bytes));
    const one = await storage().appendPiece(`${ns}/uploads/u5/data`, { offset: 0, length: bytes.length, state: null }, Readable.from([bytes]));
    await storage().completeAppends(`${ns}/uploads/u5/data`, one.state, bytes.length);
    expect(sha256((await readAll(storage(), `${ns}/uploads/u5/data`))!)).toBe(sha256(bytes));
    await storage().removeTree(`${ns}/uploads`);
    expect(await listed(storage(), ns)).toEqual([]);
    if (backend === 's3') expect(await bucket.openUploads()).toBe(0);
  });

  it('a piece that is dropped or fails midway leaves the recorded bytes as they were', async () => {
    const key = `${ns}/uploads/u2/data`;
    const first = randomBytes(9 * 1024 * 1024);
    const piece = await storage().appendPiece(key, { offset: 0, length: 30_000_000, state: null }, Readable.from([first]));
    await piece.recorded();
    // a checksum mismatch: appended, then dropped
    const dropped = await storage().appendPiece(
      key,
      { offset: first.length, length: 30_000_000, state: piece.state },
      Readable.from([randomBytes(10_000_000)]),
    );
    await dropped.drop();
    // a client that went away: the source fails midway
    async function* failing() {
      yield randomBytes(9 * 1024 * 1024);
      throw Object.assign(new Error('gone'), { code: 'ECONNRESET' });
    }
    await expect(storage().appendPiece(key, { offset: first.length, length: 30_000_000, state: piece.state }, failing())).rejects.toThrow();
    const rest = randomBytes(30_000_000 - first.length);
    const last = await storage().appendPiece(key, { offset: first.length, length: 30_000_000, state: piece.state }, Readable.from([rest]));
    await last.recorded();
    await storage().completeAppends(key, last.state, 30_000_000);
    expect(sha256((await readAll(storage(), key))!)).toBe(sha256(Buffer.concat([first, rest])));
    await storage().removeTree(`${ns}/uploads`);
    expect(await listed(storage(), ns)).toEqual([]);
    if (backend === 's3') expect(await bucket.openUploads()).toBe(0);
  });

  it('a completed object whose placement failed can still take its last piece again; the placed copy never changes', async () => {
    const key = `${ns}/uploads/u3/data`;
    const head = randomBytes(9 * 1024 * 1024);
    const tail = randomBytes(1000);
    const first = await storage().appendPiece(key, { offset: 0, length: head.length + tail.length, state: null }, Readable.from([head]));
    await first.recorded();
    const last = await storage().appendPiece(key, { offset: head.length, length: head.length + tail.length, state: first.state }, Readable.from([tail]));
    await storage().completeAppends(key, last.state, head.length + tail.length);
    expect(await storage().placeAs(key, `${ns}/objects/placed`)).toBe(true);
    // the transaction that records the last piece failed: the piece is dropped, the client sends it again
    await last.drop();
    const again = await storage().appendPiece(key, { offset: head.length, length: head.length + tail.length, state: first.state }, Readable.from([tail]));
    await again.recorded();
    await storage().completeAppends(key, again.state, head.length + tail.length);
    const whole = sha256(Buffer.concat([head, tail]));
    expect(sha256((await readAll(storage(), key))!)).toBe(whole);
    expect(sha256((await readAll(storage(), `${ns}/objects/placed`))!)).toBe(whole);
    await storage().removeTree(`${ns}/uploads`);
    await storage().remove(`${ns}/objects/placed`);
    expect(await listed(storage(), ns)).toEqual([]);
    if (backend === 's3') expect(await bucket.openUploads()).toBe(0);
  });

  it('removes every object under a prefix and nothing beside it', async () => {
    const s = storage();
    await s.put(`${ns}/derived/ab/w100`, Buffer.from('1'));
    await s.put(`${ns}/derived/ab/sub/w200`, Buffer.from('22'));
    await s.put(`${ns}/derived/abc/w100`, Buffer.from('333'));
    expect(await listed(s, `${ns}/derived`)).toEqual([
      { key: `${ns}/derived/ab/sub/w200`, size: 2 },
      { key: `${ns}/derived/ab/w100`, size: 1 },
      { key: `${ns}/derived/abc/w100`, size: 3 },
    ]);
    await s.removeTree(`${ns}/derived/ab`);
    expect(await listed(s, `${ns}/derived`)).toEqual([{ key: `${ns}/derived/abc/w100`, size: 3 }]);
    await s.removeTree(`${ns}/derived/none`);
    await s.removeTree(`${ns}/derived/abc`);
    expect(await listed(s, ns)).toEqual([]);
  });
});

describe('the S3 backend', () => {
  it('keeps every key under its prefix, so deployments can share a bucket', async () => {
    const s = bucket.storage({ prefix: 'tenant-a' });
    await s.put('objects/x/y', Buffer.from('y'));
    expect(await bucket.keys()).toContain('tenant-a/objects/x/y');
    expect(await listed(s)).toEqual([{ key: 'objects/x/y', size: 1 }]);
    await s.remove('objects/x/y');
  });
});
