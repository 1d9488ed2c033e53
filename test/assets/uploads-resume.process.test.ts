import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { tempDir } from '../support/media-files.ts';
import { freePort } from '../support/private-redis.ts';
import { type ShelfProcess, spawnShelf, untilHealthy } from '../support/shelf-process.ts';
import { SPAWNING_TEST_TIMEOUT_MS, until } from '../support/wait.ts';

/*
 * A resumable upload as its clients live it: tus-js-client itself sends a file in chunks to one
 * API process through a proxy; the connection is cut mid-chunk, then the API process is killed
 * with SIGKILL mid-chunk; each time the client resumes from the offset the server reports, and the
 * upload is finished on a different API process. Both processes share only PostgreSQL, Redis and
 * the file store. The file placed is the file sent, byte for byte.
 */

const MiB = 1024 * 1024;
// the 50 MB in 5 MB chunks
const FILE_BYTES = 50 * MiB;
const CHUNK = 5 * MiB;

// two process starts, 50 MB sent about twice over, and up to one lease (15 s) waited out, on a busy machine
vi.setConfig({ testTimeout: SPAWNING_TEST_TIMEOUT_MS * 3 });

let env: TestEnv;
let key: GivenKey;
let storage: Awaited<ReturnType<typeof tempDir>>;
const running: ChildProcess[] = [];

beforeAll(async () => {
  storage = await tempDir('uploads-resume-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  const team = await given(env).team('Resume');
  key = await given(env).key(team, 'editable');
});
afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await env.close();
  await storage.remove();
});

/** An API process (ROLE=api) of its own on `port`, sharing the test's database and file store. */
async function startApi(port: number): Promise<ShelfProcess> {
  const api = spawnShelf({
    ROLE: 'api',
    PORT: String(port),
    DATABASE_URL: env.config.databaseUrl,
    REDIS_URL: env.config.redisUrl,
    QUEUE_PREFIX: env.config.queuePrefix,
    STORAGE_DIR: storage.path,
    LINK_SIGNING_SECRET: env.config.linkSigningSecret!,
    LOG_LEVEL: 'silent',
  });
  running.push(api.child);
  await untilHealthy(port);
  return api;
}

/**
 * A TCP proxy to an API port, counting the bytes clients send through it; `cutAfter(n)` cuts the
 * connection once n more bytes have gone through (the server gets them, then the connection ends).
 */
async function startProxy(targetPort: number): Promise<{ port: number; sent: () => number; cutAfter(bytes: number): void; close(): Promise<void> }> {
  let sent = 0;
  let cutAt = Number.POSITIVE_INFINITY;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (sent + chunk.length >= cutAt) {
        const keep = cutAt - sent;
        sent = cutAt;
        cutAt = Number.POSITIVE_INFINITY;
        upstream.end(chunk.subarray(0, keep));
        client.destroy();
        return;
      }
      sent += chunk.length;
      if (!upstream.write(chunk)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    sent: () => sent,
    cutAfter(bytes) {
      cutAt = sent + bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Runs a tus-js-client upload until it succeeds or fails; the Upload-Offset of its first PATCH. */
function runUpload(
  file: Buffer,
  options: tus.UploadOptions,
): { done: Promise<{ ok: true; url: string } | { ok: false; error: Error; url: string | null }>; firstPatchOffset: () => number | null } {
  let firstPatchOffset: number | null = null;
  let upload: tus.Upload;
  const done = new Promise<{ ok: true; url: string } | { ok: false; error: Error; url: string | null }>((resolve) => {
    upload = new tus.Upload(file, {
      chunkSize: CHUNK,
      headers: { Authorization: `Bearer ${key.key}` },
      metadata: { filename: 'big.bin', filetype: 'application/octet-stream', folder: '/resumed', tags: 'big' },
      storeFingerprintForResuming: false,
      ...options,
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH' && firstPatchOffset === null) firstPatchOffset = Number(req.getHeader('Upload-Offset'));
      },
      onSuccess: () => resolve({ ok: true, url: upload.url! }),
      onError: (error) => resolve({ ok: false, error, url: upload.url }),
    });
    upload.start();
  });
  return { done, firstPatchOffset: () => firstPatchOffset };
}

async function offsetAt(port: number, path: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${key.key}`, 'tus-resumable': '1.0.0' } });
  expect(res.status).toBe(200);
  return Number(res.headers.get('upload-offset'));
}

describe('tus-js-client: an interrupted upload resumed on another API process', () => {
  it('a file in chunks survives a connection cut mid-chunk and a SIGKILL of its API process mid-chunk, and is finished on another process byte for byte', async () => {
    const file = randomBytes(FILE_BYTES);
    const [portA, portB] = [await freePort(), await freePort()];
    const [apiA, apiB] = await Promise.all([startApi(portA), startApi(portB)]);
    const proxy = await startProxy(portA);
    try {
      // 1. started on A; the connection is cut in the middle of the third chunk
      proxy.cutAfter(2 * CHUNK + CHUNK / 2);
      const first = await runUpload(file, { endpoint: `http://127.0.0.1:${proxy.port}/v1/uploads`, retryDelays: null }).done;
      expect(first.ok).toBe(false);
      const path = new URL(first.url!).pathname;
      expect(path).toMatch(/^\/v1\/uploads\/[0-9a-f-]{36}$/);
      // the bytes of the cut chunk that arrived are kept: the offset is past the two whole chunks
      // (recorded once A has seen its request end, which may come just after the client gave up)
      const afterCut = await until(
        () => offsetAt(portB, path),
        (offset) => offset > 2 * CHUNK,
        { timeout: 20_000 },
      );
      expect(afterCut).toBeLessThan(3 * CHUNK);

      // 2. resumed on A from that offset; A is killed with SIGKILL in the middle of a chunk
      const sentBefore = proxy.sent();
      const second = runUpload(file, { uploadUrl: `http://127.0.0.1:${proxy.port}${path}`, retryDelays: null });
      await expect.poll(() => proxy.sent() - sentBefore, { timeout: 60_000, interval: 5 }).toBeGreaterThan(CHUNK + CHUNK / 2);
      apiA.child.kill('SIGKILL');
      await apiA.exited;
      const killed = await second.done;
      expect(killed.ok).toBe(false);
      expect(second.firstPatchOffset()).toBe(afterCut);
      // what A had recorded before it died stays; the chunk it was receiving is gone with it
      const afterKill = await offsetAt(portB, path);
      expect(afterKill).toBeGreaterThanOrEqual(afterCut + CHUNK);
      expect(afterKill).toBeLessThan(FILE_BYTES);

      // 3. finished on B, from the offset B reports (the upload's lease A's PATCH held runs out
      // within LEASE_SECONDS; until then B answers 423, which the client retries)
      const third = runUpload(file, { uploadUrl: `http://127.0.0.1:${portB}${path}`, retryDelays: [250, 500, 1000, 2000, 4000, 4000, 4000, 4000, 4000] });
      const finished = await third.done;
      expect(finished, apiB.output()).toMatchObject({ ok: true });
      expect(third.firstPatchOffset()).toBe(afterKill);

      const status = await fetch(`http://127.0.0.1:${portB}${path}`, { headers: { authorization: `Bearer ${key.key}` } });
      const upload = (await status.json()).data;
      expect(upload).toMatchObject({ status: 'completed', offset: FILE_BYTES, length: FILE_BYTES });
      const sha256 = createHash('sha256').update(file).digest('hex');
      const [row] = await env.orm.em
        .fork()
        .execute<Record<string, unknown>[]>(
          'select f.name, f.byte_size, o.sha256, o.storage_key from library_files f join stored_objects o on o.id = f.object_id where f.id = ?',
          [upload.result.fileId],
        );
      expect(row).toMatchObject({ name: 'big.bin', byte_size: String(FILE_BYTES), sha256 });
      const stored = await readFile(join(storage.path, String(row!.storage_key)));
      expect(createHash('sha256').update(stored).digest('hex')).toBe(sha256);
    } finally {
      await proxy.close();
      apiB.child.kill('SIGTERM');
      await apiB.exited;
    }
  });
});
