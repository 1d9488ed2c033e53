/**
 * Products benchmark (products issue): Shelf's real app against a raw Fastify + pg floor serving
 * the same pages, on 1,000,000 products with media.
 *
 *   node_modules/node/bin/node bench/products-generate.ts --reuse   (once; keeps shelf_bench_products)
 *   npm run bench:products
 *
 * One run, every server in its own child process (bench/support/child-server.ts), only 127.0.0.1:
 * 1. full sync scan: GET /v1/products?sync=true&pageSize=100, following nextCursor to the end, one
 *    request at a time per server; the servers' scans run in lockstep (a page of each in turn, each
 *    timed on its own requests), so the shared machine's load swings hit them alike. products/s and
 *    each server's peak RSS during the scan (VmHWM of /proc/<pid>/status, reset before the scan
 *    through clear_refs, and VmRSS polled every 100 ms). Every scan is checked: as many products as
 *    the team has live, strictly ascending (updatedAt, id). For reference also the keyset SQL alone,
 *    in this process (no HTTP, no media);
 * 2. incremental sync: 1,000 random live products get an updatedAt just before now() - 30 s (in
 *    SQL), then a scan with updatedAfter just below them must return exactly those 1,000;
 * 3. GET /v1/products?pageSize=20 unfiltered and filtered (brandId, status=published,
 *    status=draft, search) under autocannon with 32 connections: requests/s, p50, p99, against
 *    `raw` (counts the total on every request) and `raw-memo` (keeps totals by product version, as
 *    Shelf does). Before each load the database must be idle: a floor's counts outlive autocannon.
 * Rounds alternate the server order, so drifts of the shared machine's load hit both alike; the
 * report gives medians, the ratios Shelf/floor and the issue's targets, as Markdown on stdout.
 * All measurements use an `editable` key (it sees drafts: a full scan is all 1,000,000 products;
 * media objects carry download links).
 *
 * Settings (environment): DATABASE_URL (server; default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_PARTS=scan,incremental,list, BENCH_SCAN_ROUNDS=3, BENCH_INCREMENTAL_ROUNDS=5,
 * BENCH_LISTS=all,brand,published,draft,search, BENCH_ROUNDS=3 (list rounds), BENCH_SECONDS=10,
 * BENCH_WARMUP_SECONDS=3, BENCH_CONNECTIONS=32, BENCH_RAW_PREPARED=1 (adds the floor with named
 * prepared statements), BENCH_SHELF_FLAGS (see SHELF_FLAGS), BENCH_COMPARE_DIR=<another checkout with
 * this bench/>: adds its Shelf as `shelf@<dir name>` (before/after in one run), BENCH_PROFILE=1: CPU
 * profile of the Shelf process into bench/.profiles, BENCH_SYNC_CHANGES=1: adds `shelf-changes`, the same
 * Shelf scanned with the sync feed opt-in (changes=true, docs/products.md "Sync feed") in the scan
 * and incremental parts, over a change log holding a deletion for every soft-deleted product and a
 * linked change for 1 % of the live ones (written once, as the triggers would have). BENCH_PRODUCTS_DB / BENCH_PRODUCT_COUNT as for the generator.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { databaseUrl, isComplete, PRODUCTS_DB, SEARCH_TERM } from './products-generate.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { type LoadFigures, load, median } from './support/load.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const PARTS = (env.BENCH_PARTS ?? 'scan,incremental,list').split(',');
const SCAN_ROUNDS = Number(env.BENCH_SCAN_ROUNDS ?? 3);
const INCREMENTAL_ROUNDS = Number(env.BENCH_INCREMENTAL_ROUNDS ?? 5);
const LIST_NAMES = (env.BENCH_LISTS ?? 'all,brand,published,draft,search').split(',');
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const CHANGED = 1000;
/** Issue targets. */
const TARGET_SCAN_RATE = 20_000;
const TARGET_SCAN_RATIO = 0.55;
const TARGET_RSS_MB = 300;
const TARGET_LIST_RATIO = 0.6;
const TARGET_P99_FACTOR = 1.5;
/** Links and cursors of both servers are signed with this, and name this base URL. */
const SECRET = 'products-benchmark-signing-secret-0123456789abcdef';
const PUBLIC_BASE_URL = 'http://127.0.0.1:8080';

const here = (path: string) => new URL(path, import.meta.url);
/**
 * BENCH_SHELF_FLAGS="--flag ...": adds `shelf-flags`, Shelf run with these Node flags, to the scans
 * (what a heap setting does to the scan's RSS; bench/RESULTS-products.md tried --max-semi-space-size=16).
 */
const SHELF_FLAGS = (env.BENCH_SHELF_FLAGS ?? '').split(' ').filter(Boolean);

interface Target {
  name: string;
  script: URL;
  env?: Record<string, string>;
  execArgv?: string[];
  /** Measured in these parts only (default: every part). */
  parts?: string[];
  /** Appended to the first request of its sync scans. */
  syncQuery?: string;
}

const targets: Target[] = [
  {
    name: 'shelf',
    script: here('./servers/shelf-server.ts'),
    // as shipped (package.json "serve"), plus the profiler on request
    execArgv: [...serviceNodeFlags(), ...(env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${fileURLToPath(here('./.profiles'))}`] : [])],
  },
  { name: 'raw', script: here('./servers/raw-products-server.ts'), env: { RAW_PREPARED: '0' } },
  ...(SHELF_FLAGS.length > 0 ? [{ name: 'shelf-flags', script: here('./servers/shelf-server.ts'), execArgv: SHELF_FLAGS, parts: ['scan'] }] : []),
  // the same floor keeping exact totals by product version, as Shelf does: lists only (its scans are raw's)
  { name: 'raw-memo', script: here('./servers/raw-products-server.ts'), env: { RAW_PREPARED: '0', RAW_TOTALS: 'memo' }, parts: ['list'] },
];
if (env.BENCH_SYNC_CHANGES === '1') {
  targets.splice(1, 0, {
    name: 'shelf-changes',
    script: here('./servers/shelf-server.ts'),
    execArgv: serviceNodeFlags(),
    parts: ['scan', 'incremental'],
    syncQuery: '&changes=true',
  });
}
if (env.BENCH_RAW_PREPARED === '1') targets.push({ name: 'raw-prepared', script: here('./servers/raw-products-server.ts'), env: { RAW_PREPARED: '1' } });
if (env.BENCH_COMPARE_DIR) {
  const dir = resolve(env.BENCH_COMPARE_DIR);
  targets.splice(1, 0, { name: `shelf@${basename(dir)}`, script: pathToFileURL(`${dir}/bench/servers/shelf-server.ts`) });
}

if (!(await isComplete(databaseUrl))) {
  console.error(`${PRODUCTS_DB} is missing or incomplete: run node_modules/node/bin/node bench/products-generate.ts first`);
  process.exit(1);
}

// --- set-up: a key of the measured team, and what the checks need ---

const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
const one = async <T>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows[0] as T;
const { teamId } = await one<{ teamId: number }>(`select id as "teamId" from teams where name = 'Bench' order by id limit 1`);
const { brandId } = await one<{ brandId: number }>(
  `select id as "brandId" from brands where team_id = $1 and deleted_at is null order by id offset 3 limit 1`,
  [teamId],
);
const key = await createKey(teamId);
if (env.BENCH_SYNC_CHANGES === '1') await seedChangeLog();

/**
 * What the sync feed reads besides the products: a deletion for every soft-deleted product (at its
 * updatedAt, as the trigger writes it) and a linked change for every 100th live product (a
 * microsecond after its updatedAt). Idempotent: the unique feed-order key ignores repeats. Then
 * ANALYZE, as the generator does for the products and as autovacuum would on a long-lived database:
 * this machine's server runs with autovacuum off, and without statistics on product_changes the
 * planner took the feed's change-log range for a few rows, read all of it (bitmap scan, a products
 * lookup per entry, top-N sort) on every page instead of walking its index from the cursor: about
 * 1 s for an early page of the 1,000,000-product scan, 6.6 ms with statistics (bench/RESULTS.md).
 */
async function seedChangeLog(): Promise<void> {
  await db.query(
    `insert into product_changes (team_id, product_id, kind, was_published, at)
     select team_id, id, 1, status = 'published', updated_at from products where team_id = $1 and deleted_at is not null
     union all
     select team_id, id, 3, false, updated_at + interval '1 microsecond' from products where team_id = $1 and deleted_at is null and id % 100 = 0
     on conflict do nothing`,
    [teamId],
  );
  await db.query('analyze product_changes');
}

/** Entries the feed adds to a full scan: tombstones, and linked changes (each a product again). */
async function changeLogCounts(): Promise<{ tombstones: number; linked: number }> {
  return one<{ tombstones: number; linked: number }>(
    `select count(*) filter (where kind = 1)::int as tombstones, count(*) filter (where kind = 3)::int as linked
       from product_changes c where team_id = $1 and at < now() - interval '30 seconds'
        and (kind = 1 or exists (select 1 from products p where p.id = c.product_id and p.deleted_at is null))`,
    [teamId],
  );
}
const headers = { authorization: `Bearer ${key}` };

async function createKey(team: number): Promise<string> {
  const orm = await openOrm({ databaseUrl, poolMax: 1 });
  try {
    const coreConfig = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    const core = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
    return (await core.access.createKey(core.operatorCtx(), { teamId: team, role: 'editable' })).key;
  } finally {
    await orm.close();
  }
}

const lists = [
  { name: 'all', label: 'unfiltered', path: '/v1/products?pageSize=20' },
  { name: 'brand', label: 'brandId', path: `/v1/products?pageSize=20&brandId=${brandId}` },
  { name: 'published', label: 'status=published', path: '/v1/products?pageSize=20&status=published' },
  { name: 'draft', label: 'status=draft', path: '/v1/products?pageSize=20&status=draft' },
  { name: 'search', label: `search=${SEARCH_TERM}`, path: `/v1/products?pageSize=20&search=${SEARCH_TERM}` },
].filter((l) => LIST_NAMES.includes(l.name));

// --- measurements ---

interface ScanFigures {
  count: number;
  seconds: number;
  rate: number;
  /** MB: VmHWM after the scan (reset before it), and the highest VmRSS polled during it. */
  peakMb: number;
  polledMb: number;
  /** MB: VmRSS when the scan started. */
  startMb: number;
}

function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** Resets the peak RSS (VmHWM) of a process to its current RSS (Linux clear_refs "5"). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

type Page = { data: Array<{ id: number; updatedAt: string; removed?: true; at?: string }>; pagination: { nextCursor: string | null; syncedUntil: string } };

async function getPage(url: string): Promise<Page> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return (await response.json()) as Page;
}

/**
 * A sync scan advanced one page at a time, so several scans can run in lockstep: on a shared,
 * noisy machine, interleaving their pages gives every server the same conditions. Only the time
 * spent in this scan's own requests (fetch and JSON parse) counts. Checks strict (updatedAt, id) order.
 */
class Scan {
  /** Products (not tombstones) received. */
  count = 0;
  tombstones = 0;
  seconds = 0;
  done = false;
  private url: string;
  private last: { updatedAt: string; id: number } | null = null;
  readonly server: ChildServer;

  constructor(server: ChildServer, first: string) {
    this.server = server;
    this.url = server.baseUrl + first;
  }

  async step(): Promise<void> {
    const started = performance.now();
    const page = await getPage(this.url);
    this.seconds += (performance.now() - started) / 1000;
    for (const item of page.data) {
      const last = this.last;
      // the feed's entries: a tombstone sorts by its `at`; a product may come twice at one instant (updated, then linked)
      const at = item.removed ? item.at! : item.updatedAt;
      if (last !== null && !(at > last.updatedAt || (at === last.updatedAt && item.id >= last.id))) {
        throw new Error(`${this.server.name}: scan out of order at ${item.id} after ${last.id}`);
      }
      this.last = { updatedAt: at, id: item.id };
      if (item.removed) this.tombstones++;
      else this.count++;
    }
    const next = page.pagination.nextCursor;
    if (next === null) this.done = true;
    else this.url = `${this.server.baseUrl}/v1/products?sync=true&cursor=${encodeURIComponent(next)}`;
  }
}

/** Runs scans page by page in turn until all are done. */
async function lockstep(scans: Scan[]): Promise<void> {
  while (scans.some((scan) => !scan.done)) {
    for (const scan of scans) if (!scan.done) await scan.step();
  }
}

async function liveCount(): Promise<number> {
  return (
    await one<{ n: number }>(
      `select count(*)::int as n from products where team_id = $1 and deleted_at is null and updated_at < now() - interval '30 seconds'`,
      [teamId],
    )
  ).n;
}

/** Full scans of every server in lockstep, with each server's peak RSS (VmHWM reset before, VmRSS polled every 100 ms). */
async function fullScans(scanned: ChildServer[]): Promise<Map<string, ScanFigures>> {
  const expected = await liveCount();
  const memory = scanned.map((server) => {
    const pid = server.child.pid!;
    resetPeak(pid);
    const startMb = memoryOf(pid).rssMb;
    return { pid, startMb, polled: startMb };
  });
  const poll = setInterval(() => {
    for (const m of memory) m.polled = Math.max(m.polled, memoryOf(m.pid).rssMb);
  }, 100);
  try {
    const scans = scanned.map((server) => new Scan(server, `/v1/products?sync=true&pageSize=100${syncQueryOf(server)}`));
    const log = syncQueryOf(scanned[0]!) === '' && scanned.every((s) => syncQueryOf(s) === '') ? null : await changeLogCounts();
    await lockstep(scans);
    const figures = new Map<string, ScanFigures>();
    for (const [i, scan] of scans.entries()) {
      const feed = syncQueryOf(scan.server) !== '';
      const wanted = feed ? expected + log!.linked : expected;
      if (scan.count !== wanted) throw new Error(`${scan.server.name}: full scan returned ${scan.count} products, expected ${wanted}`);
      if (feed && scan.tombstones !== log!.tombstones)
        throw new Error(`${scan.server.name}: full scan returned ${scan.tombstones} tombstones, expected ${log!.tombstones}`);
      if (!feed && scan.tombstones !== 0) throw new Error(`${scan.server.name}: a plain scan returned tombstones`);
      const m = memory[i]!;
      figures.set(scan.server.name, {
        count: scan.count + scan.tombstones,
        seconds: scan.seconds,
        // entries/s: the feed's tombstones are entries a client reads like products
        rate: (scan.count + scan.tombstones) / scan.seconds,
        peakMb: memoryOf(m.pid).hwmMb,
        polledMb: Math.max(m.polled, memoryOf(m.pid).rssMb),
        startMb: m.startMb,
      });
    }
    return figures;
  } finally {
    clearInterval(poll);
  }
}

/** The keyset SQL alone, in this process over one connection: the scan's floor without HTTP or media. */
async function inProcessScan(): Promise<ScanFigures> {
  const started = performance.now();
  const iso = (c: string) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const columns = `p.id, p.name, p.spu, p.description, p.status, p.brand_id, p.category_id, p.owner_id, ${iso('p.published_at')} as published_at,
    ${iso('p.created_at')} as created_at, ${iso('p.updated_at')} as updated_at, p.draft_reason, p.template_id, p.template_version_id,
    p.template_fields, p.media_fields, p.cover_file_id, p.image_file_ids, p.related_file_ids`;
  const { upper } = await one<{ upper: string }>(`select ${iso(`(now() - interval '30 seconds')`)} as upper`);
  let after: { updated_at: string; id: number } | null = null;
  let count = 0;
  for (;;) {
    const rows: Array<{ updated_at: string; id: number }> = (
      await db.query({
        name: after === null ? 'scan-first' : 'scan-next',
        text: `select ${columns} from products p where p.team_id = $1 and p.deleted_at is null and p.updated_at < $2::timestamptz
               ${after === null ? '' : 'and (p.updated_at, p.id) > ($4::timestamptz, $5)'} order by p.updated_at, p.id limit $3`,
        values: after === null ? [teamId, upper, 101] : [teamId, upper, 101, after.updated_at, after.id],
      })
    ).rows;
    const page = rows.slice(0, 100);
    count += page.length;
    if (rows.length <= 100) break;
    after = page[page.length - 1]!;
  }
  const seconds = (performance.now() - started) / 1000;
  return { count, seconds, rate: count / seconds, peakMb: NaN, polledMb: NaN, startMb: NaN };
}

/** 1,000 random live products changed just before now() - 30 s, then a scan from just below them. */
async function incremental(server: ChildServer): Promise<{ seconds: number; rate: number }> {
  const { t } = await one<{ t: string }>(
    `with range as (select min(id) as lo, max(id) - min(id) as span from products where team_id = $1),
     picked as (
       select id from products where team_id = $1 and deleted_at is null
          and id = any(array(select lo + floor(random() * span)::int from range, generate_series(1, $2::int * 13 / 10)))
        order by id limit $2::int
     ), changed as (
       update products p set updated_at = now() - interval '30 seconds' - (row_number * interval '1 microsecond')
         from (select id, row_number() over (order by id) as row_number from picked) x where p.id = x.id returning p.id
     )
     select to_char((now() - interval '30 seconds' - ($2::int + 1) * interval '1 microsecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t
       from (select count(*) from changed) c`,
    [teamId, CHANGED],
  );
  const started = performance.now();
  const scan = new Scan(server, `/v1/products?sync=true&pageSize=100&updatedAfter=${t}${syncQueryOf(server)}`);
  await lockstep([scan]);
  const seconds = (performance.now() - started) / 1000;
  if (scan.count !== CHANGED) throw new Error(`${server.name}: incremental sync returned ${scan.count} products, expected ${CHANGED}`);
  return { seconds, rate: scan.count / seconds };
}

/**
 * Waits (at most 60 s) until no statement of the benchmark database is running: a floor's counts
 * go on after autocannon stops or times out, and must not load the next server's measurement.
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { n } = await one<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
    );
    if (n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// --- the run ---

function syncQueryOf(server: ChildServer): string {
  return targets.find((t) => t.name === server.name)?.syncQuery ?? '';
}

const servers: ChildServer[] = [];
const partsOf = new Map<string, string[]>(targets.map((t) => [t.name, t.parts ?? PARTS]));
/** The servers measured in `part`, in the round's order. */
const measured = (part: string, round: number) => orderOf(round).filter((s) => partsOf.get(s.name)!.includes(part));
const orderOf = (round: number) => (round % 2 === 1 ? servers : [...servers].reverse());
const loads: Array<{ phase: string; load: number }> = [{ phase: 'start', load: loadavg()[0]! }];
const scans = new Map<string, ScanFigures[]>();
const incrementals = new Map<string, Array<{ seconds: number; rate: number }>>();
const listFigures = new Map<string, LoadFigures[]>();
const push = <T>(map: Map<string, T[]>, name: string, value: T) => map.set(name, [...(map.get(name) ?? []), value]);

try {
  for (const target of targets) {
    servers.push(
      await startChildServer(target.name, target.script, {
        env: { ...env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL, ...target.env },
        execArgv: target.execArgv,
      }),
    );
  }
  await checkSameResponses();

  if (PARTS.includes('scan')) {
    for (let round = 1; round <= SCAN_ROUNDS; round++) {
      for (const [name, figures] of await fullScans(measured('scan', round))) {
        push(scans, name, figures);
        console.error(
          `scan round ${round} ${name.padEnd(20)} ${figures.rate.toFixed(0).padStart(7)} products/s  ${figures.seconds.toFixed(1)} s  RSS ${figures.startMb.toFixed(0)} MB at start, peak ${figures.peakMb.toFixed(0)} MB (polled ${figures.polledMb.toFixed(0)})`,
        );
      }
      const raw = await inProcessScan();
      push(scans, 'in-process SQL', raw);
      console.error(`scan round ${round} in-process SQL       ${raw.rate.toFixed(0).padStart(7)} rows/s`);
      loads.push({ phase: `scan round ${round}`, load: loadavg()[0]! });
    }
  }

  if (PARTS.includes('incremental')) {
    for (let round = 1; round <= INCREMENTAL_ROUNDS; round++) {
      for (const server of measured('incremental', round)) {
        const figures = await incremental(server);
        push(incrementals, server.name, figures);
        console.error(`incremental round ${round} ${server.name.padEnd(20)} ${(figures.seconds * 1000).toFixed(0)} ms  ${figures.rate.toFixed(0)} products/s`);
      }
    }
    loads.push({ phase: 'incremental', load: loadavg()[0]! });
  }

  if (PARTS.includes('list')) {
    const loadOptions = { connections: CONNECTIONS, headers };
    for (const list of lists) {
      for (const server of measured('list', 1)) {
        await settle();
        await load(server.baseUrl + list.path, { ...loadOptions, seconds: WARMUP_SECONDS });
      }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const list of lists) {
        for (const server of measured('list', round)) {
          await settle();
          const result = await load(server.baseUrl + list.path, { ...loadOptions, seconds: SECONDS });
          push(listFigures, `${server.name} ${list.name}`, result);
          console.error(
            `list round ${round} ${`${server.name} ${list.name}`.padEnd(28)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms` +
              (result.failed > 0 ? `  FAILED ${result.failed}` : ''),
          );
        }
      }
      loads.push({ phase: `list round ${round}`, load: loadavg()[0]! });
    }
  }

  printReport();
} finally {
  for (const server of servers) await server.stop();
  await db.end();
}

/** Both servers must serve the same pages (links, cursors and syncedUntil aside: they carry times and signatures), or the comparison means nothing. */
async function checkSameResponses(): Promise<void> {
  const normalize = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(normalize);
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([k]) => k !== 'requestId')
        .map(
          ([k, v]) =>
            [
              k,
              ['previewUrl', 'downloadUrl', 'downloadUrlExpiresAt', 'nextCursor', 'syncedUntil'].includes(k) && typeof v === 'string' ? `<${k}>` : normalize(v),
            ] as const,
        );
      return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    return value;
  };
  const paths = [...lists.map((l) => l.path), '/v1/products?sync=true&pageSize=100'];
  for (const path of paths) {
    const answers = await Promise.all(servers.map(async (server) => JSON.stringify(normalize(await getPage(server.baseUrl + path)))));
    const differing = answers.findIndex((a) => a !== answers[0]);
    if (differing !== -1) {
      throw new Error(`servers answer ${path} differently:\n${answers.map((a, i) => `${servers[i]!.name}: ${a.slice(0, 1500)}`).join('\n')}`);
    }
  }
  // the links themselves: the same URL shape on both (they differ only in expiry second and signature)
  const sample = await Promise.all(
    servers.map(async (s) => ((await getPage(s.baseUrl + lists[0]!.path)).data[0] as unknown as { cover: { previewUrl: string } }).cover.previewUrl),
  );
  console.error(`every server serves the same pages (links aside: ${sample.map((u) => u.replace(/sig=.*/, 'sig=...')).join(' | ')})`);
}

function printReport(): void {
  const shelf = servers[0]!.name;
  const floor = 'raw';
  const mb = (v: number) => (Number.isNaN(v) ? '' : v.toFixed(0));
  const lines = [
    `Run ${new Date().toISOString()}: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, database ${PRODUCTS_DB}; ` +
      `1-min load average ${loads.map((l) => `${l.load.toFixed(1)} (${l.phase})`).join(', ')}.`,
    '',
  ];
  const verdicts: string[] = [];
  if (scans.size > 0) {
    lines.push(
      `Full sync scan (pageSize 100, ${SCAN_ROUNDS} rounds, one request at a time):`,
      '',
      '| server | products/s (median) | seconds (median) | products/s per round | RSS MB at scan start | peak RSS MB (max VmHWM) | max polled VmRSS MB | vs raw |',
      '|---|---:|---:|---|---:|---:|---:|---:|',
    );
    const rateOf = (name: string) => median(scans.get(name)!.map((f) => f.rate));
    for (const [name, figures] of scans) {
      const ratio = name === floor ? '' : `${((rateOf(name) / rateOf(floor)) * 100).toFixed(0)}%`;
      lines.push(
        `| ${name} | ${rateOf(name).toFixed(0)} | ${median(figures.map((f) => f.seconds)).toFixed(1)} | ${figures.map((f) => f.rate.toFixed(0)).join(' / ')} | ` +
          `${mb(Math.max(...figures.map((f) => f.startMb)))} | ${mb(Math.max(...figures.map((f) => f.peakMb)))} | ${mb(Math.max(...figures.map((f) => f.polledMb)))} | ${ratio} |`,
      );
    }
    const rate = rateOf(shelf);
    const ratio = rate / rateOf(floor);
    const rss = Math.max(...scans.get(shelf)!.map((f) => f.peakMb));
    verdicts.push(
      `full sync: ${rate.toFixed(0)} products/s (target >= ${TARGET_SCAN_RATE}: ${rate >= TARGET_SCAN_RATE ? 'met' : 'MISSED'}), ` +
        `${(ratio * 100).toFixed(0)}% of the raw HTTP floor (target >= ${(TARGET_SCAN_RATIO * 100).toFixed(0)}%: ${ratio >= TARGET_SCAN_RATIO ? 'met' : 'MISSED'}), ` +
        `peak RSS ${rss.toFixed(0)} MB (target < ${TARGET_RSS_MB}: ${rss < TARGET_RSS_MB ? 'met' : 'MISSED'})`,
    );
    lines.push('');
  }
  if (incrementals.size > 0) {
    lines.push(
      `Incremental sync of ${CHANGED} changed products (pageSize 100, ${INCREMENTAL_ROUNDS} rounds):`,
      '',
      '| server | ms (median) | products/s (median) | ms per round | vs raw (time) |',
      '|---|---:|---:|---|---:|',
    );
    const msOf = (name: string) => median(incrementals.get(name)!.map((f) => f.seconds * 1000));
    for (const [name, figures] of incrementals) {
      lines.push(
        `| ${name} | ${msOf(name).toFixed(0)} | ${median(figures.map((f) => f.rate)).toFixed(0)} | ${figures.map((f) => (f.seconds * 1000).toFixed(0)).join(' / ')} | ` +
          `${name === floor ? '' : `${(msOf(name) / msOf(floor)).toFixed(2)}x`} |`,
      );
    }
    lines.push('');
  }
  if (listFigures.size > 0) {
    lines.push(
      `GET /v1/products?pageSize=20 with ${CONNECTIONS} connections (${ROUNDS} rounds x ${SECONDS} s after ${WARMUP_SECONDS} s warm-up):`,
      '',
      '| list | server | req/s (median) | p50 ms | p99 ms | req/s per round | vs raw req/s | p99 / raw p99 |',
      '|---|---|---:|---:|---:|---|---:|---:|',
    );
    for (const list of lists) {
      const of = (name: string) => listFigures.get(`${name} ${list.name}`)!;
      const med = (name: string, pick: (f: LoadFigures) => number) => median(of(name).map(pick));
      for (const [i, server] of measured('list', 1).entries()) {
        const isFloor = server.name === floor;
        lines.push(
          `| ${i === 0 ? list.label : ''} | ${server.name} | ${med(server.name, (f) => f.rps).toFixed(0)} | ${med(server.name, (f) => f.p50).toFixed(0)} | ` +
            `${med(server.name, (f) => f.p99).toFixed(0)} | ${of(server.name)
              .map((f) => f.rps.toFixed(0))
              .join(' / ')} | ` +
            `${isFloor ? '' : `${((med(server.name, (f) => f.rps) / med(floor, (f) => f.rps)) * 100).toFixed(0)}%`} | ` +
            `${isFloor ? '' : (med(server.name, (f) => f.p99) / med(floor, (f) => f.p99)).toFixed(2)} |`,
          // ratios in this table are against raw (counting on every request); the verdicts below also give raw-memo's
        );
      }
      const failed = of(shelf).reduce((m, f) => m + f.failed, 0);
      for (const yardstick of measured('list', 1)
        .filter((s) => s.name.startsWith('raw'))
        .map((s) => s.name)) {
        const ratio = med(shelf, (f) => f.rps) / med(yardstick, (f) => f.rps);
        // no successful request has no p99: that is a miss, not a p99 of 0
        const p99 = med(shelf, (f) => f.rps) > 0 ? med(shelf, (f) => f.p99) / med(yardstick, (f) => f.p99) : Infinity;
        verdicts.push(
          `list ${list.label}: ${(ratio * 100).toFixed(0)}% of ${yardstick} req/s (target >= ${TARGET_LIST_RATIO * 100}%: ${ratio >= TARGET_LIST_RATIO ? 'met' : 'MISSED'}), ` +
            `p99 ${p99.toFixed(2)}x ${yardstick} (target <= ${TARGET_P99_FACTOR}x: ${p99 <= TARGET_P99_FACTOR ? 'met' : 'MISSED'})` +
            (failed > 0 ? `; ${failed} of ${shelf}'s requests FAILED` : ''),
        );
      }
    }
    lines.push('');
  }
  lines.push(...verdicts.map((v) => `- ${v}`));
  console.log(lines.join('\n'));
}
