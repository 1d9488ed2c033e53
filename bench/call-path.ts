/**
 * The call path of one product create, counted by V8 rather than by hand:
 *
 *   node bench/call-path.ts            (or BENCH_COMPARE_DIR=<another checkout>: its code measured too)
 *
 * A throwaway database (shelf_bench_call_path, dropped at the end) gets a team, a brand with a
 * category, a template of two fields and four PNG library files. Then one product create, as
 * created in the GraphQL benchmark (brand, category, template, cover, 3 images, 2 related files,
 * both fields), runs three ways: `ProductService.create` called directly, `POST /v1/products` and
 * the `createProduct` mutation (both through Fastify's inject: the real pipeline, no socket). Each
 * runs 5 times first, so that what is measured is a warm call, not module loading.
 *
 * V8's precise coverage with call counts (inspector `Profiler.takePreciseCoverage`) counts every
 * call of every function. A "stop" is a call of a function written in `src/` (node_modules and
 * this script left out); reported: the distinct functions stopped at, the calls in all, the files
 * they are in, and the functions called after the transaction's COMMIT (the climbs back up once
 * the work is done: seen by taking a coverage snapshot when pg is asked to commit). Set
 * CALL_PATH_LIST=1 for every function with its calls.
 */

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type pgTypes from 'pg';
import sharp from 'sharp';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';

const env = process.env;
const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', env.BENCH_DATABASE ?? 'shelf_bench_call_path');
const SECRET = 'call-path-signing-secret-0123456789abcdef';

interface FunctionCoverage {
  functionName: string;
  ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

const session = new Session();
session.connect();
/** The inspector answers a same-thread session synchronously: the snapshot at COMMIT is taken before pg sends it. */
function post<T>(method: string, params?: object): T {
  let out: T | undefined;
  let failure: Error | null = null;
  session.post(method, params ?? {}, (error, result) => {
    failure = error;
    out = result as T;
  });
  if (failure) throw failure;
  if (out === undefined) throw new Error(`inspector ${method} did not answer synchronously`);
  return out;
}

/** One function's calls in one snapshot, keyed by file and position. */
type Calls = Map<string, { name: string; file: string; line: number; calls: number }>;

async function snapshot(root: string, sources: Map<string, string>, taken: ScriptCoverage[]): Promise<Calls> {
  const calls: Calls = new Map();
  for (const script of taken) {
    if (!script.url.startsWith('file://')) continue;
    const path = fileURLToPath(script.url);
    const file = relative(root, path);
    if (!file.startsWith('src/')) continue;
    for (const fn of script.functions) {
      const count = fn.ranges[0]?.count ?? 0;
      // the first function of a script is the module itself: evaluated once at load, never called
      if (count === 0 || fn.ranges[0]!.startOffset === 0) continue;
      if (!sources.has(path)) sources.set(path, await readFile(path, 'utf8'));
      const line = sources.get(path)!.slice(0, fn.ranges[0]!.startOffset).split('\n').length;
      const key = `${file}:${line}:${fn.functionName}`;
      const seen = calls.get(key);
      calls.set(key, { name: fn.functionName || '(anonymous)', file, line, calls: (seen?.calls ?? 0) + count });
    }
  }
  return calls;
}

interface PathCount {
  functions: number;
  calls: number;
  files: number;
  afterCommit: Calls;
  all: Calls;
}

/** Runs `work` once under coverage; the functions called after a COMMIT are counted apart. */
async function measure(root: string, pg: typeof pgTypes, work: () => Promise<unknown>): Promise<PathCount> {
  const sources = new Map<string, string>();
  let beforeCommit: ScriptCoverage[] | null = null;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pgTypes.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '');
    if (/^\s*commit\b/i.test(text) && beforeCommit === null) beforeCommit = post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage').result;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  post('Profiler.takePreciseCoverage');
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  const after = post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage').result;
  const first = await snapshot(root, sources, beforeCommit ?? []);
  const second = await snapshot(root, sources, after);
  const all: Calls = new Map(first);
  for (const [key, entry] of second) all.set(key, { ...entry, calls: (all.get(key)?.calls ?? 0) + entry.calls });
  const afterCommit = second;
  return {
    functions: all.size,
    calls: [...all.values()].reduce((n, e) => n + e.calls, 0),
    files: new Set([...all.values()].map((e) => e.file)).size,
    afterCommit,
    all,
  };
}

async function measureCheckout(root: string): Promise<Record<string, PathCount>> {
  const at = (path: string) => pathToFileURL(join(root, path)).href;
  const { loadConfig } = await import(at('src/config.ts'));
  const { createCore } = await import(at('src/core/core.ts'));
  const { migrateUp, openOrm } = await import(at('src/db/orm.ts'));
  const { Queues } = await import(at('src/queues.ts'));
  const { createMetrics } = await import(at('src/observability/metrics.ts'));
  const { buildApp } = await import(at('src/rest/app.ts'));
  const pg = createRequire(join(root, 'package.json'))('pg') as typeof pgTypes;

  const storageDir = await mkdtemp(join(tmpdir(), 'shelf-call-path-'));
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    STORAGE_DIR: storageDir,
    LINK_SIGNING_SECRET: SECRET,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    QUEUE_PREFIX: 'shelf-bench-call-path',
  });
  const orm = await openOrm({ databaseUrl, poolMax: 4 });
  const queues = new Queues(config);
  try {
    await migrateUp(orm);
    const core = createCore(orm, config);
    const app = await buildApp({ core, queues, metrics: createMetrics({ orm, queues: () => queues.all() }), liveUpdates: false });
    await app.ready();
    const op = () => core.operatorCtx();
    const { teamId } = await core.access.createTeam(op(), { name: `Call path ${root}` });
    const { key } = await core.access.createKey(op(), { teamId, role: 'manage' });
    const actor = await core.access.authenticate(op(), `Bearer ${key}`);
    const ctx = () => core.ctxFor(actor, 'call-path');
    const brand = (await core.catalogue.brands.create(ctx(), { name: 'Brand' })).body;
    const category = (await core.catalogue.categories.create(ctx(), { brandId: brand.id, name: 'Category' })).body;
    const template = (
      await core.catalogue.templates.create(ctx(), {
        name: 'Products',
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
    const fieldId = (k: string) =>
      template.groups.flatMap((g: { fields: Array<{ id: string; key: string }> }) => g.fields).find((f: { key: string }) => f.key === k)!.id;
    const fileIds: number[] = [];
    for (let i = 0; i < 6; i++) {
      const path = join(storageDir, `input-${i}.png`);
      await sharp({ create: { width: 16 + i, height: 16, channels: 3, background: '#336699' } })
        .png()
        .toFile(path);
      fileIds.push((await core.assets.libraryImport.importFile(op(), { team: teamId, file: path, name: `image-${i}.png`, folder: '/call-path' })).id);
    }
    let n = 0;
    const input = () => ({
      name: `Product ${++n}`,
      spu: `SPU-${n}`,
      description: 'Measured.',
      brandId: brand.id,
      categoryId: category.id,
      templateId: template.id,
      templateFields: { [fieldId('material')]: 'cotton', [fieldId('weight')]: 1.5 },
      imageAssetIds: fileIds.slice(0, 3),
      coverAssetId: fileIds[1],
      relatedAssetIds: fileIds.slice(3, 5),
    });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const ways: Record<string, () => Promise<unknown>> = {
      'ProductService.create': async () => core.catalogue.products.create(ctx(), input()),
      'POST /v1/products': async () => {
        const res = await app.inject({ method: 'POST', url: '/v1/products', headers, payload: JSON.stringify(input()) });
        if (res.statusCode !== 201) throw new Error(`POST /v1/products: ${res.statusCode} ${res.body}`);
      },
      'createProduct (GraphQL)': async () => {
        const query = `mutation($input: ProductCreateInput!) { createProduct(input: $input) { etag product { id name brand { name } category { name } cover { id name previewUrl } images { id name previewUrl } templateFields } } }`;
        const res = await app.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query, variables: { input: input() } }) });
        if (res.statusCode !== 200 || res.json().errors) throw new Error(`createProduct: ${res.statusCode} ${res.body}`);
      },
    };
    const out: Record<string, PathCount> = {};
    for (const [name, work] of Object.entries(ways)) {
      for (let i = 0; i < 5; i++) await work();
      out[name] = await measure(root, pg, work);
    }
    await app.close();
    return out;
  } finally {
    await queues.close();
    await orm.close();
    await rm(storageDir, { recursive: true, force: true });
  }
}

post('Profiler.enable');
post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const roots = [resolve(fileURLToPath(new URL('..', import.meta.url)))];
if (env.BENCH_COMPARE_DIR) roots.push(resolve(env.BENCH_COMPARE_DIR));
const lines: string[] = [];
try {
  for (const root of roots) {
    await freshDatabase(databaseUrl);
    const counts = await measureCheckout(root);
    lines.push(
      `### ${root}`,
      '',
      '| call | functions | calls | files | functions called after COMMIT | their calls | their files |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const [name, c] of Object.entries(counts)) {
      const after = [...c.afterCommit.values()];
      const files = new Set(after.map((e) => e.file)).size;
      lines.push(`| ${name} | ${c.functions} | ${c.calls} | ${c.files} | ${after.length} | ${after.reduce((n, e) => n + e.calls, 0)} | ${files} |`);
    }
    for (const [name, c] of Object.entries(counts)) {
      const after = [...c.afterCommit.values()].map((e) => `${e.name} (${e.file.replace(/^src\//, '')}:${e.line})`);
      lines.push('', `${name}, after COMMIT: ${after.join(', ')}`);
    }
    if (env.CALL_PATH_LIST === '1') {
      for (const [name, c] of Object.entries(counts)) {
        lines.push('', `${name}:`);
        for (const e of [...c.all.values()].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line))
          lines.push(`- ${e.file}:${e.line} ${e.name} x${e.calls}`);
      }
    }
    lines.push('');
  }
} finally {
  await dropDatabase(databaseUrl);
}
console.log(lines.join('\n'));
