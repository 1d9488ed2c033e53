/**
 * Object storage benchmark: Shelf's S3 storage backend against the same SDK
 * used bare, on the RADOS Gateway of scripts/objectstore.sh (S3_ENDPOINT, default
 * http://127.0.0.1:7480, with that script's test credentials), and its local-disk backend against
 * plain fs writes. Each floor is measured in the same run, in rotating order with what it bounds.
 *
 *   npm run -s bench:storage-s3        (node bench/storage-s3.bench.ts)
 *
 * memstore keeps objects in the OSD's RAM (a 1 GiB object took about 1.7 GB of it here), and the
 * test cluster's default cap (2 GiB) is too small for a 1 GiB run: start the cluster for it with
 *   bash scripts/objectstore.sh stop && SHELF_OBJECTSTORE_BYTES=6442450944 bash scripts/objectstore.sh ensure
 *
 * BENCH_MIB (1024) MiB per large transfer; BENCH_RUNS (3) rounds. The bytes are a 64 MiB random
 * buffer streamed BENCH_MIB/64 times (generated once, so no transfer pays for random numbers).
 * Between uploads the object is deleted and the gateway's garbage collection run
 * (`radosgw-admin gc process --include-all`), since memstore keeps every object in RAM.
 *
 * 1. Upload of BENCH_MIB to S3: floor = `@aws-sdk/lib-storage` Upload of the stream (8 MiB parts,
 *    4 at once: Shelf's settings); Shelf = S3Storage.putStream (imports) and S3Storage.receive()
 *    written chunk by chunk then placed (approval downloads: multipart upload to incoming/ and a
 *    CopyObject inside the store). Target >= 0.8 of the floor; the bench process's RSS rise during
 *    putStream (sampled every 50 ms, from before the upload) < 64 MB.
 * 2. Upload of BENCH_MIB to local disk: floor = the stream piped into fs.createWriteStream;
 *    Shelf = LocalDiskStorage.putStream. Target >= 0.8.
 * 3. 1,000 objects of 100 KB by 16 concurrent writers: bare PutObject vs S3Storage.put (what a
 *    one-request upload ends in): objects/s and p95 latency.
 * 4. Download of a BENCH_MIB library file from S3: floor = a presigned GET straight from the gateway
 *    (@aws-sdk/s3-request-presigner); Shelf = the file's signed `/files/.../download` link served by
 *    Shelf's app in a process of its own (bench/servers/shelf-server.ts) with STORAGE_BACKEND=s3.
 *    Both read with node:http over a fresh connection, bytes discarded and counted. Target >= 0.85;
 *    the server's RSS rise (VmRSS sampled every 50 ms, minus its idle RSS) reported.
 * Report: Markdown on stdout, progress on stderr. Only 127.0.0.1 is contacted.
 */

import { randomBytes, randomFillSync } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { loadConfig } from '../src/config.ts';
import { S3Storage } from '../src/core/assets/storage/s3-storage.ts';
import { LocalDiskStorage } from '../src/core/assets/storage/storage.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';
import { startChildServer } from './support/child-server.ts';
import { processCpuMs, processRssMb } from './support/cpu-time.ts';
import { median } from './support/load.ts';
import { collectGatewayGarbage } from './support/object-store-gc.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const MiB = 1024 * 1024;
const TOTAL_MIB = Number(env.BENCH_MIB ?? 1024);
const RUNS = Number(env.BENCH_RUNS ?? 3);
/** `downloads`: only the signed-link download (4.), for working on it. */
const ONLY = env.BENCH_ONLY ?? '';
/** Extra Node flags for the streaming Shelf server of 4. (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile it). */
const SERVER_FLAGS = (env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
const ENDPOINT = env.S3_ENDPOINT || 'http://127.0.0.1:7480';
const CREDENTIALS = {
  accessKeyId: env.SHELF_OBJECTSTORE_ACCESS_KEY || 'shelf-test-access',
  secretAccessKey: env.SHELF_OBJECTSTORE_SECRET_KEY || 'shelf-test-secret-key-0123456789',
};
const BUCKET = `shelf-bench-${Date.now().toString(36)}`;
const DATABASE = 'shelf_bench_storage_s3';
const SECRET = 'bench-storage-s3-secret-bench-storage-s3-secret';
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', DATABASE);

const client = new S3Client({
  endpoint: ENDPOINT,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: CREDENTIALS,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const s3 = new S3Storage({ bucket: BUCKET, endpoint: ENDPOINT, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
const block = randomBytes(64 * MiB);

/** TOTAL_MIB MiB as a stream of 1 MiB views of the random block (no copies, no generation). */
function source(): Readable {
  const total = TOTAL_MIB * MiB;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return this.push(null);
      const at = sent % block.length;
      const n = Math.min(MiB, total - sent);
      sent += n;
      this.push(block.subarray(at, at + n));
    },
  });
}

const mbps = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** CPU seconds (user + system) a process has used so far. */
const cpuSeconds = (pid: number) => processCpuMs(pid) / 1000;

/** Runs `work` while sampling a process's RSS every 50 ms; the peak rise over `baseline`. */
async function withRss<T>(pid: number, baseline: number, work: () => Promise<T>): Promise<{ result: T; riseMb: number }> {
  let peak = processRssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, processRssMb(pid));
  }, 50);
  try {
    const result = await work();
    peak = Math.max(peak, processRssMb(pid));
    return { result, riseMb: peak - baseline };
  } finally {
    clearInterval(timer);
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function deleteKey(key: string): Promise<void> {
  await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
  collectGatewayGarbage(log);
}

/** GET a URL over a fresh connection, counting and discarding the body; its length must match Content-Length. */
function download(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`${url} answered ${res.statusCode}`));
      }
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => (bytes === Number(res.headers['content-length']) ? resolve(bytes) : reject(new Error(`short body: ${bytes}`))));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The Location a link answers with (302), which the client then GETs. */
function redirectTarget(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        if (res.statusCode !== 302 || !res.headers.location) return reject(new Error(`${url} answered ${res.statusCode}, not a redirect`));
        resolve(res.headers.location);
      })
      .on('error', reject);
  });
}

interface Figures {
  ms: number[];
}
const summary = (f: Figures) => median(f.ms);

async function largeUploads() {
  const bytes = TOTAL_MIB * MiB;
  const bare: Figures = { ms: [] };
  const put: Figures = { ms: [] };
  const received: Figures = { ms: [] };
  const putRss: number[] = [];
  const order = ['bare', 'put', 'receive'] as const;
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < order.length; i++) {
      const which = order[(run + i) % order.length]!;
      if (which === 'bare') {
        const ms = await timed(() =>
          new Upload({ client, params: { Bucket: BUCKET, Key: 'bench/bare', Body: source() }, partSize: 8 * MiB, queueSize: 4 }).done(),
        );
        bare.ms.push(ms);
        await deleteKey('bench/bare');
      } else if (which === 'put') {
        global.gc?.();
        const { result: ms, riseMb } = await withRss(process.pid, processRssMb(process.pid), () => timed(() => s3.putStream('bench/put', source())));
        put.ms.push(ms);
        putRss.push(riseMb);
        await deleteKey('bench/put');
      } else {
        const ms = await timed(async () => {
          const object = await s3.receive();
          for await (const chunk of source()) await object.write(chunk as Buffer);
          await object.place('bench/received');
        });
        received.ms.push(ms);
        await deleteKey('bench/received');
      }
      log(`  upload round ${run + 1} ${which}: ${mbps(bytes, [bare, put, received][order.indexOf(which)]!.ms.at(-1)!).toFixed(0)} MiB/s`);
    }
  }
  return { bytes, bare, put, received, putRss };
}

async function localUploads() {
  const dir = await mkdtemp(join(tmpdir(), 'shelf-bench-storage-'));
  const storage = new LocalDiskStorage(dir);
  const bytes = TOTAL_MIB * MiB;
  const fsFloor: Figures = { ms: [] };
  const put: Figures = { ms: [] };
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const which of run % 2 === 0 ? ['fs', 'put'] : ['put', 'fs']) {
        if (which === 'fs') {
          fsFloor.ms.push(await timed(() => pipeline(source(), createWriteStream(join(dir, 'floor.bin')))));
          await rm(join(dir, 'floor.bin'));
        } else {
          put.ms.push(await timed(() => storage.putStream('objects/be/bench', source())));
          await storage.remove('objects/be/bench');
        }
        log(`  local round ${run + 1} ${which}: ${mbps(bytes, (which === 'fs' ? fsFloor : put).ms.at(-1)!).toFixed(0)} MiB/s`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { bytes, fsFloor, put };
}

async function smallObjects() {
  const COUNT = 1000;
  const WRITERS = 16;
  const payload = randomBytes(100 * 1000);
  async function run(put: (key: string) => Promise<unknown>, prefix: string) {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < COUNT) {
          const i = next++;
          const t = performance.now();
          await put(`${prefix}/${i}`);
          latencies.push(performance.now() - t);
        }
      }),
    );
    const ms = performance.now() - started;
    latencies.sort((a, b) => a - b);
    return { perSecond: COUNT / (ms / 1000), p95: latencies[Math.floor(COUNT * 0.95)]! };
  }
  const bare = await run((key) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: payload, ContentLength: payload.length })), 'small-bare');
  const shelf = await run((key) => s3.put(key, payload), 'small-shelf');
  log(`  small objects: bare ${bare.perSecond.toFixed(0)}/s, Shelf ${shelf.perSecond.toFixed(0)}/s`);
  await s3.removeTree('small-bare');
  await s3.removeTree('small-shelf');
  collectGatewayGarbage(log);
  return { bare, shelf };
}

async function downloads() {
  await freshDatabase(databaseUrl);
  const s3Env = {
    STORAGE_BACKEND: 's3',
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: ENDPOINT,
    S3_PREFIX: 'shelf',
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  };
  const config = loadConfig({ ...env, ...s3Env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', LINK_SIGNING_SECRET: SECRET });
  const orm = await openOrm({ databaseUrl });
  const inputs = await mkdtemp(join(tmpdir(), 'shelf-bench-s3-inputs-'));
  let link: string;
  let storageKey: string;
  try {
    await migrateUp(orm);
    const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
    const op = core.operatorCtx();
    const { teamId } = await core.access.createTeam(op, { name: 'Bench S3' });
    const path = join(inputs, 'large.bin');
    const handle = await open(path, 'w');
    const chunk = Buffer.alloc(8 * MiB);
    for (let written = 0; written < TOTAL_MIB * MiB; written += chunk.length) {
      randomFillSync(chunk);
      await handle.write(chunk, 0, Math.min(chunk.length, TOTAL_MIB * MiB - written));
    }
    await handle.close();
    const started = performance.now();
    const { id } = await core.assets.libraryImport.importFile(op, { team: teamId, file: path, folder: '/bench', name: 'large.bin' });
    log(`  ${TOTAL_MIB} MiB imported into the bucket in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const [row] = await orm.em
      .fork()
      .execute<{ storage_key: string }[]>('select o.storage_key from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [id]);
    storageKey = `shelf/${row!.storage_key}`;
    const signed = new URL(core.assets.links.sign({ teamId, fileId: id, purpose: 'download' }, Math.floor(Date.now() / 1000) + 3600));
    link = signed.pathname + signed.search;
  } finally {
    await orm.close();
    await rm(inputs, { recursive: true, force: true });
  }
  const server = await startChildServer('shelf', new URL('./servers/shelf-server.ts', import.meta.url), {
    env: { ...env, ...s3Env, DATABASE_URL: databaseUrl, LINK_SIGNING_SECRET: SECRET },
    execArgv: [...serviceNodeFlags(), ...SERVER_FLAGS],
  });
  // the same app answering links with a 302 to a presigned GET (S3_DOWNLOAD_REDIRECT=on), the client following it
  const redirecting = await startChildServer('shelf-redirect', new URL('./servers/shelf-server.ts', import.meta.url), {
    env: { ...env, ...s3Env, S3_DOWNLOAD_REDIRECT: 'on', DATABASE_URL: databaseUrl, LINK_SIGNING_SECRET: SECRET },
    execArgv: serviceNodeFlags(),
  });
  const bytes = TOTAL_MIB * MiB;
  const presigned: Figures = { ms: [] };
  const shelf: Figures = { ms: [] };
  const redirected: Figures = { ms: [] };
  const rss: number[] = [];
  const cpu: number[] = [];
  try {
    await download(`${server.baseUrl}${link}`).catch(() => 0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = processRssMb(server.child.pid!);
    for (let run = 0; run < RUNS; run++) {
      for (const which of run % 2 === 0 ? ['presigned', 'shelf', 'redirect'] : ['redirect', 'shelf', 'presigned']) {
        if (which === 'redirect') {
          redirected.ms.push(await timed(async () => download(await redirectTarget(`${redirecting.baseUrl}${link}`))));
        } else if (which === 'presigned') {
          const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: BUCKET, Key: storageKey }), { expiresIn: 600 });
          presigned.ms.push(await timed(() => download(url)));
        } else {
          const before = cpuSeconds(server.child.pid!);
          const { result: ms, riseMb } = await withRss(server.child.pid!, idle, () => timed(() => download(`${server.baseUrl}${link}`)));
          shelf.ms.push(ms);
          rss.push(riseMb);
          cpu.push(cpuSeconds(server.child.pid!) - before);
        }
        log(`  download round ${run + 1} ${which}: ${mbps(bytes, { shelf, presigned, redirect: redirected }[which]!.ms.at(-1)!).toFixed(0)} MiB/s`);
      }
    }
  } finally {
    await server.stop();
    await redirecting.stop();
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: storageKey }));
    collectGatewayGarbage(log);
    await dropDatabase(databaseUrl);
  }
  return { bytes, presigned, shelf, redirected, rss, cpu };
}

async function main() {
  log(`storage bench: ${TOTAL_MIB} MiB, ${RUNS} rounds, gateway ${ENDPOINT}, bucket ${BUCKET}`);
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  if (ONLY === 'downloads') {
    const down = await downloads();
    const ratio = summary(down.presigned) / summary(down.shelf);
    const row = (name: string, f: Figures) =>
      `| ${name} | ${mbps(down.bytes, summary(f)).toFixed(0)} | ${f.ms.map((ms) => mbps(down.bytes, ms).toFixed(0)).join(', ')} |`;
    const lines = [
      `## Signed-link download from S3 (${new Date().toISOString().slice(0, 16)}Z, ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')})`,
      '',
      `${TOTAL_MIB} MiB, ${RUNS} rounds. MiB/s: median, then every run.`,
      '',
      '| transfer | median MiB/s | runs |',
      '|---|---|---|',
      row('presigned GET from the gateway (floor)', down.presigned),
      row('signed /files link streamed through Shelf', down.shelf),
      row('signed /files link with S3_DOWNLOAD_REDIRECT=on (302, then the gateway)', down.redirected),
      '',
      `Shelf / floor: ${ratio.toFixed(2)} (target >= 0.85: ${ratio >= 0.85 ? 'met' : 'missed'}); server RSS rise ${Math.max(...down.rss).toFixed(0)} MB (runs ${down.rss.map((r) => r.toFixed(0)).join(', ')}); server CPU s per download ${down.cpu.map((c) => c.toFixed(1)).join(', ')}. Redirected / floor: ${(summary(down.presigned) / summary(down.redirected)).toFixed(2)}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    await s3.close();
    client.destroy();
    return;
  }
  const up = await largeUploads();
  const local = await localUploads();
  const small = await smallObjects();
  const down = await downloads();
  const ratio = (floor: Figures, measured: Figures) => summary(floor) / summary(measured);
  const row = (name: string, bytes: number, f: Figures) =>
    `| ${name} | ${mbps(bytes, summary(f)).toFixed(0)} | ${f.ms.map((ms) => mbps(bytes, ms).toFixed(0)).join(', ')} |`;
  const lines = [
    `## Object storage (${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB)`,
    '',
    `${TOTAL_MIB} MiB per transfer, ${RUNS} rounds, RADOS Gateway (memstore) on loopback. MiB/s: median, then every run.`,
    '',
    '| transfer | median MiB/s | runs |',
    '|---|---|---|',
    row('S3 upload, bare lib-storage Upload (floor)', up.bytes, up.bare),
    row('S3 upload, S3Storage.putStream', up.bytes, up.put),
    row('S3 upload, S3Storage.receive + place (CopyObject)', up.bytes, up.received),
    row('local, stream to fs.createWriteStream (floor)', local.bytes, local.fsFloor),
    row('local, LocalDiskStorage.putStream', local.bytes, local.put),
    row('S3 download, presigned GET from the gateway (floor)', down.bytes, down.presigned),
    row('S3 download, signed /files link through Shelf', down.bytes, down.shelf),
    '',
    '| target | measured | met |',
    '|---|---|---|',
    `| S3 putStream >= 0.8 x bare upload | ${ratio(up.bare, up.put).toFixed(2)} | ${ratio(up.bare, up.put) >= 0.8 ? 'yes' : 'no'} |`,
    `| S3 receive + place >= 0.8 x bare upload | ${ratio(up.bare, up.received).toFixed(2)} | ${ratio(up.bare, up.received) >= 0.8 ? 'yes' : 'no'} |`,
    `| putStream RSS rise < 64 MB | ${Math.max(...up.putRss).toFixed(0)} MB | ${Math.max(...up.putRss) < 64 ? 'yes' : 'no'} |`,
    `| local putStream >= 0.8 x fs write | ${ratio(local.fsFloor, local.put).toFixed(2)} | ${ratio(local.fsFloor, local.put) >= 0.8 ? 'yes' : 'no'} |`,
    `| signed-link download >= 0.85 x presigned GET | ${ratio(down.presigned, down.shelf).toFixed(2)} | ${ratio(down.presigned, down.shelf) >= 0.85 ? 'yes' : 'no'} |`,
    `| server RSS rise during a download | ${Math.max(...down.rss).toFixed(0)} MB | (reported) |`,
    '',
    `1,000 objects of 100 KB, 16 writers: bare PutObject ${small.bare.perSecond.toFixed(0)}/s (p95 ${small.bare.p95.toFixed(0)} ms), S3Storage.put ${small.shelf.perSecond.toFixed(0)}/s (p95 ${small.shelf.p95.toFixed(0)} ms).`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await s3.close();
  client.destroy();
}

try {
  await main();
} finally {
  await client.send(new DeleteBucketCommand({ Bucket: BUCKET }), { abortSignal: AbortSignal.timeout(5000) }).catch(() => {});
}
process.exit(0);
