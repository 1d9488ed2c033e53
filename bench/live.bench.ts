/**
 * Live updates benchmark: BENCH_STREAMS (1,000) open subscription streams on one API
 * process (a real `ROLE=api` process), spread over BENCH_TEAMS (100) teams, and BENCH_RATE (200)
 * committed product changes a second for BENCH_SECONDS (20), spread over the teams (each change
 * reaches the 10 streams of its team: 2,000 updates a second). Measured: commit-to-receipt
 * latency (p50, p99, max; from the insert's commit returning here to the update read here), that
 * every update arrived once, the process's RSS per open stream, and its CPU per update sent. The
 * same streams and changes then against the floor: a bare node:http SSE server
 * (bench/servers/bare-live-server.ts) reading the same Redis channels, without GraphQL, access
 * checks, positions or bounds. Changes are committed as live rows by this process (one insert
 * each, autocommit), which is what every writer's transaction adds; the Shelf process's relay
 * positions and publishes them for both sides.
 *
 *   node_modules/node/bin/node bench/live.bench.ts
 *
 * Only 127.0.0.1 is contacted. Every line gives the load average.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';
import { processCpuMs } from './support/cpu-time.ts';

const env = process.env;
const STREAMS = Number(env.BENCH_STREAMS ?? 1000);
const TEAMS = Number(env.BENCH_TEAMS ?? 100);
const RATE = Number(env.BENCH_RATE ?? 200);
const SECONDS = Number(env.BENCH_SECONDS ?? 20);
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shelf', 'shelf_bench_live');
const PREFIX = `shelf-bench-live-${process.pid}`;
const SHELF_PORT = 18_500 + (process.pid % 500);
const BARE_PORT = SHELF_PORT + 1;
const QUERY = 'subscription { productChanges { position productId name } }';

const load = () => loadavg()[0]!.toFixed(2);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function waitFor(url: string): Promise<void> {
  for (;;) {
    if (
      (await fetch(url).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return;
    await sleep(200);
  }
}

/** An SSE stream read here: every `next` update's productId, with the time it was read. */
function openStream(
  options: { port: number; path: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  onUpdate: (productId: number) => void,
) {
  return new Promise<() => void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: options.port, path: options.path, method: options.method, headers: options.headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream refused: ${res.statusCode}`));
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
        let end = text.indexOf('\n\n');
        while (end !== -1) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data && block.includes('event: next')) {
            const parsed = JSON.parse(data.slice(6));
            if (parsed.data) onUpdate(parsed.data.productChanges.productId);
          }
          end = text.indexOf('\n\n');
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

interface Round {
  side: string;
  pid: number;
  p50: number;
  p99: number;
  max: number;
  received: number;
  expected: number;
  rssPerStreamKb: number;
  cpuPerUpdateUs: number;
}

async function round(
  side: string,
  pid: number,
  open: (team: number, onUpdate: (productId: number) => void) => Promise<() => void>,
  teams: number[],
  db: pg.Pool,
  startId: number,
): Promise<Round> {
  const committedAt = new Map<number, number>();
  const latencies: number[] = [];
  let received = 0;
  const onUpdate = (productId: number) => {
    const at = committedAt.get(productId);
    if (at === undefined) return;
    received++;
    latencies.push(performance.now() - at);
  };
  await sleep(2000);
  const rssBefore = rssMb(pid);
  const closers: Array<() => void> = [];
  for (let i = 0; i < STREAMS; i++) closers.push(await open(teams[i % teams.length]!, onUpdate));
  await sleep(3000);
  const rssAfter = rssMb(pid);
  const cpu0 = processCpuMs(pid);
  const total = RATE * SECONDS;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const productId = startId + i;
    const team = teams[i % teams.length]!;
    await db.query(`insert into live_events (team_id, stream, event_type, subject_id, body) values ($1, 'product', 'updated', $2, $3::json)`, [
      team,
      String(productId),
      JSON.stringify({ productId, action: 'updated', status: 'draft', name: `p${productId}`, changedFields: ['name'], actor: 'key:1' }),
    ]);
    committedAt.set(productId, performance.now());
  }
  const expected = total * (STREAMS / teams.length);
  const deadline = performance.now() + 30_000;
  while (received < expected && performance.now() < deadline) await sleep(100);
  const cpu = processCpuMs(pid) - cpu0;
  for (const close of closers) close();
  return {
    side,
    pid,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: percentile(latencies, 100),
    received,
    expected,
    rssPerStreamKb: ((rssAfter - rssBefore) * 1024) / STREAMS,
    cpuPerUpdateUs: (cpu * 1000) / Math.max(received, 1),
  };
}

async function main(): Promise<void> {
  console.log(`live bench: ${STREAMS} streams over ${TEAMS} teams, ${RATE} changes/s for ${SECONDS} s; load ${load()}`);
  await freshDatabase(DATABASE);
  const orm = await openOrm({ databaseUrl: DATABASE, poolMax: 4 });
  await migrateUp(orm);
  const coreConfig = loadConfig({ DATABASE_URL: DATABASE, LINK_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret-01' });
  const core = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
  const teams: number[] = [];
  const keys = new Map<number, string>();
  for (let i = 0; i < TEAMS; i++) {
    const { teamId } = await core.access.createTeam(core.operatorCtx(), { name: `Live ${i}` });
    teams.push(teamId);
    keys.set(teamId, (await core.access.createKey(core.operatorCtx(), { teamId, role: 'manage' })).key);
  }
  await orm.close();

  const shelf: ChildProcess = spawn(process.execPath, ['src/main.mjs'], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...env,
      ROLE: 'api',
      PORT: String(SHELF_PORT),
      DATABASE_URL: DATABASE,
      REDIS_URL,
      QUEUE_PREFIX: PREFIX,
      LINK_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret-01',
      LOG_LEVEL: 'warn',
      LIVE_STREAMS_PER_KEY: String(STREAMS),
    },
  });
  await waitFor(`http://127.0.0.1:${SHELF_PORT}/healthz`);
  const db = new pg.Pool({ connectionString: DATABASE, max: 2 });
  const rounds: Round[] = [];
  try {
    rounds.push(
      await round(
        'shelf',
        shelf.pid!,
        (team, onUpdate) =>
          openStream(
            {
              port: SHELF_PORT,
              path: '/graphql',
              method: 'POST',
              headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${keys.get(team)}` },
              body: JSON.stringify({ query: QUERY }),
            },
            onUpdate,
          ),
        teams,
        db,
        1,
      ),
    );
    const bare = fork(new URL('./servers/bare-live-server.ts', import.meta.url), {
      env: { ...env, PORT: String(BARE_PORT), REDIS_URL, LIVE_PREFIX: PREFIX },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise((resolve) => bare.once('message', resolve));
    try {
      rounds.push(
        await round(
          'bare node:http floor',
          bare.pid!,
          (team, onUpdate) => openStream({ port: BARE_PORT, path: `/?team=${team}`, method: 'GET', headers: { accept: 'text/event-stream' } }, onUpdate),
          teams,
          db,
          10_000_000,
        ),
      );
    } finally {
      bare.kill('SIGTERM');
    }
  } finally {
    await db.end();
    shelf.kill('SIGTERM');
    await new Promise((resolve) => shelf.once('close', resolve));
    await dropDatabase(DATABASE);
  }
  for (const r of rounds) {
    console.log(
      `${r.side.padEnd(22)} commit-to-receipt p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms; ` +
        `received ${r.received}/${r.expected}; RSS ${r.rssPerStreamKb.toFixed(1)} KB per stream; CPU ${r.cpuPerUpdateUs.toFixed(1)} us per update; load ${load()}`,
    );
  }
}

await main();
