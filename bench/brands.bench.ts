/**
 * Brand read benchmark (foundation issue): Shelf's real app against a minimal raw Fastify + pg
 * handler doing the same work, for GET /v1/brands/{id} and GET /v1/brands?pageSize=100.
 *
 *   npm run bench:brands
 *
 * One run: a throwaway database (shelf_bench_brands, dropped and recreated, dropped again at the
 * end) is migrated and seeded through the core; every server runs in its own child process, so none
 * shares the load generator's event loop; autocannon (in this process) loads them in turn, round
 * after round with the order alternating, after a warm-up; medians and Shelf/raw ratios are printed
 * as Markdown, with the median of the per-round ratios too (each round's runs are next to each other
 * in time, so their ratio is less exposed to the machine's drift). Servers: `shelf` (src/rest/app.ts as src/main.mjs wires it), `raw` (plain
 * parameterised queries: the issue's yardstick) and `raw-prepared` (the same with named prepared
 * statements, as Shelf's hot reads use them). Only 127.0.0.1 is loaded. Settings (environment):
 *   DATABASE_URL (server to use; default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL,
 *   BENCH_SECONDS=6, BENCH_ROUNDS=5, BENCH_WARMUP_SECONDS=3, BENCH_CONNECTIONS=50,
 *   BENCH_ENDPOINTS=get,list, BENCH_COMPARE_DIR=<another Shelf checkout with this bench/>: adds its
 *   Shelf as `shelf@<dir name>` (before/after comparisons in one run), BENCH_PROFILE=1: CPU profile
 *   of the Shelf process into bench/.profiles, BENCH_KEEP_DB=1: keep the database afterwards.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { databaseUrlNamed, dropDatabase, freshDatabase, seedBrands } from './support/brand-seed.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { type LoadFigures, load, median } from './support/load.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
// five short rounds rather than three long ones: on a shared machine a load spike then spoils one
// sample of five, and the median ignores it
const SECONDS = Number(env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 5);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const ENDPOINT_NAMES = (env.BENCH_ENDPOINTS ?? 'get,list').split(',');
const BRAND_COUNT = 200;
/** The issue's target: Shelf at >= 60% of the raw handler's throughput, p99 under 20 ms. */
const TARGET_RATIO = 0.6;
const TARGET_P99_MS = 20;

const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'shelf_bench_brands');
const here = (path: string) => new URL(path, import.meta.url);

interface Target {
  name: string;
  script: URL;
  env?: Record<string, string>;
  execArgv?: string[];
}

const targets: Target[] = [
  {
    name: 'shelf',
    script: here('./servers/shelf-server.ts'),
    // as shipped (package.json "serve"), plus the profiler on request
    execArgv: [...serviceNodeFlags(), ...(env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${fileURLToPath(here('./.profiles'))}`] : [])],
  },
  { name: 'raw', script: here('./servers/raw-brands-server.ts'), env: { RAW_PREPARED: '0' } },
  { name: 'raw-prepared', script: here('./servers/raw-brands-server.ts'), env: { RAW_PREPARED: '1' } },
];
if (env.BENCH_COMPARE_DIR) {
  const dir = resolve(env.BENCH_COMPARE_DIR);
  targets.splice(1, 0, { name: `shelf@${basename(dir)}`, script: pathToFileURL(`${dir}/bench/servers/shelf-server.ts`) });
}

console.error(`preparing ${new URL(databaseUrl).pathname.slice(1)}: migrate, seed ${BRAND_COUNT} brands per team through the core`);
await freshDatabase(databaseUrl);
const seed = await seedBrands(databaseUrl, BRAND_COUNT);

const endpoints = [
  { name: 'get', label: 'GET /v1/brands/{id}', path: `/v1/brands/${seed.brandId}` },
  { name: 'list', label: 'GET /v1/brands?pageSize=100', path: '/v1/brands?pageSize=100' },
].filter((e) => ENDPOINT_NAMES.includes(e.name));
const headers = { authorization: `Bearer ${seed.key}` };

const servers: ChildServer[] = [];
try {
  for (const target of targets) {
    servers.push(
      await startChildServer(target.name, target.script, {
        env: { ...env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', ...target.env },
        execArgv: target.execArgv,
      }),
    );
  }
  await checkSameResponses(servers);

  const loadOptions = { connections: CONNECTIONS, headers };
  console.error(`warm-up: ${WARMUP_SECONDS} s per server and endpoint`);
  for (const endpoint of endpoints) {
    for (const server of servers) await load(server.baseUrl + endpoint.path, { ...loadOptions, seconds: WARMUP_SECONDS });
  }

  const figures = new Map<string, LoadFigures[]>();
  const loadAverages: number[] = [loadavg()[0]!];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const endpoint of endpoints) {
      // alternate the order, so a drift in the machine's load hits every server alike
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      for (const server of order) {
        const result = await load(server.baseUrl + endpoint.path, { ...loadOptions, seconds: SECONDS });
        const key = `${server.name} ${endpoint.name}`;
        figures.set(key, [...(figures.get(key) ?? []), result]);
        console.error(
          `round ${round} ${key.padEnd(24)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms` +
            (result.failed > 0 ? `  FAILED ${result.failed}` : ''),
        );
      }
    }
    loadAverages.push(loadavg()[0]!);
  }

  printReport(figures, loadAverages);
} finally {
  for (const server of servers) await server.stop();
  if (env.BENCH_KEEP_DB !== '1') await dropDatabase(databaseUrl);
}

/** Every server must answer alike (status, ETag, body but the request id), or the comparison means nothing. */
async function checkSameResponses(all: ChildServer[]): Promise<void> {
  for (const endpoint of endpoints) {
    const answers = await Promise.all(
      all.map(async (server) => {
        const response = await fetch(server.baseUrl + endpoint.path, { headers });
        const body = (await response.json()) as Record<string, unknown>;
        delete body.requestId;
        return `${response.status} ${response.headers.get('etag')} ${JSON.stringify(body)}`;
      }),
    );
    const differing = answers.findIndex((answer) => answer !== answers[0]);
    if (!answers[0]!.startsWith('200 ') || differing !== -1) {
      throw new Error(`servers answer ${endpoint.label} differently:\n${answers.map((a, i) => `${all[i]!.name}: ${a.slice(0, 300)}`).join('\n')}`);
    }
  }
  console.error('every server gives the same status, ETag and body (but the request id) on every endpoint');
}

function printReport(figures: Map<string, LoadFigures[]>, loadAverages: number[]): void {
  const lines = [
    `Run ${new Date().toISOString()}: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `${CONNECTIONS} connections, ${ROUNDS} rounds x ${SECONDS} s per server and endpoint after ${WARMUP_SECONDS} s warm-up, ` +
      `1-min load average ${loadAverages.map((l) => l.toFixed(2)).join(' -> ')}.`,
    '',
    '| endpoint | server | req/s (median) | p50 ms | p99 ms | req/s per round | Shelf/server req/s (of medians) | Shelf/server req/s (median per round) |',
    '|---|---|---:|---:|---:|---|---:|---:|',
  ];
  const verdicts: string[] = [];
  for (const endpoint of endpoints) {
    const of = (name: string) => figures.get(`${name} ${endpoint.name}`)!;
    const med = (name: string, pick: (f: LoadFigures) => number) => median(of(name).map(pick));
    const shelfRps = med('shelf', (f) => f.rps);
    const percent = (r: number) => `${(r * 100).toFixed(0)}%`;
    const perRoundRatio = (name: string) => median(of('shelf').map((f, round) => f.rps / of(name)[round]!.rps));
    for (const [i, server] of servers.entries()) {
      const perRound = of(server.name)
        .map((f) => f.rps.toFixed(0))
        .join(' / ');
      const isShelf = server.name === 'shelf';
      lines.push(
        `| ${i === 0 ? endpoint.label : ''} | ${server.name} | ${med(server.name, (f) => f.rps).toFixed(0)} | ` +
          `${med(server.name, (f) => f.p50).toFixed(1)} | ${med(server.name, (f) => f.p99).toFixed(1)} | ${perRound} | ` +
          `${isShelf ? '' : percent(shelfRps / med(server.name, (f) => f.rps))} | ${isShelf ? '' : percent(perRoundRatio(server.name))} |`,
      );
    }
    const failed = servers.reduce((n, s) => n + of(s.name).reduce((m, f) => m + f.failed, 0), 0);
    const ratio = shelfRps / med('raw', (f) => f.rps);
    const p99 = med('shelf', (f) => f.p99);
    verdicts.push(
      `${endpoint.label}: Shelf at ${(ratio * 100).toFixed(0)}% of raw (target >= ${TARGET_RATIO * 100}%: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}), ` +
        `p99 ${p99} ms (target < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'met' : 'MISSED'})` +
        (failed > 0 ? `; ${failed} requests FAILED (errors, timeouts or non-2xx)` : ''),
    );
  }
  lines.push('', ...verdicts.map((v) => `- ${v}`));
  console.log(lines.join('\n'));
}
