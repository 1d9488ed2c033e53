/**
 * Asset search benchmark (search issue): five representative searches at 1,000,000 library files,
 * through Shelf's real HTTP app (a child process) and as the bare SQL of the same searches, plus
 * the processed-image (publicUrl) paths against bare sharp.
 *
 *   node_modules/node/bin/node bench/search.bench.ts
 *
 * Data: bench/support/search-seed.ts (generated into `shelf_bench_search`; BENCH_REUSE_DB=1 reuses it
 * when it exists, BENCH_KEEP_DB=1 keeps it afterwards; see also bench/search-generate.ts).
 * Load: BENCH_CONNECTIONS (16) concurrent keep-alive clients in a closed loop for BENCH_SECONDS (20)
 * per search after BENCH_WARMUP_SECONDS (3); every request draws a variant of its search (keyword,
 * tag pair, colour, folder, size range) and a page (startPoint 0-40, 10 results). The bare SQL runs
 * the statements the service runs (page and count, in parallel) through a pg pool of 10 (the app's
 * size) with the same concurrency. Shelf runs twice: with the memo of totals off (every total
 * counted: "cold") and on (the default). Only 127.0.0.1 is contacted.
 */
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import sharp from 'sharp';
import { ASSET_ROWS } from '../src/core/assets/search/asset-rows.queries.ts';
import { planSearch, searchStatements } from '../src/core/assets/search/asset-search.service.ts';
import { facetStatement } from '../src/core/assets/search/facets.queries.ts';
import { andTagIds, tagFileCountsStatement } from '../src/core/assets/search/narrow-tables.queries.ts';
import { COLOUR_IDS_MAX, colourMatchStatement, type ResolvedFilter, subtreeFoldersStatement } from '../src/core/assets/search/search.queries.ts';
import { MAX_FOLDER_BRANCHES, pageSql } from '../src/core/assets/search/search-pages.queries.ts';
import { BENCH_DATABASE, generateSearchDatabase } from './search-generate.ts';
import { databaseUrlNamed, dropDatabase } from './support/brand-seed.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { cpuMeter } from './support/cpu-time.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 16);
const FILES = Number(env.BENCH_FILES ?? 1_000_000);
const SECRET = 'bench-search-secret-bench-search-secret';
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', BENCH_DATABASE);
const storageDir = resolve(env.STORAGE_DIR ?? './data/bench-search');

interface Facts {
  teamId: number;
  key: string;
  folders: { level1: number[]; level2: number[]; level3: number[] };
  bigJpegId: number;
  files: number;
  storageDir: string;
}

const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;
const page = () => {
  const start = 10 * Math.floor(Math.random() * 5);
  return { startPoint: start, endPoint: start + 10 };
};

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
  /** CPU per request in ms (Shelf runs only): the service process, PostgreSQL, the load generator. */
  cpu?: { server: number; postgres: number; generator: number };
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

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function request(base: string, method: 'GET' | 'POST', path: string, key: string | null, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(path, base);
  return new Promise((done, fail) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', fail);
    if (payload) req.write(payload);
    req.end();
  });
}

async function openDatabase(): Promise<Facts> {
  if (env.BENCH_REUSE_DB === '1') {
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      await client.connect();
      const { rows } = await client.query('select facts from bench_seed');
      await client.end();
      console.error(`reusing ${BENCH_DATABASE}`);
      return rows[0].facts as Facts;
    } catch {
      await client.end().catch(() => {});
    }
  }
  const { facts } = await generateSearchDatabase({ files: FILES, realImages: Number(env.BENCH_REAL_IMAGES ?? 2000), storageDir });
  return facts as Facts;
}

/** The searches' variants, chosen on the data: keywords by how many files they match, the most used tags, etc. */
async function chooseVariants(pool: pg.Pool, facts: Facts) {
  const total = Number((await pool.query('select count(*) from library_files where team_id = $1 and deleted_at is null', [facts.teamId])).rows[0].count);
  const candidates = [
    'sunset',
    'campaign',
    'poster',
    'white',
    'model',
    'summer',
    'watch',
    'studio',
    'castle',
    'tailor',
    'barista',
    'lemon',
    'guitar',
    'festival',
    'harbor',
    'umbrella',
    'wine',
    'lemon-12',
    'tent-777',
    'sofa-4242',
  ];
  const fractions: Array<{ keyword: string; fraction: number }> = [];
  for (const keyword of candidates) {
    const { rows } = await pool.query('select count(*) as n from library_search_texts s where s.team_id = $1 and s.search_text like $2', [
      facts.teamId,
      `%${keyword}%`,
    ]);
    fractions.push({ keyword, fraction: Number(rows[0].n) / total });
  }
  const tags = (
    await pool.query('select tag_id from library_file_tags where team_id = $1 group by tag_id order by count(*) desc limit 8', [facts.teamId])
  ).rows.map((r) => r.tag_id as number);
  const tagPairs: number[][] = [];
  for (let i = 0; i < tags.length; i++) for (let j = i + 1; j < tags.length; j++) tagPairs.push([tags[i]!, tags[j]!]);
  return {
    total,
    fractions,
    keywords: fractions.map((f) => f.keyword),
    broadKeywords: fractions.filter((f) => f.fraction >= 0.05).map((f) => f.keyword),
    tagPairs,
    colours: ['e02020', '2040c0', 'f5f5f5', '30a040', 'f2c94c', '202020'],
    folders: [...facts.folders.level1, ...facts.folders.level2.slice(0, 40)],
  };
}

type Variants = Awaited<ReturnType<typeof chooseVariants>>;

function searches(v: Variants): Record<string, () => Record<string, unknown>> {
  return {
    'keyword DEEP (mixed keywords)': () => ({ keywords: [pick(v.keywords)], ...page() }),
    'keyword DEEP (broad: 5-15 % of files)': () => ({ keywords: [pick(v.broadKeywords)], ...page() }),
    'extensions + size range, sort SIZE': () => ({
      extensions: pick([['jpg', 'png'], ['mp4', 'mov'], ['pdf'], ['jpg']]),
      ...pick([{ minSize: 1_000_000, maxSize: 5_000_000 }, { minSize: 100_000, maxSize: 400_000 }, { minSize: 20_000_000 }]),
      sort: { sortName: 'SIZE', sortType: pick(['ASC', 'DESC']) },
      ...page(),
    }),
    'tags AND (two popular tags)': () => ({ tags: pick(v.tagPairs), tagOrAnd: true, ...page() }),
    colour: () => ({ color: pick(v.colours), ...page() }),
    'folder subtree': () => ({ parentId: pick(v.folders), ...page() }),
  };
}

async function measureShelf(
  server: ChildServer,
  key: string,
  v: Variants,
  bodies: Record<string, () => Record<string, unknown>> = searches(v),
  connections = CONNECTIONS,
): Promise<Record<string, Figures>> {
  const out: Record<string, Figures> = {};
  for (const [name, body] of Object.entries(bodies)) {
    const once = async () => {
      const res = await request(server.baseUrl, 'POST', '/open/search-assets', key, body());
      return res.status === 200;
    };
    await closedLoop(WARMUP_SECONDS, connections, once);
    const meter = cpuMeter(server.child.pid!);
    out[name] = await closedLoop(SECONDS, connections, once);
    const cpu = meter.stop();
    const perRequest = (ms: number) => (ms / out[name]!.n).toFixed(2);
    out[name]!.cpu = { server: cpu.serverMs / out[name]!.n, postgres: cpu.postgresMs / out[name]!.n, generator: cpu.generatorMs / out[name]!.n };
    console.error(
      `  ${server.name} ${name}: p50 ${out[name]!.p50.toFixed(1)} ms, p95 ${out[name]!.p95.toFixed(1)} ms (${out[name]!.n} requests, ${out[name]!.failed} failed); ` +
        `CPU per request: service ${perRequest(cpu.serverMs)} ms, PostgreSQL ${perRequest(cpu.postgresMs)} ms, load generator ${perRequest(cpu.generatorMs)} ms`,
    );
  }
  return out;
}

/** `?` placeholders to `$n` (the statements have no `?` inside literals). */
const positional = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

async function measureBare(pool: pg.Pool, teamId: number, v: Variants): Promise<Record<string, Figures>> {
  const out: Record<string, Figures> = {};
  // how many files carry each tag, counted once per tag as the service's TagFileCounts does within a minute
  const tagFiles = new Map<number, number>();
  const rarestTag = async (tagIds: number[]) => {
    const missing = tagIds.filter((id) => !tagFiles.has(id));
    if (missing.length > 0) {
      const counts = tagFileCountsStatement(teamId, missing);
      for (const row of (await pool.query(positional(counts.sql), counts.params)).rows) tagFiles.set(row.tagId, row.files);
    }
    return [...tagIds].sort((a, b) => tagFiles.get(a)! - tagFiles.get(b)! || a - b)[0]!;
  };
  for (const [name, body] of Object.entries(searches(v))) {
    const once = async () => {
      const plan = planSearch(body());
      const resolved: ResolvedFilter = {};
      if (plan.filter.colour) {
        const colour = colourMatchStatement(teamId, plan.filter.colour, COLOUR_IDS_MAX);
        resolved.colour = (await pool.query(positional(colour.sql), colour.params)).rows[0];
      }
      if (plan.filter.parentId !== undefined && plan.order.name === 'CREATE_TIME') {
        const subtree = subtreeFoldersStatement(teamId, plan.filter.parentId, MAX_FOLDER_BRANCHES + 1);
        const ids = (await pool.query(positional(subtree.sql), subtree.params)).rows[0].ids as number[];
        if (ids.length <= MAX_FOLDER_BRANCHES) resolved.subtreeFolderIds = ids;
      }
      const tagIds = andTagIds(plan.filter);
      if (tagIds) resolved.walkTag = await rarestTag(tagIds);
      const statements = searchStatements(teamId, plan, resolved);
      await Promise.all([
        (async () => {
          // the page's ids, then their rows through the same prepared statement as the service
          const page = pageSql(statements.page);
          const ids = (await pool.query({ name: page.name, text: page.positional, values: statements.page.params })).rows.map((r) => r.id as number);
          if (ids.length > 0) await pool.query({ name: ASSET_ROWS.name, text: ASSET_ROWS.positional, values: [teamId, `{${ids.join(',')}}`] });
        })(),
        pool.query(positional(statements.count.sql), statements.count.params),
      ]);
      return true;
    };
    await closedLoop(WARMUP_SECONDS, CONNECTIONS, once);
    out[name] = await closedLoop(SECONDS, CONNECTIONS, once);
    console.error(`  bare SQL ${name}: p50 ${out[name]!.p50.toFixed(1)} ms, p95 ${out[name]!.p95.toFixed(1)} ms`);
  }
  return out;
}

/** First derivative (a new recipe every time) and cached derivative through the app, against bare sharp. */
async function measureDerivatives(server: ChildServer, facts: Facts, bigJpegPath: string, derivedDir: string) {
  // "first" must really be first, also on a reused database: drop this image's cached derivatives
  await rm(derivedDir, { recursive: true, force: true });
  const source = await readFile(bigJpegPath);
  const runs = Number(env.BENCH_DERIVATIVE_RUNS ?? 12);
  // GETs of cached derivatives: enough that the p95 is not the 5th-slowest of a hundred
  const cachedRuns = Number(env.BENCH_CACHED_RUNS ?? 400);
  const bare = async (format: 'webp' | 'jpeg') => {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const image = sharp(source).resize({ width: 800, height: 600, fit: 'inside' });
      await (format === 'webp' ? image.webp({ quality: 70 + i }) : image.jpeg({ quality: 70 + i })).toBuffer();
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b);
  };
  const viaApp = async (f: 'webp' | 'jpg') => {
    const first: number[] = [];
    const urls: string[] = [];
    for (let i = 0; i < runs; i++) {
      // the same transforms as the bare runs: 800x600 inside, quality 70 + i
      const res = await request(server.baseUrl, 'POST', '/open/search-assets', facts.key, {
        keywords: ['big-photo.jpg'],
        keywordSearchType: 'PRECISE',
        w: 800,
        h: 600,
        f,
        q: 70 + i,
      });
      const url = JSON.parse(res.text).result.assets[0].publicUrl as string;
      const t = performance.now();
      const got = await request(server.baseUrl, 'GET', new URL(url).pathname + new URL(url).search, null);
      first.push(performance.now() - t);
      if (got.status !== 200) throw new Error(`derivative ${got.status}`);
      urls.push(url);
    }
    const cached: number[] = [];
    for (let i = 0; i < cachedRuns; i++) {
      const url = new URL(urls[i % urls.length]!);
      const t = performance.now();
      await request(server.baseUrl, 'GET', url.pathname + url.search, null);
      cached.push(performance.now() - t);
    }
    return { first: first.sort((a, b) => a - b), cached: cached.sort((a, b) => a - b) };
  };
  return { bareWebp: await bare('webp'), bareJpeg: await bare('jpeg'), webp: await viaApp('webp'), jpeg: await viaApp('jpg') };
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** The three facets of the facet measurement: a single-valued column, a computed one and the multi-valued tags. */
const BENCH_FACETS = (env.BENCH_FACETS ?? 'extension,type,tags').split(',');
/** Which of the facet measurement's runs: `cold` (memo off), `warm` (memo on), or both. */
const FACET_MODES = (env.BENCH_FACET_MODES ?? 'cold,warm').split(',');
/** Clients of the cold run: 16 saturates 2 CPUs with multi-second statements; 1 shows what one caller waits for a new search. */
const COLD_CONNECTIONS = Number(env.BENCH_COLD_CONNECTIONS ?? CONNECTIONS);

/** The searches of the facet measurement: search()'s, plus the whole library (the broadest a facet gets). */
function facetSearches(v: Variants, facets: string[] | null): Record<string, () => Record<string, unknown>> {
  const all: Record<string, () => Record<string, unknown>> = { 'whole library (no filter)': () => ({ ...page() }), ...searches(v) };
  return Object.fromEntries(Object.entries(all).map(([name, body]) => [name, facets ? () => ({ ...body(), facets }) : body]));
}

/** Every variant's filter of facetSearches (pages aside): requested once each, they fill the memo. */
function allVariantFilters(v: Variants): Array<Record<string, unknown>> {
  const extensionSearches = [['jpg', 'png'], ['mp4', 'mov'], ['pdf'], ['jpg']].flatMap((extensions) =>
    [{ minSize: 1_000_000, maxSize: 5_000_000 }, { minSize: 100_000, maxSize: 400_000 }, { minSize: 20_000_000 }].map((size) => ({ extensions, ...size })),
  );
  return [
    {},
    ...v.keywords.map((keyword) => ({ keywords: [keyword] })),
    ...extensionSearches,
    ...v.tagPairs.map((tags) => ({ tags, tagOrAnd: true })),
    ...v.colours.map((color) => ({ color })),
    ...v.folders.map((parentId) => ({ parentId })),
  ];
}

/** Requests every variant once with `facets`, four at a time, so a warm run measures memoized counts only. */
async function prewarmFacets(server: ChildServer, key: string, v: Variants, facets: string[]): Promise<void> {
  const started = performance.now();
  const queue = allVariantFilters(v);
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let body = queue.shift(); body; body = queue.shift()) await request(server.baseUrl, 'POST', '/open/search-assets', key, { ...body, facets });
    }),
  );
  console.error(`  prewarmed ${allVariantFilters(v).length} variants in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Each facet's statement alone (facets.queries.ts), as the service runs it when the memo does not hold
 * it, one at a time, over the whole library and one top-level folder: the cold cost per facet.
 */
async function measureFacetStatements(teamId: number, v: Variants): Promise<Array<{ facet: string; scope: string; median: number; min: number }>> {
  const out: Array<{ facet: string; scope: string; median: number; min: number }> = [];
  const runs = Number(env.BENCH_FACET_RUNS ?? 5);
  const scopes: Array<[string, Record<string, unknown>]> = [
    ['whole library', {}],
    ['a top-level folder', { parentId: v.folders[0] }],
    ['keyword "campaign"', { keywords: ['campaign'] }],
  ];
  for (const facet of ['extension', 'type', 'orientation', 'tags', 'colorFamily', 'folder', 'validity']) {
    for (const [scope, body] of scopes) {
      const plan = planSearch({ ...body, facets: [facet] });
      const statement = facetStatement(teamId, plan.filter, {}, plan.facets!.facets[0]!, plan.facets!.limit);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await pool.query(positional(statement.sql), statement.params);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      out.push({ facet, scope, median: percentile(times, 50), min: times[0]! });
      console.error(`  facet ${facet} over ${scope}: median ${times[Math.floor(runs / 2)]!.toFixed(1)} ms`);
    }
  }
  return out;
}

/**
 * Searches with BENCH_FACETS against the same searches without facets (the floor), in one run:
 * memo off (every total and facet counted: cold) and memo on (the default: warm).
 */
async function facetsPart(): Promise<void> {
  const variants = await chooseVariants(pool, facts);
  const statements = env.BENCH_FACET_RUNS === '0' ? [] : await measureFacetStatements(facts.teamId, variants);
  const loadAfterStatements = loadavg();
  const figures: Record<string, Record<string, Figures>> = {};
  for (const [label, memo] of [
    ['cold', 'off'],
    ['warm', 'on'],
  ] as const) {
    if (!FACET_MODES.includes(label)) continue;
    const connections = label === 'cold' ? COLD_CONNECTIONS : CONNECTIONS;
    const server = await startChildServer(`shelf (memo ${memo})`, serverScript, {
      env: { ...serverEnv, SEARCH_TOTALS_MEMO: memo },
      execArgv: serviceNodeFlags(),
    });
    figures[`${label} floor`] = await measureShelf(server, facts.key, variants, facetSearches(variants, null), connections);
    if (label === 'warm' && env.BENCH_PREWARM_FACETS === '1') await prewarmFacets(server, facts.key, variants, BENCH_FACETS);
    figures[`${label} facets`] = await measureShelf(server, facts.key, variants, facetSearches(variants, BENCH_FACETS), connections);
    await server.stop();
  }
  console.log(
    `Machine: ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${loadAfterStatements.map((l) => l.toFixed(1)).join(' / ')} before the searches, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end; ${variants.total} live files; cold ${COLD_CONNECTIONS}, warm ${CONNECTIONS} connections, ${SECONDS} s per search.\n`,
  );
  console.log(`Each facet's statement alone, ${Number(env.BENCH_FACET_RUNS ?? 5)} runs one at a time (the cold cost of one facet):\n`);
  console.log('| facet | whole library median / min | a top-level folder median / min | keyword "campaign" median / min |');
  console.log('|---|---|---|---|');
  for (const facet of [...new Set(statements.map((s) => s.facet))]) {
    const cells = statements.filter((s) => s.facet === facet).map((s) => `${ms(s.median)} / ${ms(s.min)}`);
    console.log(`| ${facet} | ${cells.join(' | ')} |`);
  }
  console.log(`\nSearches with facets ${BENCH_FACETS.join(', ')} against the same searches without (the floor), p50 / p95:\n`);
  console.log('| search | run | no facets p50 / p95 | 3 facets p50 / p95 | p95 ratio | requests (no facets / facets) |');
  console.log('|---|---|---|---|---|---|');
  for (const name of Object.keys(facetSearches(variants, null))) {
    for (const label of FACET_MODES) {
      const [floor, facets] = [figures[`${label} floor`]![name]!, figures[`${label} facets`]![name]!];
      const verdict = label === 'warm' ? (facets.p95 < 100 ? ' (p95 < 100 ms: met)' : ' (p95 < 100 ms: MISSED)') : '';
      console.log(
        `| ${name} | ${label} | ${ms(floor.p50)} / ${ms(floor.p95)} | ${ms(facets.p50)} / ${ms(facets.p95)}${verdict} | ${(facets.p95 / floor.p95).toFixed(2)} | ${floor.n} / ${facets.n} |`,
      );
    }
  }
}

const facts = await openDatabase();
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const serverEnv = { ...env, DATABASE_URL: databaseUrl, STORAGE_DIR: facts.storageDir, LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
/**
 * BENCH_PARTS: `searches`, `derivatives` or both (the default); `memo-on` runs only the
 * "Shelf, memo on" measurement of the searches (with its CPU table), a quick check while tuning;
 * `facets` (only when named) the searches with three facets (BENCH_FACETS) against the same
 * searches without, cold and warm (BENCH_FACET_MODES; BENCH_PREWARM_FACETS=1 first counts every
 * variant's facets, so warm means memoized), and each facet's statement alone.
 */
const parts = new Set((env.BENCH_PARTS ?? 'searches,derivatives').split(','));
const serverScript = new URL('./servers/search-server.ts', import.meta.url);

async function searchesPart(): Promise<void> {
  const variants = await chooseVariants(pool, facts);
  console.error(`keywords: ${variants.fractions.map((f) => `${f.keyword} ${(100 * f.fraction).toFixed(2)} %`).join(', ')}`);
  if (parts.has('memo-on')) {
    const warm = await startChildServer('shelf (memo on)', serverScript, { env: serverEnv, execArgv: serviceNodeFlags() });
    const shelfWarm = await measureShelf(warm, facts.key, variants);
    await warm.stop();
    printCpu(shelfWarm);
    return;
  }
  const cold = await startChildServer('shelf (memo off)', serverScript, { env: { ...serverEnv, SEARCH_TOTALS_MEMO: 'off' }, execArgv: serviceNodeFlags() });
  const shelfCold = await measureShelf(cold, facts.key, variants);
  await cold.stop();
  const bare = await measureBare(pool, facts.teamId, variants);
  const warm = await startChildServer('shelf (memo on)', serverScript, { env: serverEnv, execArgv: serviceNodeFlags() });
  const shelfWarm = await measureShelf(warm, facts.key, variants);
  await warm.stop();
  console.log(
    `Machine: ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end; ${variants.total} live files; ${CONNECTIONS} connections, ${SECONDS} s per search.\n`,
  );
  console.log(`Keyword match fractions: ${variants.fractions.map((f) => `${f.keyword} ${(100 * f.fraction).toFixed(2)} %`).join(', ')}\n`);
  console.log('| search | Shelf, totals counted (memo off) p50 / p95 | bare SQL p50 / p95 | ratio p50 / p95 | Shelf, memo on p50 / p95 | target p95 < 50 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const name of Object.keys(shelfCold)) {
    const [c, b, w] = [shelfCold[name]!, bare[name]!, shelfWarm[name]!];
    const met = c.p95 < 50 ? 'met' : w.p95 < 50 ? 'met with the memo only' : 'MISSED';
    console.log(
      `| ${name} | ${ms(c.p50)} / ${ms(c.p95)} | ${ms(b.p50)} / ${ms(b.p95)} | ${(c.p50 / b.p50).toFixed(2)} / ${(c.p95 / b.p95).toFixed(2)} | ${ms(w.p50)} / ${ms(w.p95)} | ${met} |`,
    );
  }
  printCpu(shelfWarm);
}

function printCpu(shelfWarm: Record<string, Figures>): void {
  console.log(
    '\nShelf with the memo: latency and CPU per request (ms of CPU from /proc: the service process, all PostgreSQL processes, this load generator):\n',
  );
  console.log('| search | p50 / p95 | requests/s | service | PostgreSQL | load generator |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, w] of Object.entries(shelfWarm)) {
    console.log(
      `| ${name} | ${ms(w.p50)} / ${ms(w.p95)} | ${w.rps.toFixed(0)} | ${w.cpu!.server.toFixed(2)} | ${w.cpu!.postgres.toFixed(2)} | ${w.cpu!.generator.toFixed(2)} |`,
    );
  }
}

async function derivativesPart(): Promise<void> {
  const server = await startChildServer('shelf', serverScript, { env: serverEnv, execArgv: serviceNodeFlags() });
  const big = (
    await pool.query('select o.storage_key, o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = $1', [facts.bigJpegId])
  ).rows[0];
  const derivedDir = resolve(facts.storageDir, 'derived/image-v1', big.sha256.slice(0, 2), big.sha256);
  const d = await measureDerivatives(server, facts, resolve(facts.storageDir, big.storage_key), derivedDir);
  await server.stop();
  console.log(
    `\nMachine load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}; one request at a time; ${d.bareWebp.length} runs each.\n`,
  );
  console.log('| processed image (4000x3000 JPEG to 800x600) | p50 | p95 | target |');
  console.log('|---|---|---|---|');
  console.log(`| bare sharp, WebP | ${ms(percentile(d.bareWebp, 50))} | ${ms(percentile(d.bareWebp, 95))} | |`);
  console.log(
    `| first request through Shelf, WebP | ${ms(percentile(d.webp.first, 50))} | ${ms(percentile(d.webp.first, 95))} | <= 1.5 x bare: ${(percentile(d.webp.first, 50) / percentile(d.bareWebp, 50)).toFixed(2)} x |`,
  );
  console.log(`| bare sharp, JPEG | ${ms(percentile(d.bareJpeg, 50))} | ${ms(percentile(d.bareJpeg, 95))} | |`);
  console.log(
    `| first request through Shelf, JPEG | ${ms(percentile(d.jpeg.first, 50))} | ${ms(percentile(d.jpeg.first, 95))} | <= 1.5 x bare: ${(percentile(d.jpeg.first, 50) / percentile(d.bareJpeg, 50)).toFixed(2)} x |`,
  );
  console.log(`| cached derivative (WebP) | ${ms(percentile(d.webp.cached, 50))} | ${ms(percentile(d.webp.cached, 95))} | < 5 ms |`);
  console.log(`| cached derivative (JPEG) | ${ms(percentile(d.jpeg.cached, 50))} | ${ms(percentile(d.jpeg.cached, 95))} | < 5 ms |`);
}

try {
  if (parts.has('searches') || parts.has('memo-on')) await searchesPart();
  if (parts.has('facets')) await facetsPart();
  if (parts.has('derivatives')) await derivativesPart();
} finally {
  await pool.end();
  agent.destroy();
  if (env.BENCH_KEEP_DB !== '1' && env.BENCH_REUSE_DB !== '1') await dropDatabase(databaseUrl);
}
