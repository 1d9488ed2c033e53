/**
 * Upload benchmark: uploads through Shelf's real app in a child process (ROLE=api, the
 * service's Node flags), each against its floor measured in the same run, in rotating order.
 *
 *   node bench/uploads.bench.ts     BENCH_BACKEND=local|s3 (local) BENCH_UPLOAD_MIB=1024
 *                                   BENCH_CHUNK_MIB=64 BENCH_RUNS=3 BENCH_SMALL=1000 BENCH_LARGE=1
 *
 * 1. Large (BENCH_LARGE=1): a file of BENCH_UPLOAD_MIB random bytes sent by tus-js-client (POST,
 *    then PATCHes of BENCH_CHUNK_MIB) until onSuccess, which comes after the last PATCH placed the
 *    file (completion, hash, probes, content-addressed placement, the transaction). Floor:
 *    - local: the same file copied into a new file with fs streams, fsync'd (target >= 0.8);
 *    - s3: a bare multipart upload of the same file by the same SDK (@aws-sdk/lib-storage,
 *      8 MiB parts, 4 at once) to the same gateway (target >= 0.8).
 *    The server's VmRSS is sampled every 50 ms; its rise is the highest sample minus the idle
 *    server's (target < 64 MB). Every upload is new bytes (the last 16 bytes changed).
 * 2. Small (BENCH_SMALL uploads, 0 to skip): that many files of 100 KB of random bytes, each a
 *    one-request upload (PUT /v1/uploads/files/<name>, what `curl -T` sends), by 16 clients at
 *    once: uploads/s and p95 latency. Floor: the same number of bare writes by 16 writers: PutObject
 *    to the same bucket (s3), fs.writeFile into a directory (local).
 * Setup: a fresh database `shelf_bench_uploads`, a storage directory under /tmp or a bucket of
 * its own on the RADOS Gateway of scripts/objectstore.sh (S3_ENDPOINT, its test credentials),
 * removed at the end; S3 objects are deleted after every round and the gateway's garbage
 * collected (memstore holds objects in RAM). Markdown on stdout. Only 127.0.0.1 is contacted.
 */

import { spawn } from 'node:child_process';
import { randomBytes, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import pg from 'pg';
import * as tus from 'tus-js-client';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { ensureDatabase, migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { processCpuMs, processRssMb } from './support/cpu-time.ts';
import { collectGatewayGarbage } from './support/object-store-gc.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const MIB = 1024 * 1024;
const BACKEND = env.BENCH_BACKEND === 's3' ? 's3' : 'local';
const FILE_MIB = Number(env.BENCH_UPLOAD_MIB ?? 1024);
const CHUNK_MIB = Number(env.BENCH_CHUNK_MIB ?? 64);
const RUNS = Number(env.BENCH_RUNS ?? 3);
const SMALL = Number(env.BENCH_SMALL ?? 1000);
const LARGE = env.BENCH_LARGE !== '0';
const SMALL_BYTES = 100 * 1000;
const WRITERS = 16;
const DATABASE = 'shelf_bench_uploads';
const ENDPOINT = env.S3_ENDPOINT || 'http://127.0.0.1:7480';
const CREDENTIALS = {
  accessKeyId: env.SHELF_OBJECTSTORE_ACCESS_KEY || 'shelf-test-access',
  secretAccessKey: env.SHELF_OBJECTSTORE_SECRET_KEY || 'shelf-test-secret-key-0123456789',
};
const BUCKET = `shelf-bench-uploads-${Date.now().toString(36)}`;
const base = new URL(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const databaseUrl = new URL(`/${DATABASE}`, base).toString();
const log = (line: string) => process.stderr.write(`${line}\n`);

const s3 = new S3Client({
  endpoint: ENDPOINT,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: CREDENTIALS,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds (user + system) a process has used so far. */
const cpuSeconds = (pid: number) => processCpuMs(pid) / 1000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)]!;

/** Empties the bench bucket (all of it: Shelf's objects and the floor's) and collects the gateway's garbage. */
async function emptyBucket(): Promise<void> {
  for (;;) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length === 0) break;
    await s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys, Quiet: true } }));
  }
  collectGatewayGarbage(log);
}

/** `count` writes of 100 KB by WRITERS at once: per second and p95 latency (ms). */
async function concurrently(count: number, write: (i: number) => Promise<void>): Promise<{ perSecond: number; p95: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await write(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: count / ((performance.now() - started) / 1000), p95: p95(latencies) };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'shelf-bench-uploads-'));
  const storage = join(work, 'storage');
  const source = join(work, 'source.bin');
  const admin = new pg.Client({ connectionString: new URL('/postgres', base).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${DATABASE}" with (force)`);
  if (BACKEND === 's3') await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const s3Env: Record<string, string> =
    BACKEND === 's3'
      ? {
          STORAGE_BACKEND: 's3',
          S3_BUCKET: BUCKET,
          S3_ENDPOINT: ENDPOINT,
          S3_PREFIX: 'shelf',
          AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        }
      : {};
  let child: ReturnType<typeof spawn> | null = null;
  try {
    if (LARGE) {
      log(`writing ${FILE_MIB} MiB of random bytes`);
      const handle = await open(source, 'w');
      const block = Buffer.alloc(16 * MIB);
      for (let written = 0; written < FILE_MIB * MIB; written += block.length) {
        randomFillSync(block);
        await handle.write(block, 0, Math.min(block.length, FILE_MIB * MIB - written));
      }
      await handle.close();
    }

    await ensureDatabase(databaseUrl);
    const config = loadConfig({ ...s3Env, DATABASE_URL: databaseUrl, STORAGE_DIR: storage, LOG_LEVEL: 'silent' });
    const orm = await openOrm({ databaseUrl, poolMax: 2 });
    await migrateUp(orm);
    const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
    const team = await core.access.createTeam(core.operatorCtx(), { name: 'Bench uploads' });
    const { key } = await core.access.createKey(core.operatorCtx(), { teamId: team.teamId, role: 'editable' });
    await orm.close();

    const port = await freePort();
    child = spawn(process.execPath, [...serviceNodeFlags(), 'src/main.mjs'], {
      cwd: ROOT,
      env: {
        ...env,
        ...s3Env,
        ROLE: 'api',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        STORAGE_DIR: storage,
        LOG_LEVEL: 'silent',
        LINK_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret-01',
        UPLOAD_MAX_FILE_BYTES: String(4 * 1024 * MIB),
      },
      stdio: 'ignore',
    });
    const pid = child.pid!;
    const baseUrl = `http://127.0.0.1:${port}`;
    for (;;) {
      const up = await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await fetch(`${baseUrl}/v1/uploads`, { method: 'OPTIONS' });
    await new Promise((r) => setTimeout(r, 1000));
    const idleMb = processRssMb(pid);

    const lines: string[] = [
      `## Uploads to ${BACKEND === 's3' ? 'the S3 store (RADOS Gateway, memstore)' : 'local disk'} (${new Date().toISOString().slice(0, 16)}Z)`,
      '',
    ];
    if (LARGE) {
      const floorMs: number[] = [];
      const shelfMs: number[] = [];
      const riseMb: number[] = [];
      const cpu: { server: number; client: number }[] = [];
      const floor = async () => {
        const started = performance.now();
        if (BACKEND === 's3') {
          await new Upload({
            client: s3,
            params: { Bucket: BUCKET, Key: 'floor/large', Body: createReadStream(source) },
            partSize: 8 * MIB,
            queueSize: 4,
          }).done();
        } else {
          const target = join(work, 'floor.bin');
          await pipeline(createReadStream(source), createWriteStream(target));
          const fd = await open(target, 'r+');
          await fd.sync();
          await fd.close();
        }
        floorMs.push(performance.now() - started);
        if (BACKEND === 's3') await emptyBucket();
        else await rm(join(work, 'floor.bin'));
      };
      const shelf = async (round: number) => {
        // new bytes each round: the tail of the file changed
        const fd = await open(source, 'r+');
        await fd.write(randomBytes(16), 0, 16, FILE_MIB * MIB - 16);
        await fd.close();
        let peak = 0;
        const sampler = setInterval(() => (peak = Math.max(peak, processRssMb(pid))), 50);
        const started = performance.now();
        const cpuBefore = [cpuSeconds(pid), process.cpuUsage()] as const;
        await new Promise<void>((resolve, reject) => {
          const upload = new tus.Upload(createReadStream(source), {
            endpoint: `${baseUrl}/v1/uploads`,
            headers: { Authorization: `Bearer ${key}` },
            chunkSize: CHUNK_MIB * MIB,
            metadata: { filename: `bench-${round}.bin`, folder: '/bench' },
            retryDelays: null,
            onChunkComplete: (_size, sent) => log(`  ${(performance.now() - started).toFixed(0)} ms: ${sent / MIB} MiB recorded`),
            onSuccess: () => resolve(),
            onError: reject,
          });
          upload.start();
        });
        shelfMs.push(performance.now() - started);
        const client = process.cpuUsage(cpuBefore[1]);
        cpu.push({ server: cpuSeconds(pid) - cpuBefore[0], client: (client.user + client.system) / 1e6 });
        clearInterval(sampler);
        riseMb.push(Math.max(peak, processRssMb(pid)) - idleMb);
        if (BACKEND === 's3') await emptyBucket();
      };
      for (let round = 0; round < RUNS; round++) {
        log(`round ${round + 1}/${RUNS}`);
        if (round % 2 === 0) {
          await floor();
          await shelf(round);
        } else {
          await shelf(round);
          await floor();
        }
        log(
          `  floor ${floorMs.at(-1)!.toFixed(0)} ms, Shelf ${shelfMs.at(-1)!.toFixed(0)} ms, RSS rise ${riseMb.at(-1)!.toFixed(0)} MB, CPU s server ${cpu.at(-1)!.server.toFixed(1)} client ${cpu.at(-1)!.client.toFixed(1)}`,
        );
      }
      const mibps = (ms: number) => (FILE_MIB / (ms / 1000)).toFixed(0);
      const ratio = median(floorMs) / median(shelfMs);
      const floorName = BACKEND === 's3' ? 'floor: bare lib-storage multipart upload (8 MiB x 4)' : 'floor: fs copy + fsync';
      lines.push(
        `### A resumable upload of ${FILE_MIB} MiB in ${CHUNK_MIB} MiB chunks, ${RUNS} rounds`,
        '',
        `Load average at the end: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(', ')}.`,
        '',
        '| measure | median | runs |',
        '|---|---|---|',
        `| ${floorName} | ${median(floorMs).toFixed(0)} ms (${mibps(median(floorMs))} MiB/s) | ${floorMs.map((m) => m.toFixed(0)).join(', ')} |`,
        `| Shelf: tus-js-client, POST + PATCHes, placed | ${median(shelfMs).toFixed(0)} ms (${mibps(median(shelfMs))} MiB/s) | ${shelfMs.map((m) => m.toFixed(0)).join(', ')} |`,
        `| Shelf / floor throughput (target >= 0.8) | ${ratio.toFixed(2)}: ${ratio >= 0.8 ? 'met' : 'missed'} | |`,
        `| server RSS rise (target < 64 MB) | ${median(riseMb).toFixed(0)} MB: ${Math.max(...riseMb) < 64 ? 'met' : 'missed'} | ${riseMb.map((m) => m.toFixed(0)).join(', ')} |`,
        `| CPU seconds per upload: Shelf's server / the tus client | ${median(cpu.map((c) => c.server)).toFixed(1)} / ${median(cpu.map((c) => c.client)).toFixed(1)} | ${cpu.map((c) => `${c.server.toFixed(1)}/${c.client.toFixed(1)}`).join(', ')} |`,
        '',
      );
    }
    if (SMALL > 0) {
      const payloads = Array.from({ length: SMALL }, () => randomBytes(SMALL_BYTES));
      const floorDir = join(work, 'small-floor');
      await mkdir(floorDir, { recursive: true });
      const bare = await concurrently(SMALL, async (i) => {
        if (BACKEND === 's3') await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `floor/small/${i}`, Body: payloads[i], ContentLength: SMALL_BYTES }));
        else await writeFile(join(floorDir, String(i)), payloads[i]!);
      });
      if (BACKEND === 's3') await emptyBucket();
      // the same bytes again would be stored once: Shelf gets bytes of its own
      for (const payload of payloads) randomFillSync(payload);
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, processRssMb(pid))), 50);
      const shelf = await concurrently(SMALL, async (i) => {
        const answer = await fetch(`${baseUrl}/v1/uploads/files/small-${i}.bin?folder=/small`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
          body: new Uint8Array(payloads[i]!),
        });
        await answer.arrayBuffer();
        if (answer.status !== 201) throw new Error(`upload ${i} answered ${answer.status}`);
      });
      clearInterval(sampler);
      if (BACKEND === 's3') await emptyBucket();
      lines.push(
        `### ${SMALL} uploads of 100 KB by ${WRITERS} clients (one-request PUT /v1/uploads/files/<name>)`,
        '',
        `Load average at the end: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(', ')}.`,
        '',
        '| measure | uploads/s | p95 |',
        '|---|---|---|',
        `| floor: bare ${BACKEND === 's3' ? 'PutObject' : 'fs.writeFile'} x ${SMALL} | ${bare.perSecond.toFixed(0)} | ${bare.p95.toFixed(0)} ms |`,
        `| Shelf: placed, searchable uploads | ${shelf.perSecond.toFixed(0)} | ${shelf.p95.toFixed(0)} ms |`,
        `| Shelf / floor | ${(shelf.perSecond / bare.perSecond).toFixed(2)} | |`,
        `| server RSS rise | ${(peak - idleMb).toFixed(0)} MB | |`,
        '',
      );
    }
    console.log(lines.join('\n'));
  } finally {
    child?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await admin.query(`drop database if exists "${DATABASE}" with (force)`);
    await admin.end();
    await rm(work, { recursive: true, force: true });
    if (BACKEND === 's3') {
      await emptyBucket().catch(() => {});
      await s3.send(new DeleteBucketCommand({ Bucket: BUCKET })).catch(() => {});
    }
    s3.destroy();
  }
}

await main();
