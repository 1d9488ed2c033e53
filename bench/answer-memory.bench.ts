/**
 * Answer memory (docs/operations.md "Memory"): a world filled to the documented limits, then every
 * large list and read of REST, GraphQL and the CLI asked for at its largest page size, 8 at once,
 * against the service started as `npm start` starts it (the `serve` script's Node flags, ROLE=all).
 * Reports, per endpoint, the statuses, the p95 time of the 8 and the service's peak RSS while they
 * ran (sampled from /proc every 20 ms), and the peak over the whole run.
 *
 *   node_modules/node/bin/node bench/answer-memory.bench.ts
 *
 * Sizes (environment): BENCH_TEMPLATES (80 templates of 0.93 MB: 197 select fields of 25 options),
 * BENCH_PRODUCTS (100 published products of 0.91 MB: 14 textarea values of 65,000 characters, 100
 * media references each), BENCH_CATEGORIES (5,000 in one brand: the spec's limit), BENCH_HISTORY
 * (100 updates of one product at 0.91 MB each). BENCH_REUSE_DB=1 keeps the database between runs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import sharp from 'sharp';
import { serviceNodeFlags } from './support/service-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATES = Number(process.env.BENCH_TEMPLATES ?? 80);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100);
const CATEGORIES = Number(process.env.BENCH_CATEGORIES ?? 5000);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 100);
const DATABASE = process.env.BENCH_DATABASE ?? 'shelf_bench_answer_memory';
const REUSE = process.env.BENCH_REUSE_DB === '1';
const PORT = Number(process.env.BENCH_PORT ?? 18_481);
const base = `http://127.0.0.1:${PORT}`;
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/${DATABASE}`);
const storageDir = mkdtempSync(join(tmpdir(), 'shelf-answer-memory-'));
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  STORAGE_DIR: storageDir,
  PORT: String(PORT),
  ROLE: 'all',
  LOG_LEVEL: 'warn',
  QUEUE_PREFIX: 'bench-mem',
};

function cli(...args: string[]): any {
  const out = execFileSync(process.execPath, ['src/cli/main.mjs', ...args], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  return JSON.parse(out);
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(sql);
  await client.end();
}

const children: ReturnType<typeof spawn>[] = [];

function startService() {
  const child = spawn(process.execPath, [...serviceNodeFlags(), 'src/main.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(child);
  return child;
}

async function waitHealthy(): Promise<void> {
  for (;;) {
    if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  } catch {
    return 0;
  }
}

async function call(key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

function maximalTemplate(n: number): unknown {
  const fields = Array.from({ length: 197 }, (_, i) => ({
    key: `f${i}`,
    name: `Field ${i}`,
    type: 'select',
    config: {
      options: Array.from({ length: 25 }, (_, j) => ({ value: `v${n % 10}-${i}-${j}-${'x'.repeat(76)}`, label: `Label ${j} ${'y'.repeat(70)}`, sortOrder: j })),
    },
  }));
  return { name: `Maximal ${n}`, groups: [{ name: 'Maximal', fields }] };
}

async function fill(): Promise<{ key: string; viewer: string; teamId: number; productId: number; brandId: number; textsTemplateId: string }> {
  const { teamId } = cli('team', 'create', '--name', 'Maximal');
  const key = cli('key', 'create', '--team', String(teamId), '--role', 'manage').key as string;
  const viewer = cli('key', 'create', '--team', String(teamId), '--role', 'view_only').key as string;
  // media: 100 distinct small images, imported once, referenced by every product
  const dir = mkdtempSync(join(tmpdir(), 'shelf-answer-memory-files-'));
  for (let i = 0; i < 100; i++) {
    await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: i, g: 255 - i, b: (i * 7) % 255 } } })
      .png()
      .toFile(join(dir, `m${i}.png`));
  }
  cli('asset', 'import', '--team', String(teamId), '--dir', dir, '--folder', '/media');
  const files = await call(key, 'POST', '/open/search-assets', { startPoint: 0, endPoint: 100 });
  const assets: Array<{ id: number | string }> = files.data?.assets ?? files.result?.assets ?? [];
  const mediaIds = assets.map((f) => Number(f.id)).filter((id) => Number.isSafeInteger(id) && id > 0);
  if (mediaIds.length < 100) throw new Error(`expected 100 imported media files, found ${mediaIds.length}: ${JSON.stringify(files).slice(0, 300)}`);
  const brand = await call(key, 'POST', '/v1/brands', { name: 'Maximal brand' });
  const brandId = brand.data.id as number;
  console.log(`filling: ${TEMPLATES} templates, ${PRODUCTS} products, ${CATEGORIES} categories, ${HISTORY} history entries`);
  for (let i = 0; i < TEMPLATES; i++) await call(key, 'POST', '/v1/product-info-templates', maximalTemplate(i));
  const texts = await call(key, 'POST', '/v1/product-info-templates', {
    name: 'Long texts',
    groups: [{ name: 'Texts', fields: Array.from({ length: 14 }, (_, i) => ({ key: `t${i}`, name: `Text ${i}`, type: 'textarea' })) }],
  });
  const fieldIds: string[] = texts.data.groups.flatMap((g: any) => g.fields.filter((f: any) => f.key.startsWith('t')).map((f: any) => f.id));
  const fields = (salt: string) => Object.fromEntries(fieldIds.map((id, i) => [id, `${salt}-${i} ${'z'.repeat(65_000)}`]));
  let productId = 0;
  for (let i = 0; i < PRODUCTS; i++) {
    const created = await call(key, 'POST', '/v1/products', {
      name: `Maximal product ${i}`,
      brandId,
      templateId: texts.data.id,
      templateFields: fields(String(i)),
      imageAssetIds: mediaIds.slice(0, 9),
      relatedAssetIds: mediaIds.slice(9, 100),
    });
    productId = created.data.id;
    await call(key, 'POST', `/v1/products/${productId}/publish`);
  }
  for (let i = 0; i < HISTORY; i++) await call(key, 'PATCH', `/v1/products/${productId}`, { templateFields: fields(`h${i}`) });
  // a second version of the products' template, so every product has an upgrade to preview
  const current = await call(key, 'GET', `/v1/product-info-templates/${texts.data.id}`);
  const groups = current.data.groups.map((g: any, i: number) => {
    const kept = g.fields.map((f: any) => ({ id: f.id }));
    return { id: g.id, name: g.name, fields: i === 0 ? [...kept, { key: 'extra', name: 'Extra', type: 'text' }] : kept };
  });
  await call(key, 'PATCH', `/v1/product-info-templates/${texts.data.id}`, { groups });
  // 5,000 categories: 50 roots of 99 children each
  let made = 0;
  for (let r = 0; made < CATEGORIES; r++) {
    const root = await call(key, 'POST', '/v1/categories', { brandId, name: `Root ${r}` });
    made++;
    for (let c = 0; c < 99 && made < CATEGORIES; c++, made++)
      await call(key, 'POST', '/v1/categories', { brandId, name: `Child ${r}-${c}`, parentId: root.data.id });
  }
  return { key, viewer, teamId, productId, brandId, textsTemplateId: texts.data.id as string };
}

interface Probe {
  name: string;
  run: () => Promise<number>;
}

function rest(name: string, key: string, method: string, path: string, body?: unknown): Probe {
  return {
    name,
    run: async () => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    },
  };
}

function graphql(name: string, key: string, query: string): Probe {
  return {
    name,
    run: async () => {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
      return body.errors ? (`${res.status} ${body.errors[0]?.extensions?.code}` as unknown as number) : res.status;
    },
  };
}

async function measure(pid: number, probe: Probe): Promise<{ statuses: string; p95: number; peak: number }> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  const times: number[] = [];
  const statuses = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const started = performance.now();
      const status = await probe.run().catch((e: Error) => `failed: ${e.message}`);
      times.push(performance.now() - started);
      return String(status);
    }),
  );
  clearInterval(sampler);
  times.sort((a, b) => a - b);
  const counted = new Map<string, number>();
  for (const s of statuses) counted.set(s, (counted.get(s) ?? 0) + 1);
  return { statuses: [...counted].map(([s, n]) => `${n}× ${s}`).join(', '), p95: times[Math.ceil(0.95 * times.length) - 1]!, peak };
}

async function main(): Promise<void> {
  if (!REUSE) await admin(`drop database if exists "${DATABASE}" with (force)`);
  let service = startService();
  await waitHealthy();
  const statePath = join(tmpdir(), `${DATABASE}.json`);
  let world: Awaited<ReturnType<typeof fill>>;
  if (REUSE) world = JSON.parse(readFileSync(statePath, 'utf8'));
  else {
    const started = performance.now();
    world = await fill();
    writeFileSync(statePath, JSON.stringify(world));
    console.log(`filled in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    // measure from a fresh process, as after a deploy
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    service = startService();
    await waitHealthy();
  }
  const pid = service.pid!;
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMb(pid);
  const { key, viewer, productId, brandId } = world;
  console.log(`idle RSS ${idle.toFixed(0)} MB`);
  const probes: Probe[] = [
    rest('GET /v1/product-info-templates?pageSize=100', viewer, 'GET', '/v1/product-info-templates?pageSize=100'),
    rest('GET /v1/products?pageSize=100', viewer, 'GET', '/v1/products?pageSize=100'),
    rest('GET /v1/products?sync=true&pageSize=100', viewer, 'GET', '/v1/products?sync=true&updatedAfter=2000-01-01T00:00:00Z&pageSize=100'),
    rest('GET /v1/products?sync=true&changes=true', viewer, 'GET', '/v1/products?sync=true&changes=true&pageSize=100'),
    rest('GET /v1/products/{id}', viewer, 'GET', `/v1/products/${productId}`),
    rest('GET /v1/products/{id}/history?pageSize=100', key, 'GET', `/v1/products/${productId}/history?pageSize=100`),
    rest('GET /v1/activity-records?pageSize=100', key, 'GET', '/v1/activity-records?pageSize=100'),
    rest('GET /v1/categories?pageSize=100', viewer, 'GET', `/v1/categories?brandId=${brandId}&pageSize=100`),
    rest(
      'GET /v1/products/template-upgrades?pageSize=100',
      key,
      'GET',
      `/v1/products/template-upgrades?templateId=${world.textsTemplateId}&from=1&pageSize=100`,
    ),
    rest('POST /open/search-assets (100)', viewer, 'POST', '/open/search-assets', { startPoint: 0, endPoint: 100 }),
    graphql('GraphQL templates(pageSize: 10) with groups', viewer, '{ templates(pageSize: 10) { items { id groups { fields { key config } } } } }'),
    graphql('GraphQL products(pageSize: 100) with templateFields', viewer, '{ products(pageSize: 100) { items { id templateFields } } }'),
    graphql('GraphQL products(pageSize: 10) with templateFields', viewer, '{ products(pageSize: 10) { items { id templateFields images { id } } } }'),
    graphql('GraphQL productSync(pageSize: 100)', viewer, '{ productSync(pageSize: 100) { items { ... on Product { id templateFields } } } }'),
    graphql('GraphQL productHistory(pageSize: 100)', key, `{ productHistory(id: ${productId}, pageSize: 100) { items { id changes } } }`),
    graphql('GraphQL categories tree', viewer, `{ categories(brandId: ${brandId}, pageSize: 100) { items { id name } } }`),
  ];
  const rows: string[] = [];
  let overall = idle;
  for (const probe of probes) {
    const result = await measure(pid, probe);
    overall = Math.max(overall, result.peak);
    const alive = (await fetch(`${base}/healthz`).catch(() => null))?.ok === true;
    rows.push(`| ${probe.name} | ${result.statuses} | ${result.p95.toFixed(0)} | ${result.peak.toFixed(0)} | ${alive ? 'yes' : 'NO'} |`);
    console.log(rows.at(-1));
    if (!alive) break;
  }
  // the CLI: a list over the same data (its own process)
  const cliStarted = performance.now();
  const cliOut = execFileSync(process.execPath, ['src/cli/main.mjs', 'webhook', 'list', '--team', String(world.teamId)], { cwd: ROOT, env, encoding: 'utf8' });
  rows.push(`| CLI webhook list | ${cliOut.length} bytes | ${(performance.now() - cliStarted).toFixed(0)} | (own process) | yes |`);
  console.log(`\nidle RSS ${idle.toFixed(0)} MB, peak RSS over the run ${overall.toFixed(0)} MB\n`);
  console.log('| endpoint (8 at once) | answers | p95 ms | peak RSS MB | alive after |\n|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));
}

await main().catch((error: unknown) => {
  console.error(error);
  // the service inherits this process's output: stop every child so the run ends
  process.exitCode = 1;
  for (const child of children) child.kill('SIGTERM');
});
