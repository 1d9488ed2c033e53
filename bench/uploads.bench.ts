/**
 * Resumable upload benchmark (the target: a 1 GiB resumable upload to local disk at >= 0.8x of
 * writing the bytes to a file, with an RSS rise under 64 MB): tus-js-client sends a file of random bytes
 * to Shelf's real app in a child process (ROLE=api, the service's Node flags), in chunks, over
 * loopback; the floor, measured in the same run, is copying the same file into a new file with fs
 * streams.
 *
 *   node bench/uploads.bench.ts        (BENCH_UPLOAD_MIB=1024 BENCH_CHUNK_MIB=64 BENCH_RUNS=3)
 *
 * Setup: a fresh database `shelf_bench_uploads` and a storage directory under /tmp, both removed at
 * the end; a team and an editable key made through the core. Each round, in rotating order:
 * - floor: the source file piped into a new file (createReadStream -> createWriteStream), fsync'd;
 * - Shelf: one tus upload (POST, then PATCHes of BENCH_CHUNK_MIB) until onSuccess, which comes after
 *   the last PATCH has placed the file (assembly, probing, content-addressed store, placement);
 *   the server's VmRSS sampled every 50 ms; its rise is the highest sample minus the idle server's.
 * Every upload is a new file of new bytes (the last 16 bytes changed), so no round finds its bytes
 * already stored. Report: medians and every run, the ratio Shelf / floor, the RSS rise; Markdown on
 * stdout. Only 127.0.0.1 is contacted.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import * as tus from 'tus-js-client';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { publicUrls } from '../src/public-urls.ts';
import { ensureDatabase, migrateUp, openOrm } from '../src/db/orm.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const MIB = 1024 * 1024;
const FILE_MIB = Number(env.BENCH_UPLOAD_MIB ?? 1024);
const CHUNK_MIB = Number(env.BENCH_CHUNK_MIB ?? 64);
const RUNS = Number(env.BENCH_RUNS ?? 3);
const DATABASE = 'shelf_bench_uploads';
const base = new URL(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const databaseUrl = new URL(`/${DATABASE}`, base).toString();
const log = (line: string) => process.stderr.write(`${line}\n`);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'shelf-bench-uploads-'));
  const storage = join(work, 'storage');
  const source = join(work, 'source.bin');
  const admin = new pg.Client({ connectionString: new URL('/postgres', base).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${DATABASE}" with (force)`);
  let child: ReturnType<typeof spawn> | null = null;
  try {
    log(`writing ${FILE_MIB} MiB of random bytes`);
    const handle = await open(source, 'w');
    const block = Buffer.alloc(16 * MIB);
    for (let written = 0; written < FILE_MIB * MIB; written += block.length) {
      randomFillSync(block);
      await handle.write(block, 0, Math.min(block.length, FILE_MIB * MIB - written));
    }
    await handle.close();

    await ensureDatabase(databaseUrl);
    const config = loadConfig({ DATABASE_URL: databaseUrl, STORAGE_DIR: storage, LOG_LEVEL: 'silent' });
    const orm = await openOrm({ databaseUrl, poolMax: 2 });
    await migrateUp(orm);
    const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
    const team = await core.access.createTeam(core.operatorCtx(), { name: 'Bench uploads' });
    const { key } = await core.access.createKey(core.operatorCtx(), { teamId: team.teamId, role: 'editable' });
    await orm.close();

    const port = await freePort();
    child = spawn(process.execPath, ['--max-semi-space-size=16', '--max-old-space-size=256', 'src/main.mjs'], {
      cwd: ROOT,
      env: {
        ...env,
        ROLE: 'api',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        STORAGE_DIR: storage,
        LOG_LEVEL: 'silent',
        LINK_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret-01',
      },
      stdio: 'ignore',
    });
    const pid = child.pid!;
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await fetch(`http://127.0.0.1:${port}/v1/uploads`, { method: 'OPTIONS' });
    await new Promise((r) => setTimeout(r, 1000));
    const idleMb = rssMb(pid);

    const floorMs: number[] = [];
    const shelfMs: number[] = [];
    const riseMb: number[] = [];
    const floor = async () => {
      const target = join(work, 'floor.bin');
      const started = performance.now();
      const out = createWriteStream(target);
      await pipeline(createReadStream(source), out);
      const fd = await open(target, 'r+');
      await fd.sync();
      await fd.close();
      floorMs.push(performance.now() - started);
      await rm(target);
    };
    const shelf = async (round: number) => {
      // new bytes each round: the tail of the file changed
      const fd = await open(source, 'r+');
      await fd.write(randomBytes(16), 0, 16, FILE_MIB * MIB - 16);
      await fd.close();
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const upload = new tus.Upload(createReadStream(source), {
          endpoint: `http://127.0.0.1:${port}/v1/uploads`,
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
      clearInterval(sampler);
      riseMb.push(Math.max(peak, rssMb(pid)) - idleMb);
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
    }
    const mibps = (ms: number) => (FILE_MIB / (ms / 1000)).toFixed(0);
    const ratio = median(floorMs) / median(shelfMs);
    console.log(`## Resumable upload to local disk (${FILE_MIB} MiB, ${CHUNK_MIB} MiB chunks, ${RUNS} rounds)\n`);
    console.log(
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')}.\n`,
    );
    console.log('| measure | median | runs |');
    console.log('|---|---|---|');
    console.log(
      `| floor: fs copy + fsync | ${median(floorMs).toFixed(0)} ms (${mibps(median(floorMs))} MiB/s) | ${floorMs.map((m) => m.toFixed(0)).join(', ')} |`,
    );
    console.log(
      `| Shelf: tus-js-client, POST + PATCHes, placed | ${median(shelfMs).toFixed(0)} ms (${mibps(median(shelfMs))} MiB/s) | ${shelfMs.map((m) => m.toFixed(0)).join(', ')} |`,
    );
    console.log(`| Shelf / floor throughput (target >= 0.8) | ${ratio.toFixed(2)}: ${ratio >= 0.8 ? 'met' : 'missed'} | |`);
    console.log(
      `| server RSS rise (target < 64 MB) | ${median(riseMb).toFixed(0)} MB: ${Math.max(...riseMb) < 64 ? 'met' : 'missed'} | ${riseMb.map((m) => m.toFixed(0)).join(', ')} |`,
    );
  } finally {
    child?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await admin.query(`drop database if exists "${DATABASE}" with (force)`);
    await admin.end();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
