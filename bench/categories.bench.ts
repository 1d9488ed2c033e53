/**
 * Category tree benchmark (categories issue): a brand with 5000 categories 10 levels deep.
 *
 *   node_modules/node/bin/node bench/categories.bench.ts
 *
 * A throwaway database (shelf_bench_categories, dropped and recreated, dropped again at the end)
 * is migrated; the team, key and brand are made through the core, the 5000 categories are
 * written by the test seeder (consistent paths, depths and positions). Then, through the real
 * REST app (Fastify inject: the whole pipeline of auth, validation, core, serialization, minus
 * the socket):
 *   - list: every page of GET /v1/categories?brandId=..&pageSize=100 (50 pages), in sequence;
 *   - move: PATCH /v1/categories/{M} {parentId} where M has exactly 1000 descendants, moved
 *     between two roots (so depths stay valid) on every run.
 * Medians over BENCH_RUNS runs (default 15) after BENCH_WARMUP runs (default 3) are printed as
 * Markdown. Targets: a full listing under 1 s, a 1000-descendant move under 200 ms.
 * Settings: DATABASE_URL (the server to use; default postgres://postgres@127.0.0.1:5432/postgres),
 * REDIS_URL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { publicUrls } from '../src/public-urls.ts';
import { Queues } from '../src/queues.ts';
import { buildApp } from '../src/rest/app.ts';
import { type SeedNode, seedCategories } from '../test/support/category-seed.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const TOTAL = 5000;
const MOVED_DESCENDANTS = 1000;

const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = '/shelf_bench_categories';
const adminUrl = new URL(serverUrl);
adminUrl.pathname = '/postgres';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Two roots; under root A the category M with 125 chains of 8 (1000 descendants, levels 3-10);
 * under root B the remaining nodes in 9 layers (levels 2-10), spread round-robin.
 */
function benchTree(): SeedNode[] {
  const nodes: SeedNode[] = [
    { key: 'A', parentKey: null, name: 'Root A' },
    { key: 'B', parentKey: null, name: 'Root B' },
    { key: 'M', parentKey: 'A', name: 'Moved subtree' },
  ];
  for (let chain = 0; chain < 125; chain++) {
    let parentKey = 'M';
    for (let level = 3; level <= 10; level++) {
      const key = `m${chain}_${level}`;
      nodes.push({ key, parentKey, name: key });
      parentKey = key;
    }
  }
  const rest = TOTAL - nodes.length;
  const layers = 9;
  let previous = ['B'];
  for (let layer = 0; layer < layers; layer++) {
    const size = layer === layers - 1 ? rest - Math.floor(rest / layers) * (layers - 1) : Math.floor(rest / layers);
    const current: string[] = [];
    for (let i = 0; i < size; i++) {
      const key = `b${layer + 2}_${i}`;
      nodes.push({ key, parentKey: previous[i % previous.length]!, name: key });
      current.push(key);
    }
    previous = current;
  }
  return nodes;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

await admin('drop database if exists shelf_bench_categories with (force)');
await admin('create database shelf_bench_categories');
const storageDir = await mkdtemp(join(tmpdir(), 'shelf-bench-categories-'));
const config = loadConfig({
  ...process.env,
  DATABASE_URL: databaseUrl.toString(),
  LOG_LEVEL: 'silent',
  STORAGE_DIR: storageDir,
  QUEUE_PREFIX: 'shelf-bench-categories',
});
const orm = await openOrm({ databaseUrl: config.databaseUrl });
const queues = new Queues(config);
try {
  await migrateUp(orm);
  const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
  const app = await buildApp({ core, queues, metrics: createMetrics({ orm, queues: () => queues.all() }) });
  await app.ready();

  const { teamId } = await core.access.createTeam(core.operatorCtx(), { name: 'Bench' });
  const { key } = await core.access.createKey(core.operatorCtx(), { teamId, role: 'manage' });
  const ctx = core.ctxFor(await core.access.authenticate(core.operatorCtx(), `Bearer ${key}`), 'bench');
  const brand = (await core.catalogue.brands.create(ctx, { name: 'Bench brand' })).body;
  const nodes = benchTree();
  const ids = await seedCategories(orm.em.fork(), { teamId, brandId: brand.id }, nodes);
  await orm.em.fork().execute('analyze categories');
  const stats = await orm.em
    .fork()
    .execute<{ n: number; depth: number }[]>('select count(*)::int as n, max(depth) as depth from categories where brand_id = ? and deleted_at is null', [
      brand.id,
    ]);
  const subtree = await core.catalogue.categories.findChildrenByParentIds(ctx, [ids.get('M')!]);
  console.error(`seeded ${stats[0]!.n} categories, ${stats[0]!.depth} levels; M has ${subtree[0]!.length} children and ${MOVED_DESCENDANTS} descendants`);

  const headers = { authorization: `Bearer ${key}` };
  async function listAll(): Promise<{ total: number; pages: number[] }> {
    const pages: number[] = [];
    const started = performance.now();
    let seen = 0;
    for (let page = 1; ; page++) {
      const t = performance.now();
      const res = await app.inject({ url: `/v1/categories?brandId=${brand.id}&pageSize=100&page=${page}`, headers });
      pages.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`list page ${page}: ${res.statusCode} ${res.body}`);
      const body = res.json();
      seen += body.data.length;
      if (page >= body.pagination.totalPages) break;
    }
    if (seen !== TOTAL) throw new Error(`listed ${seen} categories, expected ${TOTAL}`);
    return { total: performance.now() - started, pages };
  }

  const roots = [ids.get('B')!, ids.get('A')!];
  let moves = 0;
  async function moveSubtree(): Promise<number> {
    const parentId = roots[moves++ % 2]!;
    const started = performance.now();
    const res = await app.inject({ method: 'PATCH', url: `/v1/categories/${ids.get('M')}`, headers, payload: { parentId } });
    const took = performance.now() - started;
    if (res.statusCode !== 200) throw new Error(`move: ${res.statusCode} ${res.body}`);
    return took;
  }

  for (let i = 0; i < WARMUP; i++) {
    await listAll();
    await moveSubtree();
  }
  const listTotals: number[] = [];
  const pageTimes: number[] = [];
  const moveTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const listed = await listAll();
    listTotals.push(listed.total);
    pageTimes.push(...listed.pages);
    moveTimes.push(await moveSubtree());
  }
  // the moves must leave a consistent tree: every moved path starts with the current root's path
  const check = await orm.em.fork().execute<{ bad: number }[]>(
    `select count(*)::int as bad from categories c join categories p on p.id = c.parent_id
      where c.brand_id = ? and c.deleted_at is null and (c.path_key <> p.path_key || '/' || c.name or c.depth <> p.depth + 1)`,
    [brand.id],
  );
  if (check[0]!.bad !== 0) throw new Error(`${check[0]!.bad} categories have a path inconsistent with their parent`);

  await app.close();
  const listMedian = median(listTotals);
  const moveMedian = median(moveTimes);
  console.log(`| measure (${RUNS} runs after ${WARMUP} warm-up, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}) | median | min | max | target |`);
  console.log('|---|---|---|---|---|');
  console.log(
    `| list all 5000 (50 pages of 100) | ${ms(listMedian)} | ${ms(Math.min(...listTotals))} | ${ms(Math.max(...listTotals))} | < 1000 ms ${listMedian < 1000 ? 'met' : 'MISSED'} |`,
  );
  console.log(`| one page of 100 | ${ms(median(pageTimes))} | ${ms(Math.min(...pageTimes))} | ${ms(Math.max(...pageTimes))} | |`);
  console.log(
    `| move a subtree with ${MOVED_DESCENDANTS} descendants | ${ms(moveMedian)} | ${ms(Math.min(...moveTimes))} | ${ms(Math.max(...moveTimes))} | < 200 ms ${moveMedian < 200 ? 'met' : 'MISSED'} |`,
  );
} finally {
  await queues.close();
  await orm.close();
  await admin('drop database if exists shelf_bench_categories with (force)');
  await rm(storageDir, { recursive: true, force: true });
}
