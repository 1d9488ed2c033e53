import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/core/assets/storage/storage.ts';
import { createTestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { tempDir } from '../support/media-files.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';
import { type PrivateGateway, privateGateway } from '../support/private-gateway.ts';

/**
 * The object store failing under Shelf: a radosgw of this file's own (test/support/private-gateway.ts)
 * on the shared cluster is killed and restarted mid-download and mid-upload. The shared gateway
 * that other test files use is never stopped.
 */
let bucket: TestBucket;
let gateway: PrivateGateway;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  bucket = await testBucket();
  gateway = await privateGateway();
});
afterAll(async () => {
  await gateway?.kill();
  await bucket?.remove();
});

/** An S3 storage reaching the bucket through the private gateway. */
const throughGateway = (options: { resumeForMs?: number; onResume?: (offset: number) => void } = {}) =>
  bucket.storage({ endpoint: gateway.endpoint, ...options });

describe('the S3 store failing mid-transfer', () => {
  const bytes = randomBytes(48 * 1024 * 1024);

  beforeAll(async () => {
    // written through the shared gateway: the private one's restarts do not touch it
    await bucket.storage().put('objects/big', bytes);
  });

  it('a download resumes from the byte it reached when the gateway restarts mid-download', async () => {
    const resumedAt: number[] = [];
    const storage = throughGateway({ onResume: (offset) => resumedAt.push(offset) });
    const reader = (await storage.openReader('objects/big'))!;
    const into = Buffer.alloc(1024 * 1024);
    const parts: Buffer[] = [];
    let read = 0;
    while (read < 4 * 1024 * 1024) {
      const n = await reader.readInto(into);
      parts.push(Buffer.from(into.subarray(0, n)));
      read += n;
    }
    await gateway.kill();
    const restarted = gateway.start();
    for (let n = await reader.readInto(into); n > 0; n = await reader.readInto(into)) parts.push(Buffer.from(into.subarray(0, n)));
    await reader.close();
    await restarted;
    expect(resumedAt.length).toBeGreaterThanOrEqual(1);
    expect(resumedAt[0]).toBeGreaterThan(0);
    expect(resumedAt[0]).toBeLessThan(bytes.length);
    expect(sha256(Buffer.concat(parts))).toBe(sha256(bytes));
  });

  it('a streamed download (signed links, previews) resumes the same way', async () => {
    const resumedAt: number[] = [];
    const storage = throughGateway({ onResume: (offset) => resumedAt.push(offset) });
    const opened = (await storage.open('objects/big'))!;
    const parts: Buffer[] = [];
    let read = 0;
    let restarted: Promise<void> | null = null;
    for await (const chunk of opened.stream) {
      parts.push(chunk as Buffer);
      read += (chunk as Buffer).length;
      if (!restarted && read >= 4 * 1024 * 1024) {
        await gateway.kill();
        restarted = gateway.start();
      }
    }
    await restarted;
    expect(resumedAt.length).toBeGreaterThanOrEqual(1);
    expect(sha256(Buffer.concat(parts))).toBe(sha256(bytes));
  });

  it('a download piped into an HTTP response (what /files does) resumes the same way', async () => {
    const resumedAt: number[] = [];
    const storage = throughGateway({ onResume: (offset) => resumedAt.push(offset) });
    const server = http.createServer(async (_req, res) => {
      const opened = (await storage.open('objects/big'))!;
      res.setHeader('content-length', String(opened.size));
      opened.stream.pipe(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      let restarted: Promise<void> | null = null;
      const received = await new Promise<Buffer>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { agent: false }, (res) => {
            const parts: Buffer[] = [];
            let read = 0;
            res.on('data', (chunk: Buffer) => {
              parts.push(chunk);
              read += chunk.length;
              if (!restarted && read >= 4 * 1024 * 1024) {
                res.pause();
                restarted = gateway.kill().then(() => {
                  res.resume();
                  return gateway.start();
                });
              }
            });
            res.on('end', () => resolve(Buffer.concat(parts)));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      await restarted;
      expect(resumedAt.length).toBeGreaterThanOrEqual(1);
      expect(sha256(received)).toBe(sha256(bytes));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a download whose gateway stays down fails as unavailable (503) instead of ending short', async () => {
    const storage = throughGateway({ resumeForMs: 500 });
    const opened = (await storage.open('objects/big'))!;
    let read = 0;
    const drained = (async () => {
      for await (const chunk of opened.stream) {
        read += (chunk as Buffer).length;
        if (read >= 4 * 1024 * 1024 && read - (chunk as Buffer).length < 4 * 1024 * 1024) await gateway.kill();
      }
    })();
    const failure = await drained.then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect(read).toBeLessThan(bytes.length);
    expect((failure as StorageUnavailableError).code).toBe('service_unavailable');
    await gateway.start();
  });

  it('an upload cut by the gateway going down places nothing; after the restart the same bytes are placed whole', async () => {
    const storage = throughGateway();
    const object = await storage.receive();
    await object.write(bytes.subarray(0, 12 * 1024 * 1024));
    await gateway.kill();
    const failure = await (async () => {
      for (let at = 12 * 1024 * 1024; at < bytes.length; at += 1024 * 1024) await object.write(bytes.subarray(at, at + 1024 * 1024));
      return object.place('objects/uploaded');
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    await gateway.start();
    expect(await storage.exists('objects/uploaded')).toBe(false);
    expect(await bucket.keys()).toEqual(['objects/big']);

    const again = await storage.receive();
    for (let at = 0; at < bytes.length; at += 4 * 1024 * 1024) await again.write(bytes.subarray(at, at + 4 * 1024 * 1024));
    expect(await again.place('objects/uploaded')).toBe(true);
    expect(sha256(await buffer((await storage.open('objects/uploaded'))!.stream))).toBe(sha256(bytes));
    expect(await bucket.keys()).toEqual(['objects/big', 'objects/uploaded']);
  });

  it('with the gateway down, a write fails as unavailable (503 with Retry-After) and succeeds once it is back', async () => {
    const storage = throughGateway();
    await gateway.kill();
    const failure = await storage.put('objects/small', Buffer.from('small')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect((failure as StorageUnavailableError).code).toBe('service_unavailable');
    expect(await storage.exists('objects/small').catch((e: unknown) => e)).toBeInstanceOf(StorageUnavailableError);
    await gateway.start();
    await storage.put('objects/small', Buffer.from('small'));
    expect((await buffer((await storage.open('objects/small'))!.stream)).toString()).toBe('small');
  });
});

describe('Shelf with its S3 store down', () => {
  it('answers a signed download link 503 with Retry-After while the gateway is down, and the file again once it is back', async () => {
    const dir = await tempDir('faults-rest');
    const env = await createTestEnv({ STORAGE_DIR: dir.path, ...bucket.env('rest'), S3_ENDPOINT: gateway.endpoint });
    try {
      const g = given(env);
      const team = await g.team('Faults');
      const path = `${dir.path}/notes.txt`;
      await import('node:fs/promises').then((fs) => fs.writeFile(path, 'bytes behind a flaky gateway'));
      const { id } = await g.libraryFile(team, { file: path, folder: '/in' });
      const link = new URL(env.core.assets.links.sign({ teamId: team.teamId, fileId: id, purpose: 'download' }, Math.floor(Date.now() / 1000) + 600));
      const get = () => env.app.inject({ method: 'GET', url: link.pathname + link.search });
      await gateway.kill();
      const down = await get();
      expect(down.statusCode).toBe(503);
      expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
      await gateway.start();
      const back = await get();
      expect(back.statusCode).toBe(200);
      expect(back.body).toBe('bytes behind a flaky gateway');
    } finally {
      await env.close();
      await dir.remove();
    }
  });
});
