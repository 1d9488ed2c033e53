import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectObjectStream } from '../../src/core/assets/storage/s3-direct-read.ts';
import type { S3Storage } from '../../src/core/assets/storage/s3-storage.ts';
import type { Opened } from '../../src/core/assets/storage/storage.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';

/**
 * Reads from an http: store over Shelf's own socket into reused buffers (s3-direct-read.ts): piped
 * into an HTTP response a buffer is read into again only once its bytes were written, so a slow
 * client must still get every byte in order; anything else is copied out.
 */
let bucket: TestBucket;
let storage: S3Storage;
let server: http.Server;
let base: string;
/** What the server last opened, to see what became of the read. */
let lastOpened: Opened | null = null;
const bytes = randomBytes(24 * 1024 * 1024 + 123);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  bucket = await testBucket();
  storage = bucket.storage();
  await storage.put('objects/big', bytes);
  // what /files does with a read: headers, then the stream piped into the response
  server = http.createServer(async (req, res) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const opened = await storage.open('objects/big', range ? { start: Number(range[1]), end: Number(range[2]) } : undefined);
    lastOpened = opened;
    res.setHeader('content-length', String(opened!.size));
    opened!.stream.pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await bucket?.remove();
});

/** GETs from the test server reading one chunk per event-loop turn (a client slower than the store). */
function slowGet(headers: Record<string, string> = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}/`, { headers, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          res.pause();
          setImmediate(() => res.resume());
        });
        res.on('end', () => resolve(Buffer.concat(parts)));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('reading an object from an http: store directly', () => {
  it('a read piped into an HTTP response reaches a slow client byte for byte, whole and by range', async () => {
    const whole = await slowGet();
    expect(lastOpened!.stream).toBeInstanceOf(DirectObjectStream);
    expect(whole.length).toBe(bytes.length);
    expect(sha256(whole)).toBe(sha256(bytes));

    const start = 3 * 1024 * 1024 + 7;
    const end = 19 * 1024 * 1024 + 11;
    const part = await slowGet({ range: `bytes=${start}-${end}` });
    expect(part.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it('a read consumed any other way gets copies: chunks kept by the reader stay as they were', async () => {
    const opened = (await storage.open('objects/big'))!;
    expect(opened.stream).toBeInstanceOf(DirectObjectStream);
    // buffer() keeps every chunk until the end: a reused reading buffer would show as wrong bytes
    expect(sha256(await buffer(opened.stream))).toBe(sha256(bytes));
  });

  it('a client that goes away mid-download ends the read from the store', async () => {
    const received = await new Promise<number>((resolve, reject) => {
      const request = http.get(`${base}/`, { agent: false }, (res) => {
        let n = 0;
        res.on('data', (chunk: Buffer) => {
          n += chunk.length;
          if (n >= 2 * 1024 * 1024) {
            request.destroy();
            resolve(n);
          }
        });
      });
      request.on('error', (e) => (request.destroyed ? undefined : reject(e)));
    });
    expect(received).toBeLessThan(bytes.length);
    await expect.poll(() => lastOpened!.stream.destroyed).toBe(true);
  });

  it('a missing object or a range past the end is answered through the SDK as before: null, or nothing', async () => {
    expect(await storage.open('objects/missing')).toBeNull();
    const past = (await storage.open('objects/big', { start: bytes.length + 10, end: bytes.length + 20 }))!;
    expect(past.size).toBe(0);
    expect(past.stream).not.toBeInstanceOf(DirectObjectStream);
    expect((await buffer(past.stream)).length).toBe(0);
  });

  it('a store that accepts the connection and never answers is given up after the head timeout, for the SDK to try', async () => {
    const silent = net.createServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const url = new URL(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/bucket/key`);
      expect(await DirectObjectStream.open({ presign: async () => url, resumeForMs: 1000, headTimeoutMs: 200 })).toBeNull();
    } finally {
      silent.close();
    }
  });

  it('a small object is read directly and arrives whole', async () => {
    await storage.put('objects/small', Buffer.from('a thumbnail'));
    const opened = (await storage.open('objects/small'))!;
    expect(opened.stream).toBeInstanceOf(DirectObjectStream);
    expect((await buffer(opened.stream)).toString()).toBe('a thumbnail');
  });
});
