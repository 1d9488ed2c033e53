/**
 * Asset lookup benchmark (issue 16): `GET /v1/assets?name=<substring>` on the 1,000,000-file
 * benchmark library, over real HTTP against Shelf's app in a child process, with two floors measured
 * in the same run.
 *
 *   npm run -s bench:asset-lookup        (node bench/asset-lookup.bench.ts)
 *
 * Data: the asset-search library `shelf_bench_search` (bench/search-generate.ts,
 * bench/support/search-seed.ts): reused when it exists, otherwise generated (about 20 minutes) and
 * kept. Its file names are `<adjective>-<noun>-<n>.<ext>` (skewed vocabularies), plus 2,000
 * `real-photo-<n>.png` and one `big-photo.jpg`.
 *
 * Query kinds (each request draws one of its kind's substrings and a page, see KINDS; the match
 * counts are measured and printed): common substrings (5-35 % of the files), mid (0.8-5 %), rare (1 to
 * 1,111 files), no match with rare trigrams, no match made of common trigrams, and "mixed" (each
 * request a kind at random: the overall figure). Pages 1, 2, 3 or 5 of 20 (the default pageSize), one request in five pageSize 100.
 *
 * Per kind, back to back so the shared machine's drifts hit them alike:
 * - Shelf: GET /v1/assets?name=... with the seed's view_only key, BENCH_CONNECTIONS keep-alive
 *   clients in a closed loop for BENCH_SECONDS after BENCH_WARMUP_SECONDS;
 * - bare SQL: the route's statements (count and page in parallel, then the page's media rows)
 *   through a pg pool of 10 (the app's size), same concurrency, same draws;
 * - bare SQL, the count alone (which of the two statements the time is);
 * and once per concurrency level the HTTP floor: GET /v1/assets?ids=<one id> (auth, routing, one
 * indexed row, the envelope). Concurrency levels: BENCH_CONCURRENCY (default "1,16": one request at
 * a time, and the 16 clients of bench/search.bench.ts). Target: p95 < 50 ms.
 * With BENCH_EXPLAIN=1 (the default) it also prints EXPLAIN (ANALYZE, BUFFERS) of the count and
 * the page for one substring of each kind, and times (median of 5, one client) the exact count
 * against a count capped at 1,001 rows, the cheapest change to the route's statements. Markdown on stdout, progress on stderr; only 127.0.0.1.
 */
import http from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { escapeLike } from '../src/core/platform/sql.ts';
import { databaseUrlNamed } from './support/brand-seed.ts';
import { startChildServer, type ChildServer } from './support/child-server.ts';
import { serviceNodeFlags } from './support/service-flags.ts';
import { BENCH_DATABASE, generateSearchDatabase } from './search-generate.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 2);
const LEVELS = (env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
const EXPLAIN = env.BENCH_EXPLAIN !== '0';
const TARGET_P95_MS = 50;
const SECRET = 'bench-search-secret-bench-search-secret';
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', BENCH_DATABASE);

interface Facts {
  teamId: number;
  key: string;
  files: number;
  storageDir: string;
}

/** The substrings of each kind; their match counts are measured and printed (the kinds are checked against them). */
const KINDS: Record<string, string[]> = {
  'common (5-35 % of files)': ['red', 'blue-', 'shoe', '.jpg', '.mp4'],
  'mid (0.8-5 %)': ['summer', 'lemon', 'guitar', 'ocean'],
  'rare (1 to 1,111 files)': ['-424242.', 'tent-777', 'real-photo-1', 'sock-4', 'big-photo', 'night-bag'],
  'no match, rare trigrams': ['zebra', 'xylophone', 'qwerty', 'kangaroo-9', 'mañana'],
  'no match, common trigrams': ['shoe-red', 'bag-blue', 'dress-summer', 'red-shoe-.', 'jpg-red'],
};

const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;
const drawPage = () => ({ page: pick([1, 2, 3, 5]), pageSize: Math.random() < 0.2 ? 100 : 20 });

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Figures {
  n: number;
  p50: number;
  p95: number;
  rps: number;
  failed: number;
}

/** Runs `once` from `workers` concurrent loops for `seconds`; latencies of successful calls. */
async function closedLoop(seconds: number, workers: number, once: () => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const ok = await once();
        if (ok) latencies.push(performance.now() - t);
        else failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { n: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95), rps: latencies.length / elapsed, failed };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let firstFailure: string | null = null;

function get(base: string, path: string, key: string): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  return new Promise((done, fail) => {
    const req = http.request(
      { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET', headers: { authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', fail);
    req.end();
  });
}

async function openDatabase(): Promise<Facts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query('select facts from bench_seed');
    console.error(`reusing ${BENCH_DATABASE}`);
    return rows[0].facts as Facts;
  } catch {
    console.error(`${BENCH_DATABASE} is missing: generating it (kept afterwards)`);
  } finally {
    await client.end().catch(() => {});
  }
  const { facts } = await generateSearchDatabase({ files: 1_000_000, realImages: 2000, storageDir: resolve(env.STORAGE_DIR ?? './data/bench-search') });
  return facts as Facts;
}

/** The route's statements (src/core/assets/files/asset-lookup.ts, name filter only; LibraryService.mediaFor), `$n` placeholders. */
const FROM = `from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
  where f.team_id = $1 and f.deleted_at is null and lower(f.name) like $2 escape '\\'`;
const COUNT_SQL = `select count(*)::int as n ${FROM}`;
const PAGE_SQL = `select f.id, f.object_id as "assetId", f.name, coalesce(d.path, '/') as "folderPath" ${FROM} order by f.id limit $3 offset $4`;
const MEDIA_SQL = `select id, name, mime_type as "mimeType", byte_size::text as size, width, height, duration_ms::float8 as "durationMs"
  from library_files where team_id = $1 and deleted_at is null and id = any($2::int[])`;
const pattern = (name: string) => `%${escapeLike(name.toLowerCase())}%`;

type Draw = { name: string; page: number; pageSize: number };
const drawOf = (kind: string): Draw => {
  const names = kind === 'mixed' ? KINDS[pick(Object.keys(KINDS))]! : KINDS[kind]!;
  return { name: pick(names), ...drawPage() };
};

async function shelfOnce(server: ChildServer, key: string, kind: string): Promise<boolean> {
  const d = drawOf(kind);
  const res = await get(server.baseUrl, `/v1/assets?name=${encodeURIComponent(d.name)}&page=${d.page}&pageSize=${d.pageSize}`, key);
  if (res.status !== 200 && firstFailure === null) firstFailure = `${res.status} ${res.text.slice(0, 300)}`;
  return res.status === 200;
}

async function countOnce(pool: pg.Pool, teamId: number, kind: string): Promise<boolean> {
  await pool.query(COUNT_SQL, [teamId, pattern(drawOf(kind).name)]);
  return true;
}

async function bareOnce(pool: pg.Pool, teamId: number, kind: string): Promise<boolean> {
  const d = drawOf(kind);
  const like = pattern(d.name);
  const [, page] = await Promise.all([pool.query(COUNT_SQL, [teamId, like]), pool.query(PAGE_SQL, [teamId, like, d.pageSize, (d.page - 1) * d.pageSize])]);
  const ids = page.rows.map((r) => r.id as number);
  if (ids.length > 0) await pool.query(MEDIA_SQL, [teamId, `{${ids.join(',')}}`]);
  return true;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

const facts = await openDatabase();
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const serverEnv = { ...env, DATABASE_URL: databaseUrl, STORAGE_DIR: facts.storageDir, LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
const server = await startChildServer('shelf', new URL('./servers/shelf-server.ts', import.meta.url), { env: serverEnv, execArgv: serviceNodeFlags() });
try {
  const total = Number((await pool.query('select count(*) from library_files where team_id = $1 and deleted_at is null', [facts.teamId])).rows[0].count);
  const matches: Array<{ kind: string; name: string; n: number }> = [];
  for (const [kind, names] of Object.entries(KINDS)) {
    for (const name of names) matches.push({ kind, name, n: (await pool.query(COUNT_SQL, [facts.teamId, pattern(name)])).rows[0].n as number });
  }
  console.error(`${total} live files; matches: ${matches.map((m) => `${m.name} ${m.n}`).join(', ')}`);
  const oneId = (await pool.query('select min(id) as id from library_files where team_id = $1 and deleted_at is null', [facts.teamId])).rows[0].id as number;
  const floorOnce = async () => (await get(server.baseUrl, `/v1/assets?ids=${oneId}`, facts.key)).status === 200;
  // the answer's shape, once: a full page, and the total the route gives is the bare SQL's count
  const probe = JSON.parse((await get(server.baseUrl, `/v1/assets?name=lemon&page=2`, facts.key)).text);
  const bareTotal = (await pool.query(COUNT_SQL, [facts.teamId, pattern('lemon')])).rows[0].n;
  if (probe.pagination?.totalCount !== bareTotal || probe.data?.length !== 20) {
    throw new Error(`the route's total for "lemon" (${JSON.stringify(probe.pagination)}) is not the bare count ${bareTotal}`);
  }

  const kinds = [...Object.keys(KINDS), 'mixed'];
  const results: Array<{ level: number; floor: Figures; rows: Array<{ kind: string; shelf: Figures; bare: Figures; count: Figures }> }> = [];
  for (const level of LEVELS) {
    await closedLoop(WARMUP_SECONDS, level, floorOnce);
    const floor = await closedLoop(SECONDS, level, floorOnce);
    console.error(`  c=${level} HTTP floor (GET /v1/assets?ids=${oneId}): p50 ${ms(floor.p50)}, p95 ${ms(floor.p95)} (${floor.n} requests)`);
    const rows: Array<{ kind: string; shelf: Figures; bare: Figures; count: Figures }> = [];
    for (const kind of kinds) {
      await closedLoop(WARMUP_SECONDS, level, () => shelfOnce(server, facts.key, kind));
      const shelf = await closedLoop(SECONDS, level, () => shelfOnce(server, facts.key, kind));
      await closedLoop(WARMUP_SECONDS, level, () => bareOnce(pool, facts.teamId, kind));
      const bare = await closedLoop(SECONDS, level, () => bareOnce(pool, facts.teamId, kind));
      const count = await closedLoop(SECONDS, level, () => countOnce(pool, facts.teamId, kind));
      console.error(
        `  c=${level} ${kind}: Shelf p50 ${ms(shelf.p50)}, p95 ${ms(shelf.p95)} (${shelf.n} requests, ${shelf.failed} failed); bare SQL p50 ${ms(bare.p50)}, p95 ${ms(bare.p95)} (${bare.n}); count alone p50 ${ms(count.p50)}, p95 ${ms(count.p95)}`,
      );
      rows.push({ kind, shelf, bare, count });
    }
    results.push({ level, floor, rows });
  }
  if (firstFailure) console.error(`first failed request: ${firstFailure}`);

  console.log(
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end; Node ${process.version}; ${total} live files; ${SECONDS} s per measurement after ${WARMUP_SECONDS} s warm-up.\n`,
  );
  console.log('Substrings and their matches (live files):\n');
  console.log('| kind | substring: files matching |');
  console.log('|---|---|');
  for (const kind of Object.keys(KINDS))
    console.log(
      `| ${kind} | ${matches
        .filter((m) => m.kind === kind)
        .map((m) => `\`${m.name}\`: ${m.n}`)
        .join(', ')} |`,
    );
  for (const { level, floor, rows } of results) {
    console.log(
      `\n${level} client${level === 1 ? '' : 's'} in a closed loop. HTTP floor GET /v1/assets?ids=<one id>: p50 ${ms(floor.p50)}, p95 ${ms(floor.p95)} (${floor.rps.toFixed(0)} requests/s).\n`,
    );
    console.log(
      `| kind | Shelf p50 / p95 | requests/s | bare SQL p50 / p95 | ratio Shelf / bare SQL p50 / p95 | bare count alone p50 / p95 | Shelf p95 / HTTP floor p95 | target p95 < ${TARGET_P95_MS} ms |`,
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const { kind, shelf, bare, count } of rows) {
      const label = kind === 'mixed' ? '**overall (mixed: a kind at random per request)**' : kind;
      console.log(
        `| ${label} | ${ms(shelf.p50)} / ${ms(shelf.p95)} | ${shelf.rps.toFixed(1)} | ${ms(bare.p50)} / ${ms(bare.p95)} | ${(shelf.p50 / bare.p50).toFixed(2)} / ${(shelf.p95 / bare.p95).toFixed(2)} | ${ms(count.p50)} / ${ms(count.p95)} | ${(shelf.p95 / floor.p95).toFixed(1)} | ${shelf.p95 < TARGET_P95_MS ? 'met' : 'MISSED'} |`,
      );
    }
  }

  if (EXPLAIN) {
    console.log("\nEXPLAIN (ANALYZE, BUFFERS) of the route's count and page 1 (pageSize 20), one substring per kind:\n");
    for (const kind of Object.keys(KINDS)) {
      const name = KINDS[kind]![0]!;
      for (const [label, sql, params] of [
        ['count', COUNT_SQL, [facts.teamId, pattern(name)]],
        ['page 1', PAGE_SQL, [facts.teamId, pattern(name), 20, 0]],
      ] as const) {
        const plan = (await pool.query(`explain (analyze, buffers, costs off) ${sql}`, [...params])).rows.map((r) => r['QUERY PLAN'] as string);
        console.log(`${kind}, \`${name}\`, ${label}:\n\n\`\`\`\n${plan.join('\n')}\n\`\`\`\n`);
      }
    }
    const CAPPED_SQL = `select count(*)::int as n from (select 1 from library_files f where f.team_id = $1 and f.deleted_at is null and lower(f.name) like $2 escape '\\' limit 1001) m`;
    const timed = async (sql: string, params: unknown[]) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await pool.query(sql, params);
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[2]!;
    };
    console.log("Exact count (the route's) against a count capped at 1,001 rows (no folder join), median of 5, one client:\n");
    console.log('| substring | files matching | exact count | capped count |');
    console.log('|---|---|---|---|');
    for (const kind of Object.keys(KINDS)) {
      for (const name of KINDS[kind]!.slice(0, 2)) {
        const params = [facts.teamId, pattern(name)];
        console.log(
          `| \`${name}\` (${kind}) | ${matches.find((m) => m.name === name)!.n} | ${ms(await timed(COUNT_SQL, params))} | ${ms(await timed(CAPPED_SQL, params))} |`,
        );
      }
    }
  }
} finally {
  await server.stop();
  await pool.end();
  agent.destroy();
}
