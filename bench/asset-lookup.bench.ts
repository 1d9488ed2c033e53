/**
 * Asset lookup benchmark: `GET /v1/assets?name=<substring>` on the 1,000,000-file
 * benchmark library, over real HTTP against Shelf's app in a child process, with two floors measured
 * in the same run.
 *
 *   npm run -s bench:asset-lookup        (node bench/asset-lookup.bench.ts)
 *
 * Data: the asset-search library `shelf_bench_search` (bench/search-generate.ts,
 * bench/support/search-seed.ts): reused when it exists, otherwise generated (about 25 minutes) and
 * kept. Its file names are `<adjective>-<noun>-<n>.<ext>` (skewed vocabularies), plus 2,000
 * `real-photo-<n>.png` and one `big-photo.jpg`. The route reads names from the narrow table
 * library_file_names; the run stops at once when that table does not hold every live file.
 *
 * Query kinds (each request draws one of its kind's substrings and a page, see KINDS; the match
 * counts are measured and printed): common substrings (5-35 % of the files), mid (0.8-5 %), rare (1 to
 * 1,111 files), no match with rare trigrams, no match made of common trigrams, and "mixed" (each
 * request a kind at random: the overall figure). Pages 1, 2, 3 or 5 of 20 (the default pageSize), one request in five pageSize 100.
 *
 * Per concurrency level and kind, back to back so the shared machine's drifts hit them alike, each
 * for BENCH_SECONDS after BENCH_WARMUP_SECONDS, with BENCH_CONNECTIONS keep-alive clients in a closed loop:
 * - the HTTP floor: GET /v1/assets?ids=<one id> (auth, routing, the library version, one indexed
 *   row, its media row, the envelope), measured again before every kind, which is compared with it;
 * - Shelf: GET /v1/assets?name=... with the seed's view_only key;
 * - bare SQL: the route's statements for a name alone (src/core/assets/files/asset-lookup.ts,
 *   LibraryService.mediaFor) through a pg pool of 10 (the app's size), same draws, with the same
 *   memo logic: the library version, then the name's count and ids (one statement, kept per version
 *   and pattern, concurrent misses sharing one computation), then the page (a slice of the ids, or
 *   the narrow table walked by id), then the page's media rows.
 * Then, at the levels of BENCH_COLD (default "1"; "" for none), the same alternation for the mixed
 * kind with the memo off (bench/servers/search-server.ts, SEARCH_TOTALS_MEMO=off; bare SQL without
 * its memo): what the first lookup of a substring costs. Concurrency levels: BENCH_CONCURRENCY
 * (default "1,16"). Targets: p95 < 50 ms, and p95 within 1.5x the HTTP floor's.
 * With BENCH_EXPLAIN=1 (the default) it also prints EXPLAIN (ANALYZE, BUFFERS) of the name's
 * count-and-ids statement and of page 5 (pageSize 100) for one substring of each kind.
 * Markdown on stdout, progress on stderr; only 127.0.0.1.
 */
import http from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE } from '../src/core/assets/versions/version-lines.queries.ts';
import { escapeLike } from '../src/core/platform/sql.ts';
import { BENCH_DATABASE, generateSearchDatabase } from './search-generate.ts';
import { databaseUrlNamed } from './support/brand-seed.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 2);
const LEVELS = (env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
const COLD_LEVELS = (env.BENCH_COLD ?? '1')
  .split(',')
  .filter((v) => v !== '')
  .map(Number);
const EXPLAIN = env.BENCH_EXPLAIN !== '0';
const TARGET_P95_MS = 50;
const TARGET_FLOOR_RATIO = 1.5;
/** The route's FEW_NAME_MATCHES and NAME_MATCH_IDS_MAX (src/core/assets/files/asset-lookup.ts). */
const FEW_NAME_MATCHES = 2_000;
const NAME_MATCH_IDS_MAX = 100_000;
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

/** The route's statements for a name alone (src/core/assets/files/asset-lookup.ts; LibraryService.mediaFor), `$n` placeholders. */
const VERSION_SQL = 'select coalesce((select v.version from library_versions v where v.team_id = $1), 0)::text as version';
const NARROW = "from library_file_names n where n.team_id = $1 and n.lname like $2 escape '\\'";
const COUNT_SQL = `select count(*)::int as n ${NARROW}`;
const IDS_SQL = `select array_agg(n.file_id) as ids ${NARROW}`;
const PAGE_COLUMNS = `select f.id, f.object_id as "assetId", f.name, coalesce(d.path, '/') as "folderPath"
  from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id`;
const PAGE_BY_IDS_SQL = `${PAGE_COLUMNS} where f.id = any($1::int[]) and f.team_id = $2 and f.deleted_at is null order by f.id limit $3 offset 0`;
const PAGE_BY_NARROW_SQL = `${PAGE_COLUMNS} where f.id = any(array(select n.file_id ${NARROW})) and f.team_id = $1 and f.deleted_at is null order by f.id limit $3 offset $4`;
const PAGE_WALKED_SQL = `${PAGE_COLUMNS} where f.id = any(array(select n.file_id ${NARROW} order by n.file_id limit $3 offset $4)) and f.team_id = $1 and f.deleted_at is null order by f.id limit $3 offset 0`;
const MEDIA_SQL = `select r.id as requested, f.id, f.name, f.mime_type as "mimeType", f.byte_size::text as size, f.width, f.height, f.duration_ms::float8 as "durationMs"
  from ${VISIBLE_FROM} join library_files f on f.team_id = r.team_id and f.deleted_at is null and f.id = ${VISIBLE_ID}
  where r.team_id = $1 and r.id = any($2::int[]) and ${VISIBLE_WHERE}`;
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

const countOf = async (pool: pg.Pool, teamId: number, like: string) => (await pool.query(COUNT_SQL, [teamId, like])).rows[0].n as number;
const idsOf = async (pool: pg.Pool, teamId: number, like: string) =>
  Int32Array.from(((await pool.query(IDS_SQL, [teamId, like])).rows[0].ids ?? []) as number[]).sort();

/** The route's memos (platform/versioned-memo.ts): by library version and key, concurrent misses sharing one computation. */
class BareMemo<T> {
  private readonly kept = new Map<string, T>();
  private readonly running = new Map<string, Promise<T>>();
  has(key: string): boolean {
    return this.kept.has(key);
  }
  async get(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.kept.has(key)) return this.kept.get(key)!;
    let running = this.running.get(key);
    if (!running) {
      running = compute().then((value) => (this.kept.set(key, value), value));
      this.running.set(key, running);
      running.finally(() => this.running.delete(key)).catch(() => {});
    }
    return running;
  }
}
const bareCounts = new BareMemo<number>();
const bareIds = new BareMemo<Int32Array>();

async function bareOnce(pool: pg.Pool, teamId: number, kind: string, memo: boolean): Promise<boolean> {
  const d = drawOf(kind);
  const like = pattern(d.name);
  // the route reads the version even with its memo switched off
  const version = (await pool.query(VERSION_SQL, [teamId])).rows[0].version as string;
  const key = `${version}|${like}`;
  const seenBefore = memo && bareCounts.has(key);
  const count = memo ? await bareCounts.get(key, () => countOf(pool, teamId, like)) : await countOf(pool, teamId, like);
  const offset = (d.page - 1) * d.pageSize;
  if (offset >= count) return true;
  let page: pg.QueryResult;
  if (seenBefore && count <= NAME_MATCH_IDS_MAX) {
    const ids = await bareIds.get(key, () => idsOf(pool, teamId, like));
    page = await pool.query(PAGE_BY_IDS_SQL, [`{${ids.subarray(offset, offset + d.pageSize).join(',')}}`, teamId, d.pageSize]);
  } else if (count <= FEW_NAME_MATCHES) page = await pool.query(PAGE_BY_NARROW_SQL, [teamId, like, d.pageSize, offset]);
  else page = await pool.query(PAGE_WALKED_SQL, [teamId, like, d.pageSize, offset]);
  const ids = page.rows.map((r) => r.id as number);
  if (ids.length > 0) await pool.query(MEDIA_SQL, [teamId, `{${ids.join(',')}}`]);
  return true;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const load = () => loadavg()[0]!.toFixed(1);

const facts = await openDatabase();
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const serverEnv = { ...env, DATABASE_URL: databaseUrl, STORAGE_DIR: facts.storageDir, LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
const serverScript = new URL('./servers/search-server.ts', import.meta.url);
const server = await startChildServer('shelf', serverScript, { env: { ...serverEnv, SEARCH_TOTALS_MEMO: 'on' }, execArgv: serviceNodeFlags() });
const cold =
  COLD_LEVELS.length > 0
    ? await startChildServer('shelf (memo off)', serverScript, { env: { ...serverEnv, SEARCH_TOTALS_MEMO: 'off' }, execArgv: serviceNodeFlags() })
    : null;
const startLoad = loadavg()
  .map((l) => l.toFixed(1))
  .join(' / ');
try {
  const counts = (
    await pool.query(
      `select (select count(*)::int from library_files where team_id = $1 and deleted_at is null) as files, (select count(*)::int from library_file_names where team_id = $1) as names`,
      [facts.teamId],
    )
  ).rows[0] as { files: number; names: number };
  if (counts.names !== counts.files) {
    throw new Error(
      `library_file_names holds ${counts.names} rows for ${counts.files} live files: the route would miss files (fill it as bench/support/search-seed.ts does)`,
    );
  }
  const total = counts.files;
  const matches: Array<{ kind: string; name: string; n: number }> = [];
  for (const [kind, names] of Object.entries(KINDS)) {
    for (const name of names) matches.push({ kind, name, n: await countOf(pool, facts.teamId, pattern(name)) });
  }
  console.error(`${total} live files; matches: ${matches.map((m) => `${m.name} ${m.n}`).join(', ')}`);
  const oneId = (await pool.query('select min(id) as id from library_files where team_id = $1 and deleted_at is null', [facts.teamId])).rows[0].id as number;
  const floorOnce = async () => (await get(server.baseUrl, `/v1/assets?ids=${oneId}`, facts.key)).status === 200;
  // the answer's shape, once per server: a full page, the bare count as the total, and the bare page's ids
  for (const s of [server, ...(cold ? [cold] : [])]) {
    for (const [name, page, pageSize] of [
      ['lemon', 2, 20],
      ['.mp4', 5, 100],
      ['red', 5, 100],
      ['sock-4', 3, 20],
      ['lemon', 3, 100],
      ['sock-4', 3, 20],
    ] as const) {
      const probe = JSON.parse((await get(s.baseUrl, `/v1/assets?name=${encodeURIComponent(name)}&page=${page}&pageSize=${pageSize}`, facts.key)).text);
      const bare = { count: await countOf(pool, facts.teamId, pattern(name)) };
      const walked = (await pool.query(PAGE_WALKED_SQL, [facts.teamId, pattern(name), pageSize, (page - 1) * pageSize])).rows.map((r) => r.id as number);
      const got = (probe.data ?? []).map((item: { id: number }) => item.id);
      if (probe.pagination?.totalCount !== bare.count || JSON.stringify(got) !== JSON.stringify(walked) || got.length === 0) {
        throw new Error(
          `${s.name}: the route's answer for "${name}" page ${page} (${JSON.stringify(probe.pagination)}, ids ${got.slice(0, 5)}...) is not the bare SQL's (${bare.count}, ${walked.slice(0, 5)}...)`,
        );
      }
    }
  }

  type Row = { kind: string; floor: Figures; shelf: Figures; bare: Figures; load: string };
  const measure = async (level: number, kind: string, target: ChildServer, memo: boolean): Promise<Row> => {
    await closedLoop(WARMUP_SECONDS, level, floorOnce);
    const floor = await closedLoop(SECONDS, level, floorOnce);
    await closedLoop(WARMUP_SECONDS, level, () => shelfOnce(target, facts.key, kind));
    const shelf = await closedLoop(SECONDS, level, () => shelfOnce(target, facts.key, kind));
    await closedLoop(WARMUP_SECONDS, level, () => bareOnce(pool, facts.teamId, kind, memo));
    const bare = await closedLoop(SECONDS, level, () => bareOnce(pool, facts.teamId, kind, memo));
    const row = { kind, floor, shelf, bare, load: load() };
    console.error(
      `  c=${level}${memo ? '' : ' memo off'} ${kind}: floor p50 ${ms(floor.p50)}, p95 ${ms(floor.p95)}; Shelf p50 ${ms(shelf.p50)}, p95 ${ms(shelf.p95)} (${shelf.n} requests, ${shelf.failed} failed, ${(shelf.p95 / floor.p95).toFixed(2)}x the floor); bare SQL p50 ${ms(bare.p50)}, p95 ${ms(bare.p95)} (${bare.n}); load ${row.load}`,
    );
    return row;
  };
  const kinds = [...Object.keys(KINDS), 'mixed'];
  const results: Array<{ level: number; rows: Row[]; cold: Row | null }> = [];
  for (const level of LEVELS) {
    const rows: Row[] = [];
    for (const kind of kinds) rows.push(await measure(level, kind, server, true));
    const coldRow = cold && COLD_LEVELS.includes(level) ? await measure(level, 'mixed', cold, false) : null;
    results.push({ level, rows, cold: coldRow });
  }
  if (firstFailure) console.error(`first failed request: ${firstFailure}`);

  console.log(
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${startLoad} at the start, ${loadavg()
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
  for (const { level, rows, cold: coldRow } of results) {
    console.log(`\n${level} client${level === 1 ? '' : 's'} in a closed loop; each kind after its own HTTP floor (GET /v1/assets?ids=<one id>):\n`);
    console.log(
      `| kind | load (1 min) | HTTP floor p50 / p95 | Shelf p50 / p95 | requests/s | **Shelf p95 / floor p95** (target ${TARGET_FLOOR_RATIO}) | bare SQL p50 / p95 | Shelf / bare SQL p50 / p95 | p95 < ${TARGET_P95_MS} ms |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const { kind, floor, shelf, bare, load: rowLoad } of [...rows, ...(coldRow ? [{ ...coldRow, kind: 'cold' }] : [])]) {
      const label = kind === 'mixed' ? '**overall (mixed: a kind at random per request)**' : kind === 'cold' ? '**memo off (cold), mixed**' : kind;
      const ratio = shelf.p95 / floor.p95;
      console.log(
        `| ${label} | ${rowLoad} | ${ms(floor.p50)} / ${ms(floor.p95)} | ${ms(shelf.p50)} / ${ms(shelf.p95)} | ${shelf.rps.toFixed(1)} | ${ratio.toFixed(2)} ${ratio <= TARGET_FLOOR_RATIO ? 'met' : 'MISSED'} | ${ms(bare.p50)} / ${ms(bare.p95)} | ${(shelf.p50 / bare.p50).toFixed(2)} / ${(shelf.p95 / bare.p95).toFixed(2)} | ${shelf.p95 < TARGET_P95_MS ? 'met' : 'MISSED'} |`,
      );
    }
  }

  if (EXPLAIN) {
    console.log(
      "\nEXPLAIN (ANALYZE, BUFFERS) of the route's statements for page 5 (pageSize 100), one substring per kind: the count, and the page as a first lookup reads it and as a repeat does (a slice of the kept ids):\n",
    );
    for (const kind of Object.keys(KINDS)) {
      const name = KINDS[kind]![0]!;
      const like = pattern(name);
      const n = await countOf(pool, facts.teamId, like);
      const statements: Array<[string, string, unknown[]]> = [['count', COUNT_SQL, [facts.teamId, like]]];
      if (n > 400) {
        statements.push(
          n <= FEW_NAME_MATCHES
            ? ["first lookup: page by id from the narrow table's matches", PAGE_BY_NARROW_SQL, [facts.teamId, like, 100, 400]]
            : ['first lookup: the narrow table walked by id', PAGE_WALKED_SQL, [facts.teamId, like, 100, 400]],
        );
        if (n <= NAME_MATCH_IDS_MAX) {
          statements.push(['repeat: the ids, read once per version', IDS_SQL, [facts.teamId, like]]);
          statements.push([
            'repeat: a slice of the kept ids',
            PAGE_BY_IDS_SQL,
            [`{${(await idsOf(pool, facts.teamId, like)).subarray(400, 500).join(',')}}`, facts.teamId, 100],
          ]);
        }
      }
      for (const [label, sql, params] of statements) {
        const plan = (await pool.query(`explain (analyze, buffers, costs off) ${sql}`, params)).rows.map((r) => r['QUERY PLAN'] as string);
        console.log(`${kind}, \`${name}\`, ${label}:\n\n\`\`\`\n${plan.join('\n')}\n\`\`\`\n`);
      }
    }
  }
} finally {
  await server.stop();
  await cold?.stop();
  await pool.end();
  agent.destroy();
}
