/**
 * Product download benchmark (issue 16 item 5): `POST /v1/products/{id}/downloads` of a product
 * whose media total about 1 GiB, over loopback HTTP against Shelf's real app in a child process,
 * with the floor measured in the same run: reading the same stored files from disk with fs streams.
 *
 *   npm run -s bench:downloads        (node bench/downloads.bench.ts)
 *
 * Setup (fresh database `shelf_bench_downloads` and storage in a temporary directory under /tmp, both
 * removed at the end): BENCH_DOWNLOAD_FILES (10) files of BENCH_FILE_MIB (100) MiB
 * of random bytes (incompressible, each distinct), imported through the core as the tests import
 * library files (core.assets.libraryImport.importFile, the CLI's `asset import --file`), then one product
 * with those files as relatedAssetIds, published, and a `usable` key.
 *
 * Each of BENCH_RUNS (5) rounds measures, in alternating order:
 * - floor: the stored files read in ZIP order with fs.createReadStream (default 64 KiB chunks, as
 *   the local-disk storage opens them), every chunk discarded;
 * - Shelf: one POST .../downloads over a fresh loopback connection, the response consumed and
 *   discarded; the byte count is checked against Content-Length. During the request the server
 *   process's VmRSS (/proc/<pid>/status) is sampled every 50 ms (VmHWM, reset through clear_refs
 *   before the request, is read as well, so no peak falls between samples). The target's figure is
 *   the highest RSS during any download (the warm-up one included) minus the idle server's RSS
 *   (after one authenticated GET and a 1 s pause); each run's rise over its own start is listed too
 *   (memory the first download takes stays with the process, so later runs rise little).
 * The files are in the page cache for both (they were just written; the machine has far more RAM
 * than 1 GiB), so the floor is the cost of reading them through Node, not the disk's.
 * Report: medians (and every run), throughput ratio Shelf / floor (target >= 0.7), RSS rise (target
 * < 50 MB), Markdown on stdout, progress on stderr. Only 127.0.0.1 is contacted.
 *
 * BENCH_BREAKDOWN=1 (the default; 0 skips it) adds, in this process and in the same rounds, where a
 * download's time goes: the floor plus a CRC-32 of every chunk with node:zlib's crc32 (native, as
 * the app's writer computes it), and the app's own zipStream() (src/rest/zip-stream.ts, stored
 * entries) with its output discarded, no HTTP. (The app used yazl until its own writer replaced it;
 * yazl's JavaScript CRC-32 cost 3.9 s per GiB, bench/RESULTS-catalogue-reads.md.)
 */
import { randomFillSync } from 'node:crypto';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { loadConfig } from '../src/config.ts';
import { objectKey } from '../src/core/assets/import.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { zipStream } from '../src/rest/zip-stream.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';
import { startChildServer } from './support/child-server.ts';
import { sleep } from './support/child-messages.ts';
import { median } from './support/load.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const FILES = Number(env.BENCH_DOWNLOAD_FILES ?? 10);
const FILE_MIB = Number(env.BENCH_FILE_MIB ?? 100);
const RUNS = Number(env.BENCH_RUNS ?? 5);
const SAMPLE_MS = 50;
const TARGET_RATIO = 0.7;
const TARGET_RSS_MB = 50;
const DATABASE = 'shelf_bench_downloads';
const SECRET = 'bench-downloads-secret-bench-downloads-secret';
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', DATABASE);
const MiB = 1024 * 1024;

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
    const core = createCore(orm, config);
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
    const rows = await orm.em.fork().execute<Array<{ id: number; sha256: string; bytes: string }>>(
      'select f.id, o.sha256, f.byte_size::text as bytes from library_files f join stored_objects o on o.id = f.object_id where f.id = any(?::int[])',
      [`{${ids.join(',')}}`],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const storedPaths = ids.map((id) => join(storageDir, ...objectKey(byId.get(id)!.sha256).split('/')));
    const sizes = ids.map((id) => Number(byId.get(id)!.bytes));
    return { productId: created.body.id, key: usable.key, storedPaths, sizes, bytes: sizes.reduce((sum, n) => sum + n, 0) };
  } finally {
    await orm.close();
  }
}

/** The floor: every stored file through fs.createReadStream, one after another, chunks discarded. */
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

interface DownloadRun {
  ms: number;
  zipBytes: number;
  /** MB: VmRSS just before the request, the highest 50 ms sample during it, VmHWM after it (reset before). */
  rssBeforeMb: number;
  rssPeakMb: number;
  hwmMb: number;
  samples: number;
}

/** One download over a fresh loopback connection, consumed and discarded, with the server's RSS sampled. */
async function download(baseUrl: string, pid: number, setup: Setup): Promise<DownloadRun> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const rssBeforeMb = memoryOf(pid).rssMb;
  let rssPeakMb = rssBeforeMb;
  let samples = 0;
  const poll = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, memoryOf(pid).rssMb);
    samples++;
  }, SAMPLE_MS);
  const url = new URL(`/v1/products/${setup.productId}/downloads`, baseUrl);
  const started = performance.now();
  try {
    const { zipBytes, length } = await new Promise<{ zipBytes: number; length: number }>((done, fail) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false, headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json', 'content-length': 2 } },
        (res) => {
          if (res.statusCode !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => fail(new Error(`download: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
            return;
          }
          let zipBytes = 0;
          res.on('data', (chunk: Buffer) => {
            zipBytes += chunk.length;
          });
          res.on('end', () => done({ zipBytes, length: Number(res.headers['content-length']) }));
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end('{}');
    });
    const ms = performance.now() - started;
    if (zipBytes !== length) throw new Error(`download: ${zipBytes} bytes received, Content-Length ${length}`);
    if (zipBytes < setup.bytes) throw new Error(`download: ${zipBytes} bytes, fewer than the ${setup.bytes} bytes of the files`);
    return { ms, zipBytes, rssBeforeMb, rssPeakMb: Math.max(rssPeakMb, memoryOf(pid).rssMb), hwmMb: memoryOf(pid).hwmMb, samples };
  } finally {
    clearInterval(poll);
  }
}

/** The stored files read as the floor reads them, each chunk passed to `onChunk`. */
async function readWith(paths: string[], onChunk: (chunk: Buffer) => void): Promise<number> {
  const started = performance.now();
  for (const path of paths) {
    await new Promise<void>((done, fail) => {
      createReadStream(path).on('data', (chunk) => onChunk(chunk as Buffer)).on('end', done).on('error', fail);
    });
  }
  return performance.now() - started;
}

/** The app's zipStream over the stored files, in this process, its output discarded. */
async function zipInProcess(paths: string[], sizes: number[]): Promise<number> {
  const started = performance.now();
  const zip = await zipStream(paths.map((path, i) => ({ name: `media-${i}.bin`, size: sizes[i]!, open: async () => createReadStream(path) })), new Date());
  await pipeline(zip.stream, new Writable({ write: (_chunk, _encoding, done) => done() }));
  return performance.now() - started;
}

const BREAKDOWN = {
  'floor + zlib.crc32 (native) of every chunk': (s: Setup) => {
    let crc = 0;
    return readWith(s.storedPaths, (chunk) => {
      crc = crc32(chunk, crc);
    });
  },
  'the app\'s zipStream() in this process, output discarded (no HTTP)': (s: Setup) => zipInProcess(s.storedPaths, s.sizes),
} as const;

const mibps = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
const f1 = (v: number) => v.toFixed(1);

const loadAtStart = loadavg().map((l) => l.toFixed(1)).join(' / ');
const storageDir = await mkdtemp(join(tmpdir(), 'shelf-bench-downloads-'));
try {
  console.error(`setting up ${DATABASE}, storage ${storageDir}`);
  const setup = await setUp(storageDir);
  const server = await startChildServer('shelf', new URL('./servers/shelf-server.ts', import.meta.url), {
    env: { ...env, DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' },
    execArgv: serviceNodeFlags(),
  });
  const pid = server.child.pid!;
  const floors: Array<{ ms: number; bytes: number }> = [];
  const downloads: DownloadRun[] = [];
  const breakdown = new Map<string, number[]>(env.BENCH_BREAKDOWN === '0' ? [] : Object.keys(BREAKDOWN).map((k) => [k, []]));
  let idleMb = 0;
  let warmUp: DownloadRun | null = null;
  try {
    // the idle server's RSS: after one authenticated request (auth, pool, routing warmed) and a pause
    const probe = await fetch(new URL(`/v1/products/${setup.productId}`, server.baseUrl), { headers: { authorization: `Bearer ${setup.key}` } });
    if (probe.status !== 200) throw new Error(`GET product: ${probe.status}`);
    await probe.arrayBuffer();
    await sleep(1000);
    idleMb = memoryOf(pid).rssMb;
    // one unmeasured round of each: the page cache, the server's JIT and connection pool warm up
    await readFloor(setup.storedPaths);
    warmUp = await download(server.baseUrl, pid, setup);
    console.error(`  idle server RSS ${f1(idleMb)} MB; warm-up download ${f1(warmUp.ms)} ms, RSS ${f1(warmUp.rssBeforeMb)} -> ${f1(warmUp.rssPeakMb)} MB`);
    await sleep(500);
    for (let run = 0; run < RUNS; run++) {
      const order = run % 2 === 0 ? ['floor', 'shelf'] : ['shelf', 'floor'];
      for (const which of order) {
        if (which === 'floor') {
          const floor = await readFloor(setup.storedPaths);
          if (floor.bytes !== setup.bytes) throw new Error(`floor read ${floor.bytes} bytes, expected ${setup.bytes}`);
          floors.push(floor);
          console.error(`  run ${run + 1} floor: ${f1(floor.ms)} ms, ${f1(mibps(floor.bytes, floor.ms))} MiB/s`);
        } else {
          const d = await download(server.baseUrl, pid, setup);
          downloads.push(d);
          console.error(
            `  run ${run + 1} shelf: ${f1(d.ms)} ms, ${f1(mibps(setup.bytes, d.ms))} MiB/s of file bytes; RSS ${f1(d.rssBeforeMb)} -> ${f1(d.rssPeakMb)} MB (+${f1(d.rssPeakMb - d.rssBeforeMb)}, ${d.samples} samples), VmHWM ${f1(d.hwmMb)} MB`,
          );
          // let the server's heap settle (GC of the request's buffers) before the next baseline
          await sleep(500);
        }
      }
      for (const [name, times] of breakdown) {
        times.push(await BREAKDOWN[name as keyof typeof BREAKDOWN](setup));
        console.error(`  run ${run + 1} ${name}: ${f1(times.at(-1)!)} ms`);
      }
    }
  } finally {
    await server.stop();
  }

  const floorMs = median(floors.map((f) => f.ms));
  const shelfMs = median(downloads.map((d) => d.ms));
  const ratio = floorMs / shelfMs;
  const rises = downloads.map((d) => d.rssPeakMb - d.rssBeforeMb);
  const hwmRises = downloads.map((d) => d.hwmMb - d.rssBeforeMb);
  // the target's figure: the highest RSS seen during any download (warm-up included) over the idle server's
  const peakMb = Math.max(warmUp!.rssPeakMb, warmUp!.hwmMb, ...downloads.map((d) => Math.max(d.rssPeakMb, d.hwmMb)));
  const rise = peakMb - idleMb;
  const zipBytes = downloads[0]!.zipBytes;
  console.log(
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${loadAtStart} at the start and ${loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end; Node ${process.version}; ` +
      `service flags ${serviceNodeFlags().join(' ')}.\n`,
  );
  console.log(`Product: ${FILES} files x ${FILE_MIB} MiB = ${setup.bytes} bytes (${f1(setup.bytes / MiB)} MiB) of random bytes; ZIP ${zipBytes} bytes (stored entries). ${RUNS} runs each after one warm-up, order alternating.\n`);
  console.log(`Server RSS idle (after one authenticated GET and 1 s): ${f1(idleMb)} MB; warm-up download (unmeasured for time): ${f1(warmUp!.ms)} ms, RSS ${f1(warmUp!.rssBeforeMb)} -> ${f1(warmUp!.rssPeakMb)} MB (VmHWM ${f1(warmUp!.hwmMb)} MB).\n`);
  console.log('| run | floor: fs streams, ms (MiB/s) | Shelf: POST /downloads over loopback, ms (MiB/s of file bytes) | server RSS before -> peak of 50 ms samples (rise) | VmHWM rise |');
  console.log('|---|---|---|---|---|');
  for (let i = 0; i < RUNS; i++) {
    const [fl, d] = [floors[i]!, downloads[i]!];
    console.log(`| ${i + 1} | ${f1(fl.ms)} (${f1(mibps(fl.bytes, fl.ms))}) | ${f1(d.ms)} (${f1(mibps(setup.bytes, d.ms))}) | ${f1(d.rssBeforeMb)} -> ${f1(d.rssPeakMb)} MB (+${f1(rises[i]!)}) | +${f1(hwmRises[i]!)} MB |`);
  }
  console.log('');
  console.log('| measure | median | target | |');
  console.log('|---|---|---|---|');
  console.log(`| floor (fs streams, discarded) | ${f1(floorMs)} ms, ${f1(mibps(setup.bytes, floorMs))} MiB/s | | |`);
  console.log(`| Shelf download (loopback HTTP, discarded) | ${f1(shelfMs)} ms, ${f1(mibps(setup.bytes, shelfMs))} MiB/s | | |`);
  console.log(`| throughput ratio Shelf / floor | ${ratio.toFixed(2)} | >= ${TARGET_RATIO} | ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'} |`);
  console.log(`| server RSS rise: highest during any download (50 ms samples and VmHWM) over the idle server's | +${f1(rise)} MB (${f1(idleMb)} -> ${f1(peakMb)} MB) | < ${TARGET_RSS_MB} MB | ${rise < TARGET_RSS_MB ? 'met' : 'MISSED'} |`);
  console.log(`| server RSS rise per measured download over its own start (median) | +${f1(median(rises))} MB (VmHWM +${f1(median(hwmRises))} MB) | | |`);
  if (breakdown.size > 0) {
    console.log('\nWhere the time goes (this process, same rounds, medians; ratio = floor time / this time):\n');
    console.log('| step | median | MiB/s | ratio to the floor |');
    console.log('|---|---|---|---|');
    console.log(`| floor: fs streams, discarded | ${f1(floorMs)} ms | ${f1(mibps(setup.bytes, floorMs))} | 1.00 |`);
    for (const [name, times] of breakdown) {
      const m = median(times);
      console.log(`| ${name} | ${f1(m)} ms | ${f1(mibps(setup.bytes, m))} | ${(floorMs / m).toFixed(2)} |`);
    }
    console.log(`| Shelf: POST /downloads over loopback HTTP | ${f1(shelfMs)} ms | ${f1(mibps(setup.bytes, shelfMs))} | ${ratio.toFixed(2)} |`);
  }
} finally {
  await rm(storageDir, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
}
