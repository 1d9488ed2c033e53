/**
 * Information template benchmark (templates issue): a template at the field limit.
 *
 *   node_modules/node/bin/node bench/templates.bench.ts
 *
 * A throwaway database (shelf_bench_templates, dropped and recreated, dropped again at the end)
 * is migrated; team and key are made through the core. Then, through the real REST app (Fastify
 * inject: auth, validation, core, serialization, minus the socket), each run:
 *   - create: POST /v1/product-info-templates with 197 custom fields (200 with the system fields)
 *     over 4 groups, every field type with its config;
 *   - patch: PATCH that template with If-Match, replacing the whole definition (all 200 fields by
 *     id: every custom field renamed, one new group) - the heaviest PATCH the limits allow;
 *   - get: GET the patched template.
 * Medians over BENCH_RUNS runs (default 15) after BENCH_WARMUP runs (default 3) are printed as
 * Markdown. Settings: DATABASE_URL (the server to use; default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL.
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

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CUSTOM_FIELDS = 197;

const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = '/shelf_bench_templates';
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

const options = Array.from({ length: 20 }, (_, i) => ({ value: `v${i}`, label: `Option ${i}`, sortOrder: i }));
const CONFIGS: Array<[string, Record<string, unknown>]> = [
  ['text', {}],
  ['textarea', {}],
  ['email', {}],
  ['phone', {}],
  ['url', {}],
  ['color', {}],
  ['date', {}],
  ['dateRange', {}],
  ['number', { unit: 'kg' }],
  ['currency', { code: 'EUR', symbol: '€', decimals: 2 }],
  ['richtext', { mode: 'html' }],
  ['select', { options }],
  ['radio', { options }],
  ['checkbox', { options }],
  ['image', { maxCount: 5, maxSizeMB: 10, accept: ['image/png', 'image/jpeg'] }],
  ['file', { maxCount: 3 }],
];

/** 197 custom fields cycling through every type, spread over 4 groups (50 + 49 + 49 + 49). */
function createBody(name: string) {
  const groups = [0, 1, 2, 3].map((g) => ({ name: `Group ${g}`, fields: [] as Record<string, unknown>[] }));
  for (let i = 0; i < CUSTOM_FIELDS; i++) {
    const [type, config] = CONFIGS[i % CONFIGS.length]!;
    groups[i < 50 ? 0 : 1 + ((i - 50) % 3)]!.fields.push({ key: `field_${i}`, name: `Field ${i}`, type, config, placeholder: `Enter ${i}` });
  }
  return { name, description: 'benchmark', groups };
}

type Group = { id: string; name: string; fields: Array<{ id: string; isSystemField: boolean }> };

/** Every group and field kept by id, every custom field renamed, groups renamed. */
function patchBody(groups: Group[], run: number) {
  return {
    description: `run ${run}`,
    groups: groups.map((group) => ({
      id: group.id,
      name: `${group.name.replace(/ r\d+$/, '')} r${run}`,
      fields: group.fields.map((f) => (f.isSystemField ? { id: f.id } : { id: f.id, name: `Renamed ${run} ${f.id.slice(-6)}` })),
    })),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

await admin('drop database if exists shelf_bench_templates with (force)');
await admin('create database shelf_bench_templates');
const storageDir = await mkdtemp(join(tmpdir(), 'shelf-bench-templates-'));
const config = loadConfig({
  ...process.env,
  DATABASE_URL: databaseUrl.toString(),
  LOG_LEVEL: 'silent',
  STORAGE_DIR: storageDir,
  QUEUE_PREFIX: 'shelf-bench-templates',
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
  const headers = { authorization: `Bearer ${key}` };
  const requestBytes = Buffer.byteLength(JSON.stringify(createBody('size probe')));

  async function timed(method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown, extra: Record<string, string> = {}) {
    const started = performance.now();
    const res = await app.inject({ method, url, headers: { ...headers, ...extra }, payload: payload as object | undefined });
    const took = performance.now() - started;
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 500)}`);
    return { took, body: res.json(), etag: res.headers.etag as string, bytes: res.body.length };
  }

  const times = { create: [] as number[], patch: [] as number[], get: [] as number[] };
  let responseBytes = 0;
  for (let run = 0; run < WARMUP + RUNS; run++) {
    const created = await timed('POST', '/v1/product-info-templates', createBody(`Bench ${run}`));
    const fieldCount = created.body.data.groups.reduce((n: number, g: Group) => n + g.fields.length, 0);
    if (fieldCount !== 200) throw new Error(`created ${fieldCount} fields, expected 200`);
    const id = created.body.data.id as string;
    const patched = await timed('PATCH', `/v1/product-info-templates/${id}`, patchBody(created.body.data.groups, run), { 'if-match': created.etag });
    const read = await timed('GET', `/v1/product-info-templates/${id}`);
    if (read.etag !== patched.etag) throw new Error('GET after PATCH returned another ETag');
    responseBytes = read.bytes;
    if (run >= WARMUP) {
      times.create.push(created.took);
      times.patch.push(patched.took);
      times.get.push(read.took);
    }
  }
  const versions = await orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from template_versions where team_id = ?', [teamId]);
  if (versions[0]!.n !== 2 * (WARMUP + RUNS)) throw new Error(`expected ${2 * (WARMUP + RUNS)} versions, found ${versions[0]!.n}`);
  await app.close();

  console.log(`| measure (${RUNS} runs after ${WARMUP} warm-up, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}) | median | min | max |`);
  console.log('|---|---|---|---|');
  const row = (label: string, values: number[]) =>
    console.log(`| ${label} | ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} |`);
  row(`create, 197 custom fields (request ${(requestBytes / 1024).toFixed(0)} KiB)`, times.create);
  row('PATCH with If-Match replacing all 200 fields by id', times.patch);
  row(`GET the 200-field template (response ${(responseBytes / 1024).toFixed(0)} KiB)`, times.get);
} finally {
  await queues.close();
  await orm.close();
  await admin('drop database if exists shelf_bench_templates with (force)');
  await rm(storageDir, { recursive: true, force: true });
}
