/**
 * Product download benchmark: `POST /v1/products/{id}/downloads` of a product
 * whose media total about 1 GiB, over loopback HTTP against Shelf's real app in a child process,
 * with two floors measured in the same run: reading the same stored files from disk with fs
 * streams, and a bare `node:http` server streaming the same files over the same loopback.
 *
 *   npm run -s bench:downloads        (node bench/downloads.bench.ts)
 *
 * Setup (fresh database `shelf_bench_downloads` and storage in a temporary directory under /tmp, both
 * removed at the end): BENCH_DOWNLOAD_FILES (10) files of BENCH_FILE_MIB (100) MiB
 * of random bytes (incompressible, each distinct), imported through the core as the tests import
 * library files (core.assets.libraryImport.importFile, the CLI's `asset import --file`), then one product
 * with those files as relatedAssetIds, published, and a `usable` key.
 *
 * Both servers run with the service's Node flags (package.json "serve") plus --trace-gc, whose
 * lines the bench reads from their stdout to count each download's garbage collections and the
 * time they took (pauses plus incremental marking steps). BENCH_PROFILE=1 adds --cpu-prof to both
 * (profiles in bench/.profiles/, written when the servers stop). BENCH_NODE_FLAGS="..." replaces the
 * service's flags for both (e.g. "" for V8's defaults).
 *
 * Each of BENCH_RUNS (7) rounds measures, in rotating order:
 * - fs floor: the stored files read in ZIP order with fs.createReadStream (default 64 KiB chunks),
 *   every chunk discarded;
 * - bare HTTP floor: one POST to bench/servers/bare-download-server.ts, which pipes the same files
 *   (fs.createReadStream) into its response back to back, with Content-Length;
 * - Shelf: one POST .../downloads over a fresh loopback connection.
 * Both HTTP sides: the response consumed and discarded, its length checked against Content-Length;
 * the server's CPU time (/proc/<pid>/stat) and its VmRSS sampled every 50 ms during the request
 * (VmHWM, reset through clear_refs before the request, is read as well, so no peak falls between
 * samples). Shelf's RSS figure for the target is the highest RSS during any download (the warm-up
 * one included) minus the idle server's RSS (after one authenticated GET and a 1 s pause).
 * The files are in the page cache for all three (they were just written; the machine has far more
 * RAM than 1 GiB), so the floors are the cost of reading and sending them through Node, not the disk's.
 * Report: medians, the slowest run and every run, the ratios Shelf / bare HTTP (target >= 0.85; as the
 * ratio of the medians and as the median of the ratios within each round, where both ran back to back) and
 * Shelf / fs (the earlier target >= 0.7), RSS rise (target < 50 MB); Markdown on stdout, progress on
 * stderr. Only 127.0.0.1 is contacted.
 *
 * BENCH_BREAKDOWN=1 (the default; 0 skips it) adds, in this process and in the same rounds: the fs
 * floor plus a CRC-32 of every chunk with node:zlib's crc32 (the ZIP writer's cost beyond reading),
 * and the app's zipArchive() (src/rest/zip-stream.ts) reading the stored files through the
 * storage's readers and writing into a sink that discards each chunk, no HTTP.
 */
import { randomFillSync } from 'node:crypto';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { loadConfig } from '../src/config.ts';
import { objectKey } from '../src/core/assets/imports/library-import.service.ts';
import { LocalDiskStorage } from '../src/core/assets/storage/storage.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { ZIP_CHUNK_BYTES, ZIP_RING_SIZE, zipArchive } from '../src/rest/zip-stream.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';
import { sleep } from './support/child-messages.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { processCpuMs } from './support/cpu-time.ts';
import { median } from './support/load.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const FILES = Number(env.BENCH_DOWNLOAD_FILES ?? 10);
const FILE_MIB = Number(env.BENCH_FILE_MIB ?? 100);
const RUNS = Number(env.BENCH_RUNS ?? 7);
const PROFILE = env.BENCH_PROFILE === '1';
const SAMPLE_MS = 50;
const TARGET_BARE_RATIO = 0.85;
const TARGET_FS_RATIO = 0.7;
const TARGET_RSS_MB = 50;
const DATABASE = 'shelf_bench_downloads';
const SECRET = 'bench-downloads-secret-bench-downloads-secret';
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', DATABASE);
const MiB = 1024 * 1024;
const profileDir = fileURLToPath(new URL('./.profiles', import.meta.url));

function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** Random, distinct, incompressible files of `mib` MiB each, written 8 MiB at a time. */
async function writeRandomFiles(dir: string, count: number, mib: number): Promise<string[]> {
  const chunk = Buffer.alloc(8 * MiB);
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const path = join(dir, `media-${String(i + 1).padStart(2, '0')}.bin`);
    const handle = await open(path, 'w');
    try {
      for (let written = 0; written < mib * MiB; written += chunk.length) {
        randomFillSync(chunk);
        await handle.write(chunk, 0, Math.min(chunk.length, mib * MiB - written));
      }
    } finally {
      await handle.close();
    }
    paths.push(path);
  }
  return paths;
}

interface Setup {
  productId: number;
  key: string;
  storageKeys: string[];
  storedPaths: string[];
  sizes: number[];
  bytes: number;
}

/** The database, the imported files and the published product (see the header). */
async function setUp(storageDir: string): Promise<Setup> {
  await freshDatabase(databaseUrl);
  const config = loadConfig({ ...env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', STORAGE_DIR: storageDir, LINK_SIGNING_SECRET: SECRET });
  const orm = await openOrm({ databaseUrl });
  try {
    await migrateUp(orm);
    const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
    const op = core.operatorCtx();
    const { teamId } = await core.access.createTeam(op, { name: 'Bench downloads' });
    const editable = await core.access.createKey(op, { teamId, role: 'editable' });
    const usable = await core.access.createKey(op, { teamId, role: 'usable' });
    const inputs = join(storageDir, 'bench-inputs');
    await mkdir(inputs, { recursive: true });
    let started = performance.now();
    const paths = await writeRandomFiles(inputs, FILES, FILE_MIB);
    console.error(`  ${FILES} x ${FILE_MIB} MiB of random bytes written: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    started = performance.now();
    const ids: number[] = [];
    for (const path of paths) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      ids.push((await core.assets.libraryImport.importFile(op, { team: teamId, file: path, folder: '/bench/downloads', name })).id);
      await rm(path);
    }
    await rm(inputs, { recursive: true, force: true });
    console.error(`  imported through core.assets.libraryImport.importFile: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const ctx = core.ctxFor(await core.access.authenticate(op, `Bearer ${editable.key}`), 'bench-downloads');
    const created = await core.catalogue.products.create(ctx, { name: 'One GiB of media', relatedAssetIds: ids });
    await core.catalogue.products.publish(ctx, created.body.id);
    const rows = await orm.em
      .fork()
      .execute<Array<{ id: number; sha256: string; bytes: string }>>(
        'select f.id, o.sha256, f.byte_size::text as bytes from library_files f join stored_objects o on o.id = f.object_id where f.id = any(?::int[])',
        [`{${ids.join(',')}}`],
      );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const storageKeys = ids.map((id) => objectKey(byId.get(id)!.sha256));
    const storedPaths = storageKeys.map((key) => join(storageDir, ...key.split('/')));
    const sizes = ids.map((id) => Number(byId.get(id)!.bytes));
    return { productId: created.body.id, key: usable.key, storageKeys, storedPaths, sizes, bytes: sizes.reduce((sum, n) => sum + n, 0) };
  } finally {
    await orm.close();
  }
}

/** The fs floor: every stored file through fs.createReadStream, one after another, chunks discarded. */
async function readFloor(paths: string[]): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  let bytes = 0;
  for (const path of paths) {
    await new Promise<void>((done, fail) => {
      createReadStream(path)
        .on('data', (chunk) => {
          bytes += chunk.length;
        })
        .on('end', done)
        .on('error', fail);
    });
  }
  return { ms: performance.now() - started, bytes };
}

interface GcEvent {
  kind: 'scavenge' | 'mark-compact' | 'other';
  /** The pause plus, for a mark-compact, the incremental marking steps before it. */
  ms: number;
}

/** A server's --trace-gc lines, read from its stdout as they come. */
class GcLog {
  readonly events: GcEvent[] = [];

  constructor(server: ChildServer) {
    createInterface({ input: server.child.stdout! }).on('line', (line) => {
      // e.g. "[123:0x..]  20202 ms: Mark-Compact 77.0 (118.3) -> 76.2 (118.3) MB, pooled: 17 MB, 23.59 / 0.01 ms  (+ 110.0 ms in 163 steps ..."
      const match =
        /ms: (Scavenge|Mark-Compact|[A-Z][\w -]*?)\b.*? MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps)?/.exec(line);
      if (!match) return;
      const kind = match[1] === 'Scavenge' ? 'scavenge' : match[1] === 'Mark-Compact' ? 'mark-compact' : 'other';
      this.events.push({ kind, ms: Number(match[2]) + Number(match[3] ?? 0) });
    });
  }

  /** What happened since `mark` (an earlier events.length). */
  since(mark: number): { markCompacts: number; scavenges: number; gcMs: number } {
    const events = this.events.slice(mark);
    return {
      markCompacts: events.filter((e) => e.kind === 'mark-compact').length,
      scavenges: events.filter((e) => e.kind === 'scavenge').length,
      gcMs: events.reduce((sum, e) => sum + e.ms, 0),
    };
  }
}

interface Target {
  name: string;
  server: ChildServer;
  pid: number;
  gc: GcLog;
  path: string;
}

interface DownloadRun {
  ms: number;
  bytes: number;
  cpuMs: number;
  markCompacts: number;
  scavenges: number;
  gcMs: number;
  /** MB: VmRSS just before the request, the highest 50 ms sample during it, VmHWM after it (reset before). */
  rssBeforeMb: number;
  rssPeakMb: number;
  hwmMb: number;
}

/** One download over a fresh loopback connection, consumed and discarded, with the server's RSS, CPU and GCs. */
async function download(target: Target, setup: Setup): Promise<DownloadRun> {
  const { pid } = target;
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const rssBeforeMb = memoryOf(pid).rssMb;
  let rssPeakMb = rssBeforeMb;
  const poll = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, memoryOf(pid).rssMb);
  }, SAMPLE_MS);
  const url = new URL(target.path, target.server.baseUrl);
  const gcMark = target.gc.events.length;
  const cpu0 = processCpuMs(pid);
  const started = performance.now();
  try {
    const { bytes, length } = await new Promise<{ bytes: number; length: number }>((done, fail) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent: false,
          headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json', 'content-length': 2 },
        },
        (res) => {
          if (res.statusCode !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => fail(new Error(`${target.name}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
            return;
          }
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.on('end', () => done({ bytes, length: Number(res.headers['content-length']) }));
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end('{}');
    });
    const ms = performance.now() - started;
    const cpuMs = processCpuMs(pid) - cpu0;
    if (bytes !== length) throw new Error(`${target.name}: ${bytes} bytes received, Content-Length ${length}`);
    if (bytes < setup.bytes) throw new Error(`${target.name}: ${bytes} bytes, fewer than the ${setup.bytes} bytes of the files`);
    // the last trace lines of the request may still be in the pipe
    await sleep(20);
    return { ms, bytes, cpuMs, ...target.gc.since(gcMark), rssBeforeMb, rssPeakMb: Math.max(rssPeakMb, memoryOf(pid).rssMb), hwmMb: memoryOf(pid).hwmMb };
  } finally {
    clearInterval(poll);
  }
}

/** The stored files read as the floor reads them, each chunk passed to `onChunk`. */
async function readWith(paths: string[], onChunk: (chunk: Buffer) => void): Promise<number> {
  const started = performance.now();
  for (const path of paths) {
    await new Promise<void>((done, fail) => {
      createReadStream(path)
        .on('data', (chunk) => onChunk(chunk as Buffer))
        .on('end', done)
        .on('error', fail);
    });
  }
  return performance.now() - started;
}

/** The app's zipArchive over the stored files through the storage's readers, in this process, written to a sink that discards. */
async function zipInProcess(storage: LocalDiskStorage, setup: Setup): Promise<number> {
  const started = performance.now();
  const zip = zipArchive(
    setup.storageKeys.map((key, i) => ({ name: `media-${i}.bin`, size: setup.sizes[i]!, open: () => storage.openReader(key) })),
    new Date(),
  );
  await zip.write(new Writable({ write: (_chunk, _encoding, done) => done() }));
  return performance.now() - started;
}

const mibps = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
const f0 = (v: number) => v.toFixed(0);
const f1 = (v: number) => v.toFixed(1);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
const slowest = (values: number[]) => Math.max(...values);

const loadAtStart = load();
const storageDir = await mkdtemp(join(tmpdir(), 'shelf-bench-downloads-'));
try {
  console.error(`setting up ${DATABASE}, storage ${storageDir}`);
  const setup = await setUp(storageDir);
  const storage = new LocalDiskStorage(storageDir);
  const nodeFlags = env.BENCH_NODE_FLAGS === undefined ? serviceNodeFlags() : env.BENCH_NODE_FLAGS.split(' ').filter(Boolean);
  const flags = [...nodeFlags, '--trace-gc', ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const start = async (name: string, script: string, extraEnv: Record<string, string>, path: string): Promise<Target> => {
    const server = await startChildServer(name, new URL(script, import.meta.url), { env: { ...env, ...extraEnv }, execArgv: flags, stdout: 'pipe' });
    return { name, server, pid: server.child.pid!, gc: new GcLog(server), path };
  };
  const shelf = await start(
    'shelf',
    './servers/shelf-server.ts',
    { DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' },
    `/v1/products/${setup.productId}/downloads`,
  );
  const bare = await start('bare', './servers/bare-download-server.ts', { BENCH_DOWNLOAD_PATHS: JSON.stringify(setup.storedPaths) }, '/');
  const floors: Array<{ ms: number; bytes: number }> = [];
  const runs = new Map<string, DownloadRun[]>([
    ['bare', []],
    ['shelf', []],
  ]);
  const breakdown = new Map<string, number[]>(
    env.BENCH_BREAKDOWN === '0'
      ? []
      : [
          ['floor + zlib.crc32 (native) of every chunk', []],
          ["the app's zipArchive() in this process, storage readers, output discarded (no HTTP)", []],
        ],
  );
  const loads: string[] = [];
  let idleMb = 0;
  let warmUp: DownloadRun | null = null;
  let bareWarmUp: DownloadRun | null = null;
  try {
    // the idle server's RSS: after one authenticated request (auth, pool, routing warmed) and a pause
    const probe = await fetch(new URL(`/v1/products/${setup.productId}`, shelf.server.baseUrl), { headers: { authorization: `Bearer ${setup.key}` } });
    if (probe.status !== 200) throw new Error(`GET product: ${probe.status}`);
    await probe.arrayBuffer();
    await sleep(1000);
    idleMb = memoryOf(shelf.pid).rssMb;
    // one unmeasured round of each: the page cache, the servers' JIT and connection pool warm up
    await readFloor(setup.storedPaths);
    bareWarmUp = await download(bare, setup);
    warmUp = await download(shelf, setup);
    console.error(
      `  idle Shelf RSS ${f1(idleMb)} MB; warm-up: bare ${f0(bareWarmUp.ms)} ms, Shelf ${f0(warmUp.ms)} ms, RSS ${f1(warmUp.rssBeforeMb)} -> ${f1(warmUp.rssPeakMb)} MB`,
    );
    await sleep(500);
    const orders = [
      ['floor', 'bare', 'shelf'],
      ['shelf', 'floor', 'bare'],
      ['bare', 'shelf', 'floor'],
    ];
    for (let run = 0; run < RUNS; run++) {
      loads.push(load());
      for (const which of orders[run % orders.length]!) {
        if (which === 'floor') {
          const floor = await readFloor(setup.storedPaths);
          if (floor.bytes !== setup.bytes) throw new Error(`floor read ${floor.bytes} bytes, expected ${setup.bytes}`);
          floors.push(floor);
          console.error(`  run ${run + 1} fs floor: ${f0(floor.ms)} ms, ${f0(mibps(floor.bytes, floor.ms))} MiB/s`);
        } else {
          const target = which === 'bare' ? bare : shelf;
          const d = await download(target, setup);
          runs.get(which)!.push(d);
          console.error(
            `  run ${run + 1} ${which}: ${f0(d.ms)} ms, ${f0(mibps(setup.bytes, d.ms))} MiB/s of file bytes; CPU ${f0(d.cpuMs)} ms; GC ${d.markCompacts} mark-compact + ${d.scavenges} scavenge, ${f0(d.gcMs)} ms; RSS ${f1(d.rssBeforeMb)} -> ${f1(d.rssPeakMb)} MB`,
          );
          // let the server's heap settle before the next baseline
          await sleep(300);
        }
      }
      for (const [name, times] of breakdown) {
        times.push(
          name.startsWith('floor')
            ? await readWith(
                setup.storedPaths,
                (
                  (crc) => (chunk: Buffer) =>
                    void (crc = crc32(chunk, crc))
                )(0),
              )
            : await zipInProcess(storage, setup),
        );
        console.error(`  run ${run + 1} ${name}: ${f0(times.at(-1)!)} ms`);
      }
    }
  } finally {
    await shelf.server.stop();
    await bare.server.stop();
  }

  const shelfRuns = runs.get('shelf')!;
  const bareRuns = runs.get('bare')!;
  const floorMs = median(floors.map((f) => f.ms));
  const shelfMs = median(shelfRuns.map((d) => d.ms));
  const bareMs = median(bareRuns.map((d) => d.ms));
  const bareRatio = bareMs / shelfMs;
  // the same ratio taken within each round (bare and Shelf ran back to back there), then the median:
  // less sensitive to the machine's load drifting between rounds than the ratio of the medians
  const roundRatio = median(shelfRuns.map((d, i) => bareRuns[i]!.ms / d.ms));
  const fsRatio = floorMs / shelfMs;
  const rises = shelfRuns.map((d) => d.rssPeakMb - d.rssBeforeMb);
  const hwmRises = shelfRuns.map((d) => d.hwmMb - d.rssBeforeMb);
  // the target's figure: the highest RSS seen during any download (warm-up included) over the idle server's
  const peakMb = Math.max(warmUp!.rssPeakMb, warmUp!.hwmMb, ...shelfRuns.map((d) => Math.max(d.rssPeakMb, d.hwmMb)));
  const rise = peakMb - idleMb;
  const zipBytes = shelfRuns[0]!.bytes;
  const gcCell = (d: DownloadRun) => `${d.markCompacts} MC + ${d.scavenges} sc, ${f0(d.gcMs)} ms`;
  console.log(
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average (1/5/15 min) ${loadAtStart} at the start and ${load()} at the end; Node ${process.version}; ` +
      `both servers run with ${flags.join(' ')}.\n`,
  );
  console.log(
    `Product: ${FILES} files x ${FILE_MIB} MiB = ${setup.bytes} bytes (${f1(setup.bytes / MiB)} MiB) of random bytes; ZIP ${zipBytes} bytes (stored entries); ` +
      `the app's writer reads ${ZIP_CHUNK_BYTES / 1024} KiB chunks into a ring of ${ZIP_RING_SIZE}. ${RUNS} rounds after one warm-up of each, order rotating.\n`,
  );
  console.log(
    `Shelf RSS idle (after one authenticated GET and 1 s): ${f1(idleMb)} MB; warm-up downloads (unmeasured for time): bare ${f0(bareWarmUp!.ms)} ms, Shelf ${f0(warmUp!.ms)} ms, Shelf RSS ${f1(warmUp!.rssBeforeMb)} -> ${f1(warmUp!.rssPeakMb)} MB (VmHWM ${f1(warmUp!.hwmMb)} MB).\n`,
  );
  console.log(
    '| run | load (1 min) | fs floor, ms (MiB/s) | bare node:http, ms (MiB/s) | Shelf, ms (MiB/s) | bare / Shelf | server CPU bare / Shelf, ms | GC during the download, bare / Shelf (MC = mark-compact, sc = scavenge; pauses + marking steps) | Shelf RSS before -> peak (rise), VmHWM rise |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (let i = 0; i < RUNS; i++) {
    const [fl, b, d] = [floors[i]!, bareRuns[i]!, shelfRuns[i]!];
    console.log(
      `| ${i + 1} | ${loads[i]!.split(' / ')[0]} | ${f0(fl.ms)} (${f0(mibps(fl.bytes, fl.ms))}) | ${f0(b.ms)} (${f0(mibps(setup.bytes, b.ms))}) | ${f0(d.ms)} (${f0(mibps(setup.bytes, d.ms))}) | ${(b.ms / d.ms).toFixed(2)} | ${f0(b.cpuMs)} / ${f0(d.cpuMs)} | ${gcCell(b)} / ${gcCell(d)} | ${f1(d.rssBeforeMb)} -> ${f1(d.rssPeakMb)} MB (+${f1(rises[i]!)}), +${f1(hwmRises[i]!)} MB |`,
    );
  }
  const med = (runs: DownloadRun[], pick: (d: DownloadRun) => number) => median(runs.map(pick));
  console.log('');
  console.log('| measure | median | slowest run | target | |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| fs floor (fs streams, discarded) | ${f0(floorMs)} ms, ${f0(mibps(setup.bytes, floorMs))} MiB/s | ${f0(slowest(floors.map((f) => f.ms)))} ms | | |`,
  );
  console.log(
    `| bare node:http floor (same files piped over loopback) | ${f0(bareMs)} ms, ${f0(mibps(setup.bytes, bareMs))} MiB/s | ${f0(slowest(bareRuns.map((d) => d.ms)))} ms | | |`,
  );
  console.log(
    `| Shelf download (loopback HTTP, discarded) | ${f0(shelfMs)} ms, ${f0(mibps(setup.bytes, shelfMs))} MiB/s | ${f0(slowest(shelfRuns.map((d) => d.ms)))} ms | | |`,
  );
  console.log(`| bare node:http / fs floor | ${(floorMs / bareMs).toFixed(2)} | | | |`);
  console.log(
    `| **Shelf / bare node:http** (ratio of the medians) | **${bareRatio.toFixed(2)}** | ${(slowest(bareRuns.map((d) => d.ms)) / slowest(shelfRuns.map((d) => d.ms))).toFixed(2)} (slowest / slowest) | >= ${TARGET_BARE_RATIO} | ${bareRatio >= TARGET_BARE_RATIO ? 'met' : 'MISSED'} |`,
  );
  console.log(
    `| **Shelf / bare node:http** (median of the per-round ratios) | **${roundRatio.toFixed(2)}** | ${Math.min(...shelfRuns.map((d, i) => bareRuns[i]!.ms / d.ms)).toFixed(2)} (lowest round) | >= ${TARGET_BARE_RATIO} | ${roundRatio >= TARGET_BARE_RATIO ? 'met' : 'MISSED'} |`,
  );
  console.log(`| Shelf / fs floor | ${fsRatio.toFixed(2)} | | >= ${TARGET_FS_RATIO} | ${fsRatio >= TARGET_FS_RATIO ? 'met' : 'MISSED'} |`);
  console.log(`| server CPU per download, bare / Shelf | ${f0(med(bareRuns, (d) => d.cpuMs))} / ${f0(med(shelfRuns, (d) => d.cpuMs))} ms | | | |`);
  console.log(
    `| GC per download, bare / Shelf | ${f0(med(bareRuns, (d) => d.markCompacts))} / ${f0(med(shelfRuns, (d) => d.markCompacts))} mark-compacts, ${f0(med(bareRuns, (d) => d.gcMs))} / ${f0(med(shelfRuns, (d) => d.gcMs))} ms | | | |`,
  );
  console.log(
    `| Shelf RSS rise: highest during any download (50 ms samples and VmHWM) over the idle server's | +${f1(rise)} MB (${f1(idleMb)} -> ${f1(peakMb)} MB) | | < ${TARGET_RSS_MB} MB | ${rise < TARGET_RSS_MB ? 'met' : 'MISSED'} |`,
  );
  console.log(
    `| Shelf RSS rise per measured download over its own start | +${f1(median(rises))} MB (VmHWM +${f1(median(hwmRises))} MB) | +${f1(Math.max(...rises))} MB | | |`,
  );
  if (breakdown.size > 0) {
    console.log('\nIn this process, same rounds, medians (ratio = fs floor time / this time):\n');
    console.log('| step | median | MiB/s | ratio to the fs floor |');
    console.log('|---|---|---|---|');
    console.log(`| fs floor: fs streams, discarded | ${f0(floorMs)} ms | ${f0(mibps(setup.bytes, floorMs))} | 1.00 |`);
    for (const [name, times] of breakdown) {
      const m = median(times);
      console.log(`| ${name} | ${f0(m)} ms | ${f0(mibps(setup.bytes, m))} | ${(floorMs / m).toFixed(2)} |`);
    }
    console.log(`| bare node:http over loopback (child process) | ${f0(bareMs)} ms | ${f0(mibps(setup.bytes, bareMs))} | ${(floorMs / bareMs).toFixed(2)} |`);
    console.log(`| Shelf: POST /downloads over loopback (child process) | ${f0(shelfMs)} ms | ${f0(mibps(setup.bytes, shelfMs))} | ${fsRatio.toFixed(2)} |`);
  }
  if (PROFILE) console.log(`\nCPU profiles of both servers (startup included): ${profileDir}`);
} finally {
  await rm(storageDir, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
}
