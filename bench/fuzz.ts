/**
 * The fuzz test's longer run against the service as it ships: `node src/main.mjs` (ROLE=all, the
 * flags of `npm run serve`) in a child process on a real port, with its own migrated database,
 * storage directory and QUEUE_PREFIX. Seeds the world, fires the seeded cases, and prints the
 * answers by status, every failure class with a repro, and the server's peak RSS.
 *
 *   npm run -s bench:fuzz -- --requests 5000 --graphql 500 --seed 7 [--concurrency 4] [--only rest:57]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { ensureDatabase, migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { startFuzzPeer } from '../test/support/fuzz/peer.ts';
import { exchange } from '../test/support/fuzz/raw-http.ts';
import { describeClass, failureClasses, runFuzz, showExchange } from '../test/support/fuzz/run.ts';
import { type FuzzWorld, seedFuzzWorld } from '../test/support/fuzz/world.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    graphql: { type: 'string', default: '500' },
    seed: { type: 'string', default: '20261201' },
    concurrency: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const seed = Number(args.seed);
const plan = {
  seed,
  requests: Number(args.requests),
  graphql: Number(args.graphql),
  concurrency: Number(args.concurrency),
  only: args.only,
  largestArray: 100_000,
};
const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const name = `shelf_fuzz_${process.pid}_${Date.now().toString(36)}`;
const databaseUrl = Object.assign(new URL(base), { pathname: `/${name}` }).toString();
const adminUrl = Object.assign(new URL(base), { pathname: '/postgres' }).toString();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Creates and migrates the run's database, then seeds the world through the core, as the test does. */
async function seedDatabase(env: Record<string, string>, inputs: string, peerUrl: string): Promise<FuzzWorld> {
  await ensureDatabase(databaseUrl);
  const orm = await openOrm({ databaseUrl, poolMax: 4 });
  try {
    await migrateUp(orm);
    const coreConfig = loadConfig(env);
    const core = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
    try {
      return await seedFuzzWorld({ core, orm }, inputs, peerUrl);
    } finally {
      await core.platform.attemptLimiter.close();
      await core.platform.outbound.close();
    }
  } finally {
    await orm.close();
  }
}

/** The peak RSS of a process: VmHWM as the kernel keeps it, and the largest VmRSS sampled. */
function rssSampler(pid: number) {
  const read = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  let maxRss = 0;
  let hwm = 0;
  const sample = () => {
    try {
      maxRss = Math.max(maxRss, read('VmRSS'));
      hwm = Math.max(hwm, read('VmHWM'));
    } catch {
      // the process is gone: the last sample stands
    }
  };
  const timer = setInterval(sample, 100);
  sample();
  return { stop: () => (clearInterval(timer), sample(), { maxRssMb: maxRss / 1024, hwmMb: hwm / 1024 }) };
}

async function waitForHealth(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering`);
    const answer = await exchange('127.0.0.1', port, { method: 'GET', target: '/healthz', headers: [] }, 2_000);
    if (answer.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const storage = await mkdtemp(join(tmpdir(), 'shelf-fuzz-storage-'));
const inputs = await mkdtemp(join(tmpdir(), 'shelf-fuzz-inputs-'));
const logPath = join(tmpdir(), `shelf-fuzz-${seed}-${process.pid}.log`);
const peer = await startFuzzPeer();
const port = await freePort();
const env: Record<string, string> = {
  ROLE: 'all',
  HOST: '127.0.0.1',
  PORT: String(port),
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  QUEUE_PREFIX: `shelf-fuzz-${name}`,
  STORAGE_DIR: storage,
  LINK_SIGNING_SECRET: 'fuzz-secret-fuzz-secret-fuzz-secret-0123',
  OUTBOUND_ALLOW_HOSTS: peer.hostPort,
  APPROVAL_DOWNLOAD_TIMEOUT_MS: '2000',
  LOG_LEVEL: 'error',
};
let child: ChildProcess | null = null;
let failed = false;
try {
  console.log(
    `fuzz seed ${seed}: ${plan.requests} REST requests, ${plan.graphql} GraphQL documents, concurrency ${plan.concurrency}${plan.only ? `, only ${plan.only}` : ''}`,
  );
  const world = await seedDatabase(env, inputs, peer.url);
  const log = openSync(logPath, 'a');
  child = spawn(process.execPath, [...serviceNodeFlags(), 'src/main.mjs'], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', log, log] });
  await waitForHealth(port, child);
  console.log(`server pid ${child.pid} on 127.0.0.1:${port}, database ${name}, log ${logPath}`);
  let crashed: string | null = null;
  child.on('exit', (code, signal) => (crashed = `the server exited during the run (code ${code}, signal ${signal})`));
  const rss = rssSampler(child.pid!);
  const started = performance.now();
  const report = await runFuzz({ host: '127.0.0.1', port }, world, plan, {
    onAnswer: (c, answer) => {
      if (plan.only) console.log(showExchange(c, answer));
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const peak = rss.stop();
  const classes = failureClasses(report.failures);
  const repro = (id: string) => `npm run -s bench:fuzz -- --seed ${seed} --only ${id}`;
  const serverErrors = report.failures.filter((f) => f.status >= 500 || f.status === 0);
  console.log(`\n${report.sent} answers to ${report.cases} cases in ${seconds.toFixed(1)} s (${(report.sent / seconds).toFixed(0)}/s)`);
  console.log(
    `by status: ${Object.entries(report.byStatus)
      .sort()
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
  );
  console.log(`5xx or no answer: ${serverErrors.length}`);
  console.log(`peak RSS of the server: ${peak.hwmMb.toFixed(0)} MB (VmHWM), ${peak.maxRssMb.toFixed(0)} MB (largest VmRSS sampled every 100 ms)`);
  console.log(
    `slowest cases: ${report.slowest.map((s) => `${s.case.id} ${s.case.operation} ${s.case.mutation} ${s.status} ${(s.ms / 1000).toFixed(1)} s`).join('; ')}`,
  );
  console.log('\np99 per operation (ms; `valid` and `maximal-body` are writes and reads that succeed, `mutated` the rest):');
  console.log('| operation | cases | p50 | p99 | max |\n|---|---|---|---|---|');
  const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  for (const [key, times] of Object.entries(report.times).sort()) {
    const sorted = [...times].sort((a, b) => a - b);
    console.log(`| ${key} | ${sorted.length} | ${quantile(sorted, 0.5).toFixed(0)} | ${quantile(sorted, 0.99).toFixed(0)} | ${sorted.at(-1)!.toFixed(0)} |`);
  }
  if (crashed) console.log(crashed);
  console.log(`\n${report.failures.length} failing answers in ${classes.length} classes (server errors first):`);
  const ordered = [...classes].sort((a, b) => Number(b.first.status >= 500 || b.first.status === 0) - Number(a.first.status >= 500 || a.first.status === 0));
  for (const cls of ordered) console.log(describeClass(cls, repro));
  failed = report.failures.length > 0 || crashed !== null;
} finally {
  if (child && child.exitCode === null) {
    const gone = once(child, 'exit');
    child.kill('SIGTERM');
    await gone;
  }
  await peer.close();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
  await rm(storage, { recursive: true, force: true });
  await rm(inputs, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
