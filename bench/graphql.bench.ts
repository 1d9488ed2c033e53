/**
 * GraphQL against REST benchmark: the same process, the same data, the same moment.
 *
 *   npm run bench:graphql
 *
 * A throwaway database (shelf_bench_graphql or BENCH_DATABASE, dropped and recreated, dropped again at the end) is
 * migrated and seeded through the core: one team, an editable key (it sees download links, as the
 * issue measured), a brand with a 500-category tree (10 roots, 70 children, 420 grandchildren), a
 * template of 2 fields pinned by 100 published products (each with brand, category, a cover, 3
 * images, 2 related files and both template fields), 60 PNG library files with 2-3 of 12 tags each,
 * and a template of 4 groups x 10 fields with 5 versions. Then Shelf's real app runs in a child
 * process (bench/servers/shelf-server.ts, the service's Node flags) and autocannon, in this process,
 * loads it for each shape with the REST request and the GraphQL operation that return the same
 * data, alternating the side that goes first, for BENCH_ROUNDS rounds:
 *
 * - products100: GET /v1/products?pageSize=100 | products(pageSize: 100) with the issue's selection;
 * - products20:  the same with 20;
 * - product:     GET /v1/products/{id} | product(id) with every field, its media and its definition;
 * - search50:    POST /open/search-assets 0..50 | searchAssets with every AssetItem field REST has and tags;
 * - categories500: the brand's 500-node tree as 5 pages of 100 (each connection cycles through them),
 *                GET /v1/categories | categories with every field and `parent { id name pathKey }`;
 * - template:    GET /v1/product-info-templates/{id} | template(id) with groups, fields and versions.
 *
 * Before measuring, each pair is checked to answer the same items (ids, names, media ids, tags,
 * field values; links aside, they carry expiry and signature). For each run: req/s, p50, p99, and
 * the server's CPU per request and GC share, read in the server process (bench/support/gc-meter.ts:
 * process.cpuUsage and perf_hooks 'gc' pauses, main thread), and PostgreSQL's CPU per request (the
 * backends of this run's database, from /proc). The report is Markdown on stdout.
 *
 * Settings: DATABASE_URL (server; default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL,
 * BENCH_SHAPES=products100,products20,product,search50,categories500,template, BENCH_SIDES=rest,graphql,
 * BENCH_DATABASE=shelf_bench_graphql (the throwaway database's name; another one lets two runs share the server),
 * BENCH_ROUNDS=2, BENCH_SECONDS=8, BENCH_WARMUP_SECONDS=2, BENCH_CONNECTIONS=10,
 * BENCH_PROFILE=1 (CPU profile of the server into bench/.profiles, written when it stops),
 * BENCH_COMPARE_DIR=<another checkout with bench/servers/shelf-server.ts>: its Shelf measured too,
 * against the same database in the same run (before/after).
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { type SeedNode, seedCategories } from '../test/support/category-seed.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';
import { ask } from './support/child-messages.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { cpuMeter } from './support/cpu-time.ts';
import type { GcStats } from './support/gc-meter.ts';
import { median } from './support/load.ts';
import { serviceNodeFlags } from './support/service-flags.ts';

const env = process.env;
const SHAPES = (env.BENCH_SHAPES ?? 'products100,products20,product,search50,categories500,template').split(',');
const SIDES = (env.BENCH_SIDES ?? 'rest,graphql').split(',') as Side[];
const ROUNDS = Number(env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(env.BENCH_SECONDS ?? 8);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
/** Issue 37's targets: GraphQL at least 0.8x REST's rate, its p99 at most 1.25x REST's. */
const TARGET_RATE = 0.8;
const TARGET_P99 = 1.25;
const SECRET = 'graphql-benchmark-signing-secret-0123456789abcdef';
const PUBLIC_BASE_URL = 'http://127.0.0.1:8080';
/** BENCH_DATABASE: another name lets two runs share the PostgreSQL server without dropping each other's data. */
const DATABASE = env.BENCH_DATABASE ?? 'shelf_bench_graphql';
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', DATABASE);
const here = (path: string) => new URL(path, import.meta.url);

type Side = 'rest' | 'graphql';
interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
interface Shape {
  name: string;
  label: string;
  rest: Req[];
  graphql: Req[];
  /** Both answers (JSON) carry the same data, or why not. */
  check(rest: unknown[], graphql: unknown[]): string | null;
}

// --- seeding ---

interface Seed {
  key: string;
  brandId: number;
  productId: number;
  bigTemplateId: string;
}

async function seed(storageDir: string): Promise<Seed> {
  const orm = await openOrm({ databaseUrl, poolMax: 4 });
  try {
    await migrateUp(orm);
    const coreConfig = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', STORAGE_DIR: storageDir, LINK_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL });
    const core = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
    const op = () => core.operatorCtx();
    const { teamId } = await core.access.createTeam(op(), { name: 'Bench' });
    const { key: manageKey } = await core.access.createKey(op(), { teamId, role: 'manage' });
    const { key } = await core.access.createKey(op(), { teamId, role: 'editable' });
    const ctx = core.ctxFor(await core.access.authenticate(op(), `Bearer ${manageKey}`), 'bench');

    const brand = (await core.catalogue.brands.create(ctx, { name: 'Bench brand' })).body;
    const nodes: SeedNode[] = [];
    for (let r = 0; r < 10; r++) {
      nodes.push({ key: `r${r}`, parentKey: null, name: `Root ${r}` });
      for (let c = 0; c < 7; c++) {
        nodes.push({ key: `r${r}c${c}`, parentKey: `r${r}`, name: `Child ${r}.${c}` });
        for (let g = 0; g < 6; g++) nodes.push({ key: `r${r}c${c}g${g}`, parentKey: `r${r}c${c}`, name: `Leaf ${r}.${c}.${g}` });
      }
    }
    const categoryIds = [...(await seedCategories(orm.em.fork(), { teamId, brandId: brand.id }, nodes)).values()];
    await orm.em.fork().execute('analyze categories');

    // library files: small distinct PNGs with 2-3 tags each, in one folder
    const inputs = await mkdtemp(join(tmpdir(), 'shelf-bench-graphql-inputs-'));
    const tags = Array.from({ length: 12 }, (_, i) => `tag-${String(i).padStart(2, '0')}`);
    const fileIds: number[] = [];
    try {
      for (let i = 0; i < 60; i++) {
        const path = join(inputs, `image-${i}.png`);
        const colour = `#${((i * 7919 + 4099) % 0xffffff).toString(16).padStart(6, '0')}`;
        await sharp({ create: { width: 32 + i, height: 24, channels: 3, background: colour } })
          .png()
          .toFile(path);
        const fileTags = [tags[i % 12]!, tags[(i * 5 + 1) % 12]!, ...(i % 3 === 0 ? [tags[(i * 7 + 2) % 12]!] : [])];
        fileIds.push(
          (await core.assets.libraryImport.importFile(op(), { team: teamId, file: path, name: `image-${i}.png`, folder: '/bench', tags: fileTags })).id,
        );
      }
    } finally {
      await rm(inputs, { recursive: true, force: true });
    }

    // the products' template: 2 fields every product fills
    const productTemplate = (
      await core.catalogue.templates.create(ctx, {
        name: 'Bench products',
        groups: [
          {
            name: 'Main',
            fields: [
              { key: 'material', name: 'Material', type: 'text' },
              { key: 'weight', name: 'Weight', type: 'number', config: { unit: 'kg' } },
            ],
          },
        ],
      })
    ).body;
    const fieldId = (k: string) => productTemplate.groups.flatMap((g) => g.fields).find((f) => f.key === k)!.id;
    let productId = 0;
    for (let i = 0; i < 100; i++) {
      const media = (n: number) => fileIds[(i * 3 + n) % fileIds.length]!;
      const created = await core.catalogue.products.create(ctx, {
        name: `Product ${i}`,
        spu: `SPU-${String(i).padStart(4, '0')}`,
        description: `A benchmark product, number ${i}.`,
        brandId: brand.id,
        categoryId: categoryIds[(i * 37) % categoryIds.length]!,
        templateId: productTemplate.id,
        templateFields: { [fieldId('material')]: `cotton ${i}`, [fieldId('weight')]: 1 + i / 10 },
        imageAssetIds: [media(0), media(1), media(2)],
        coverAssetId: media(1),
        relatedAssetIds: [media(3), media(4)],
      });
      await core.catalogue.products.publish(ctx, created.body.id);
      productId = created.body.id;
    }

    // one template of 4 groups x 10 fields with 5 versions
    const types = ['text', 'textarea', 'email', 'url', 'number', 'date', 'color', 'phone', 'text', 'textarea'];
    const groups = (v: number) =>
      Array.from({ length: 4 }, (_, g) => ({
        name: `Group ${g}`,
        fields: types.map((type, f) => ({ key: `g${g}f${f}`, name: `Field ${g}.${f} v${v}`, type, placeholder: `Enter ${g}.${f}` })),
      }));
    let big = (await core.catalogue.templates.create(ctx, { name: 'Bench big', description: 'v1', groups: groups(1) })).body;
    for (let v = 2; v <= 5; v++) {
      const ids = big.groups.map((g) => ({
        id: g.id,
        name: g.name,
        fields: g.fields.map((f) => ({ id: f.id, name: `${f.name.replace(/ v\d+$/, '')} v${v}` })),
      }));
      big = (await core.catalogue.templates.update(ctx, big.id, { description: `v${v}`, groups: ids })).data;
    }
    await orm.em.fork().execute('analyze');
    return { key, brandId: brand.id, productId, bigTemplateId: big.id };
  } finally {
    await orm.close();
  }
}

// --- the shapes ---

const MEDIA = 'id name mimeType size width height duration previewUrl downloadUrl downloadUrlExpiresAt';

function gql(query: string): Req {
  return { method: 'POST', path: '/graphql', body: JSON.stringify({ query }), headers: { 'content-type': 'application/json' } };
}
const get = (path: string): Req => ({ method: 'GET', path });

type Json = Record<string, unknown> & { data?: unknown };
const firstOf = (answers: unknown[]) => answers[0] as Json;
const gqlData = (answer: unknown) => {
  const a = answer as { data?: Record<string, unknown>; errors?: unknown };
  if (a.errors) throw new Error(`GraphQL errors: ${JSON.stringify(a.errors).slice(0, 500)}`);
  return a.data!;
};
const mediaIds = (m: unknown) => (Array.isArray(m) ? m.map((x) => (x as { id: number }).id) : (m as { id: number } | null)?.id);
const same = (what: string, a: unknown, b: unknown) =>
  JSON.stringify(a) === JSON.stringify(b) ? null : `${what} differ: ${JSON.stringify(a).slice(0, 300)} | ${JSON.stringify(b).slice(0, 300)}`;

type P = {
  id: number;
  name: string;
  brandId: number;
  categoryId: number;
  cover: unknown;
  images: unknown[];
  relatedAssets?: unknown[];
  templateFields: unknown;
};
function productsCheck(rest: unknown[], graphql: unknown[]): string | null {
  const r = (firstOf(rest).data as P[]).map((p) => [p.id, p.name, p.brandId, p.categoryId, mediaIds(p.cover), mediaIds(p.images), p.templateFields]);
  const items = (gqlData(graphql[0]).products as { items: Array<P & { brand: { id: number }; category: { id: number } }> }).items;
  const g = items.map((p) => [p.id, p.name, p.brand.id, p.category.id, mediaIds(p.cover), mediaIds(p.images), p.templateFields]);
  return same('products', r, g);
}

function shapes(s: Seed): Shape[] {
  const page = (size: number) =>
    gql(
      `{ products(pageSize: ${size}) { items { id name brand { id name } category { id name } cover { id name previewUrl } images { id name previewUrl } templateFields } } }`,
    );
  const searchBody = JSON.stringify({ startPoint: 0, endPoint: 50 });
  const assetFields =
    'id parentIds userId name downloadUrl source link extension duration size width height description score createTime createUser updateTime updateUser thumbnailAccessUrl publicUrl imageContentAnalysis { aiTags aiTitle aiDescription aiDetailedDescription } tags { id name }';
  const categoryFields = 'id brandId parentId name pathKey description iconEmoji iconAssetId sortOrder isEnabled createdAt updatedAt';
  const templateFields = 'id name description enabled isSystemDefault isLibraryDefault createdAt updatedAt boundBrandIds boundCategoryIds';
  const fieldFields = 'id key name type required placeholder sortOrder isSystemField systemKey config';
  const list: Shape[] = [
    {
      name: 'products100',
      label: 'product page of 100 (brand, category, cover, 3 images, 2 template fields)',
      rest: [get('/v1/products?pageSize=100')],
      graphql: [page(100)],
      check: productsCheck,
    },
    { name: 'products20', label: 'product page of 20 (same selection)', rest: [get('/v1/products?pageSize=20')], graphql: [page(20)], check: productsCheck },
    {
      name: 'product',
      label: 'one product, every field, media and definition',
      rest: [get(`/v1/products/${s.productId}`)],
      graphql: [
        gql(
          `{ product(id: ${s.productId}) { etag product { id name spu description status brandId categoryId ownerUserId publishedAt createdAt updatedAt draftReason templateId templateVersionId templateFields cover { ${MEDIA} } images { ${MEDIA} } relatedAssets { ${MEDIA} } templateDefinition { id number groups { id name sortOrder isDefault fields { ${fieldFields} } } } } } }`,
        ),
      ],
      check: (rest, graphql) => {
        const r = firstOf(rest).data as P & { templateDefinition: { groups: unknown[] } };
        const g = (gqlData(graphql[0]).product as { product: P & { templateDefinition: { groups: unknown[] } } }).product;
        const pick = (p: typeof r) => [
          p.id,
          p.name,
          mediaIds(p.cover),
          mediaIds(p.images),
          mediaIds(p.relatedAssets),
          p.templateFields,
          p.templateDefinition.groups.length,
        ];
        return same('product', pick(r), pick(g));
      },
    },
    {
      name: 'search50',
      label: 'asset search page of 50 with tags',
      rest: [{ method: 'POST', path: '/open/search-assets', body: searchBody, headers: { 'content-type': 'application/json' } }],
      graphql: [gql(`{ searchAssets(input: { startPoint: 0, endPoint: 50 }) { total assets { ${assetFields} } } }`)],
      check: (rest, graphql) => {
        type A = { id: number; name: string; tags: Array<{ id: number; name: string }> };
        const r = (firstOf(rest).result as { assets: A[] }).assets.map((a) => [a.id, a.name, a.tags]);
        const g = (gqlData(graphql[0]).searchAssets as { assets: A[] }).assets.map((a) => [a.id, a.name, a.tags]);
        return r.length !== 50 ? `REST answered ${r.length} assets, not 50` : same('assets', r, g);
      },
    },
    {
      name: 'categories500',
      label: 'category tree of 500 nodes with parents (5 pages of 100)',
      rest: [1, 2, 3, 4, 5].map((p) => get(`/v1/categories?brandId=${s.brandId}&pageSize=100&page=${p}`)),
      graphql: [1, 2, 3, 4, 5].map((p) =>
        gql(
          `{ categories(brandId: ${s.brandId}, page: ${p}, pageSize: 100) { items { ${categoryFields} parent { id name pathKey } } pagination { page pageSize totalCount totalPages } } }`,
        ),
      ),
      check: (rest, graphql) => {
        type C = { id: number; name: string; parentId: number | null; parent?: { id: number } | null };
        const r = rest.flatMap((a) => (a as { data: C[] }).data.map((c) => [c.id, c.name, c.parentId]));
        const g = graphql.flatMap((a) => (gqlData(a).categories as { items: C[] }).items.map((c) => [c.id, c.name, c.parent?.id ?? null]));
        return r.length !== 500 ? `REST answered ${r.length} categories, not 500` : same('categories', r, g);
      },
    },
    {
      name: 'template',
      label: 'one template: 4 groups x 10 fields, its 5 versions',
      rest: [get(`/v1/product-info-templates/${s.bigTemplateId}`)],
      graphql: [
        gql(
          `{ template(id: "${s.bigTemplateId}") { etag template { ${templateFields} groups { id name sortOrder isDefault fields { ${fieldFields} } } versions { id number name description createdAt } } } }`,
        ),
      ],
      check: (rest, graphql) => {
        type T = { id: string; groups: Array<{ id: string; fields: Array<{ id: string; name: string }> }> };
        const pick = (t: T) => [t.id, t.groups.map((g) => [g.id, g.fields.map((f) => [f.id, f.name])])];
        const g = (gqlData(graphql[0]).template as { template: T & { versions: unknown[] } }).template;
        return g.versions.length !== 5 ? `GraphQL answered ${g.versions.length} versions, not 5` : same('template', pick(firstOf(rest).data as T), pick(g));
      },
    },
  ];
  return list.filter((shape) => SHAPES.includes(shape.name));
}

// --- measuring ---

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failed: number;
  /** Server CPU per request (ms) and the share of it the GC's pauses took. */
  cpuPerRequest: number;
  /** PostgreSQL's CPU per request (ms): the backends of this run's database, read from /proc. */
  pgCpuPerRequest: number;
  gcShare: number;
  gcPerRequest: number;
  kbPerResponse: number;
  statementsPerRequest: number;
  /** GC ms per request by kind: minor (scavenge), major (mark-compact), incremental marking. */
  gcKinds: Record<string, number>;
}

async function answers(server: ChildServer, reqs: Req[], key: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const req of reqs) {
    const res = await fetch(server.baseUrl + req.path, { method: req.method, body: req.body, headers: { authorization: `Bearer ${key}`, ...req.headers } });
    if (res.status !== 200) throw new Error(`${server.name} ${req.method} ${req.path}: ${res.status} ${(await res.text()).slice(0, 500)}`);
    out.push(await res.json());
  }
  return out;
}

async function run(server: ChildServer, reqs: Req[], key: string, seconds: number): Promise<Run> {
  const before = await ask<GcStats>(server.child, 'gc-stats', 'gc-stats');
  const meter = cpuMeter(server.child.pid!, DATABASE);
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    headers: { authorization: `Bearer ${key}` },
    requests: reqs.map((r) => ({ method: r.method, path: r.path, body: r.body, headers: { authorization: `Bearer ${key}`, ...r.headers } })),
  });
  const pg = meter.stop().postgresMs;
  const after = await ask<GcStats>(server.child, 'gc-stats', 'gc-stats');
  const requests = result.requests.total;
  const cpu = after.cpuMs - before.cpuMs;
  const gc = after.gcMs - before.gcMs;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    failed: result.errors + result.timeouts + result.non2xx,
    cpuPerRequest: cpu / Math.max(1, requests),
    pgCpuPerRequest: pg / Math.max(1, requests),
    gcShare: gc / Math.max(1, cpu),
    gcPerRequest: gc / Math.max(1, requests),
    kbPerResponse: result.throughput.total / Math.max(1, requests) / 1024,
    statementsPerRequest: (after.statements - before.statements) / Math.max(1, requests),
    gcKinds: Object.fromEntries(Object.entries(after.gcMsByKind).map(([kind, ms]) => [kind, (ms - (before.gcMsByKind[kind] ?? 0)) / Math.max(1, requests)])),
  };
}

// --- the run ---

interface Target {
  name: string;
  script: URL;
}
const targets: Target[] = [{ name: 'shelf', script: here('./servers/shelf-server.ts') }];
if (env.BENCH_COMPARE_DIR) {
  const dir = resolve(env.BENCH_COMPARE_DIR);
  targets.push({ name: `shelf@${basename(dir)}`, script: pathToFileURL(`${dir}/bench/servers/shelf-server.ts`) });
}

const loads: Array<{ phase: string; load: number }> = [{ phase: 'start', load: loadavg()[0]! }];
const storageDir = await mkdtemp(join(tmpdir(), 'shelf-bench-graphql-storage-'));
const servers: ChildServer[] = [];
const figures = new Map<string, Run[]>();
const at = (target: string, shape: string, side: Side) => `${target} ${shape} ${side}`;

try {
  await freshDatabase(databaseUrl);
  console.error('seeding ...');
  const s = await seed(storageDir);
  const all = shapes(s);
  const profile = env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${fileURLToPath(here('./.profiles'))}`] : [];
  for (const target of targets) {
    servers.push(
      await startChildServer(target.name, target.script, {
        env: {
          ...env,
          DATABASE_URL: databaseUrl,
          NODE_ENV: 'production',
          LINK_SIGNING_SECRET: SECRET,
          PUBLIC_BASE_URL,
          STORAGE_DIR: storageDir,
          QUEUE_PREFIX: `shelf-bench-${DATABASE}`,
        },
        execArgv: [...serviceNodeFlags(), '--import', here('./support/gc-meter.ts').href, ...profile],
      }),
    );
  }
  for (const server of servers) {
    for (const shape of all) {
      const problem = shape.check(await answers(server, shape.rest, s.key), await answers(server, shape.graphql, s.key));
      if (problem) throw new Error(`${server.name} ${shape.name}: REST and GraphQL answer different data: ${problem}`);
    }
  }
  console.error(`REST and GraphQL answer the same data for ${all.map((x) => x.name).join(', ')}`);

  for (const server of servers) for (const shape of all) for (const side of SIDES) await run(server, shape[side], s.key, WARMUP_SECONDS);
  loads.push({ phase: 'warm-up', load: loadavg()[0]! });
  for (let round = 1; round <= ROUNDS; round++) {
    for (const shape of all) {
      for (const server of round % 2 === 1 ? servers : [...servers].reverse()) {
        for (const side of round % 2 === 1 ? SIDES : [...SIDES].reverse()) {
          const r = await run(server, shape[side], s.key, SECONDS);
          figures.set(at(server.name, shape.name, side), [...(figures.get(at(server.name, shape.name, side)) ?? []), r]);
          console.error(
            `round ${round} ${server.name.padEnd(14)} ${shape.name.padEnd(14)} ${side.padEnd(8)} ${r.rps.toFixed(0).padStart(5)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ` +
              `cpu ${r.cpuPerRequest.toFixed(2)} ms/req  pg ${r.pgCpuPerRequest.toFixed(2)} ms/req  gc ${(r.gcShare * 100).toFixed(0)}%  ${r.statementsPerRequest.toFixed(1)} SQL/req  ${r.kbPerResponse.toFixed(1)} KiB  gc ms/req ${Object.entries(
                r.gcKinds,
              )
                .map(([k, v]) => `${k} ${v.toFixed(2)}`)
                .join(' ')}${r.failed > 0 ? `  FAILED ${r.failed}` : ''}`,
          );
        }
      }
    }
    loads.push({ phase: `round ${round}`, load: loadavg()[0]! });
  }
  report(all);
} finally {
  for (const server of servers) await server.stop();
  await dropDatabase(databaseUrl);
  await rm(storageDir, { recursive: true, force: true });
}

function report(all: Shape[]): void {
  const lines = [
    `Run ${new Date().toISOString()}: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; ` +
      `${CONNECTIONS} connections, ${ROUNDS} rounds x ${SECONDS} s per side after ${WARMUP_SECONDS} s warm-up; ` +
      `1-min load average ${loads.map((l) => `${l.load.toFixed(1)} (${l.phase})`).join(', ')}.`,
    '',
    '| shape | server | side | req/s (median) | per round | p50 ms | p99 ms | CPU ms/req | PostgreSQL CPU ms/req | GC share of CPU | GC ms/req | SQL/req | KiB/resp | GraphQL/REST req/s | GraphQL/REST p99 |',
    '|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const verdicts: string[] = [];
  for (const shape of all) {
    for (const server of servers) {
      const med = (side: Side, pick: (r: Run) => number) => median(figures.get(at(server.name, shape.name, side))!.map(pick));
      for (const side of SIDES) {
        const runs = figures.get(at(server.name, shape.name, side))!;
        const ratios =
          side === 'graphql' && SIDES.includes('rest')
            ? `${(med('graphql', (r) => r.rps) / med('rest', (r) => r.rps)).toFixed(2)} | ${(med('graphql', (r) => r.p99) / med('rest', (r) => r.p99)).toFixed(2)}`
            : ' | ';
        lines.push(
          `| ${shape.name} | ${server.name} | ${side} | ${med(side, (r) => r.rps).toFixed(0)} | ${runs.map((r) => r.rps.toFixed(0)).join(' / ')} | ` +
            `${med(side, (r) => r.p50).toFixed(0)} | ${med(side, (r) => r.p99).toFixed(0)} | ${med(side, (r) => r.cpuPerRequest).toFixed(2)} | ${med(side, (r) => r.pgCpuPerRequest).toFixed(2)} | ` +
            `${(med(side, (r) => r.gcShare) * 100).toFixed(0)}% | ${med(side, (r) => r.gcPerRequest).toFixed(2)} | ${med(side, (r) => r.statementsPerRequest).toFixed(1)} | ${med(side, (r) => r.kbPerResponse).toFixed(1)} | ${ratios} |`,
        );
        const failed = runs.reduce((n, r) => n + r.failed, 0);
        if (failed > 0) verdicts.push(`${shape.name} ${server.name} ${side}: ${failed} requests FAILED`);
      }
      if (SIDES.length === 2) {
        const rate = med('graphql', (r) => r.rps) / med('rest', (r) => r.rps);
        const p99 = med('graphql', (r) => r.p99) / med('rest', (r) => r.p99);
        verdicts.push(
          `${shape.label} (${server.name}): GraphQL at ${rate.toFixed(2)}x REST's rate (target >= ${TARGET_RATE}: ${rate >= TARGET_RATE ? 'met' : 'MISSED'}), ` +
            `p99 ${p99.toFixed(2)}x REST's (target <= ${TARGET_P99}: ${p99 <= TARGET_P99 ? 'met' : 'MISSED'})`,
        );
      }
    }
  }
  lines.push('', ...verdicts.map((v) => `- ${v}`));
  console.log(lines.join('\n'));
}
