/**
 * Generates the products benchmark database (products issue): 1,000,000 products with media.
 *
 *   node_modules/node/bin/node bench/products-generate.ts            drop, recreate, migrate, generate
 *   node_modules/node/bin/node bench/products-generate.ts --reuse    keep the database when it is complete
 *
 * What it makes (database `shelf_bench_products` on the server of DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres; BENCH_PRODUCTS_DB and BENCH_PRODUCT_COUNT override
 * name and size for a dry run):
 * - through the core, as an operator and a manage key would: the measured team "Bench" (members,
 *   20 brands, 3 root categories with 4 children per brand, one template with text, number and
 *   image fields) and a second team "Other", so every query has rows of another team to exclude;
 * - with set-based SQL: 5,000 library files per measured team (stored objects and placements,
 *   metadata only, as asset import would write them: 90% JPEG images, 10% PDFs) and
 *   BENCH_PRODUCT_COUNT (1,000,000) live products, plus 0.5% as many soft-deleted ones, and 2% as
 *   many products of the other team. Products mix published (80%) and drafts, have 3 images, an
 *   explicit cover on 40%, a related PDF on 30%, a template with values on half (an image field
 *   value on half of those), and timestamps spread over a year (all older than an hour, so every
 *   row is inside a sync window).
 * The product indexes are dropped during the bulk insert and recreated from their own definitions
 * (pg_indexes), then VACUUM ANALYZE, as a long-lived database would be.
 */
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';

const env = process.env;
export const PRODUCTS_DB = env.BENCH_PRODUCTS_DB ?? 'shelf_bench_products';
const PRODUCT_COUNT = Number(env.BENCH_PRODUCT_COUNT ?? 1_000_000);
const FILES_PER_TEAM = 5000;
const BRANDS = 20;
const ROOTS_PER_BRAND = 3;
const CHILDREN_PER_ROOT = 4;

/** The product name vocabulary: the benchmark's search term is one collection word (1 product in 50). */
const ADJECTIVES = ['Compact', 'Classic', 'Modern', 'Rustic', 'Slim', 'Grand', 'Nordic', 'Urban', 'Soft', 'Bold'];
const MATERIALS = ['walnut', 'oak', 'steel', 'linen', 'wool', 'marble', 'glass', 'leather', 'bamboo', 'cotton'];
const NOUNS = ['chair', 'table', 'lamp', 'sofa', 'shelf', 'desk', 'stool', 'bench', 'rug', 'mirror'];
const COLLECTIONS = Array.from({ length: 50 }, (_, i) => `Series${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
COLLECTIONS[7] = 'Aurora';
export const SEARCH_TERM = 'aurora';

export const databaseUrl = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', PRODUCTS_DB);

const sqlArray = (values: string[]) => `(array[${values.map((v) => `'${v}'`).join(',')}])`;

/** The generated database is complete when its marker row says so (written last). */
async function isComplete(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch {
    return false;
  }
  try {
    const { rows } = await client.query<{ value: string }>(`select value from settings where name = 'bench_products_generated'`);
    return rows[0]?.value === String(PRODUCT_COUNT);
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

interface TeamSeed {
  teamId: number;
  memberIds: number[];
  brandIds: number[];
  /** Category ids per brand index. */
  categoryIds: number[][];
  templateId: string;
  versionId: string;
  fields: { material: string; weight: string; detailShots: string };
}

/** Team, members, brands, categories and a template through the core, as an operator and a manage key would. */
async function seedTeamThroughCore(
  core: ReturnType<typeof createCore>,
  name: string,
  db: (sql: string, params?: unknown[]) => Promise<any[]>,
): Promise<TeamSeed> {
  const op = () => core.operatorCtx();
  const { teamId } = await core.access.createTeam(op(), { name });
  const memberIds: number[] = [];
  for (let i = 0; i < 5; i++) memberIds.push((await core.access.addMember(op(), { teamId, name: `${name} member ${i}` })).userId);
  const writer = await core.access.createKey(op(), { teamId, role: 'manage' });
  const ctx = core.ctxFor(await core.access.authenticate(op(), `Bearer ${writer.key}`), 'bench-generate');
  const brandIds: number[] = [];
  const categoryIds: number[][] = [];
  for (let b = 0; b < BRANDS; b++) {
    const brand = (await core.catalogue.brands.create(ctx, { name: `${name} brand ${b}`, description: `Brand ${b} of the products benchmark.`, sortOrder: b }))
      .body;
    brandIds.push(brand.id);
    const ids: number[] = [];
    for (let r = 0; r < ROOTS_PER_BRAND; r++) {
      const root = (await core.catalogue.categories.create(ctx, { brandId: brand.id, name: `Range ${r}` })).body;
      ids.push(root.id);
      for (let c = 0; c < CHILDREN_PER_ROOT; c++)
        ids.push((await core.catalogue.categories.create(ctx, { brandId: brand.id, parentId: root.id, name: `Line ${r}.${c}` })).body.id);
    }
    categoryIds.push(ids);
  }
  const template = (
    await core.catalogue.templates.create(ctx, {
      name: 'Furniture',
      groups: [
        {
          name: 'Specs',
          fields: [
            { key: 'material', name: 'Material', type: 'text' },
            { key: 'weight', name: 'Weight', type: 'number', config: { unit: 'kg' } },
            { key: 'detailShots', name: 'Detail shots', type: 'image', config: { maxCount: 3 } },
          ],
        },
      ],
    })
  ).body;
  const fieldId = (key: string) => template.groups.flatMap((g) => g.fields).find((f) => f.key === key)!.id;
  const [version] = await db('select current_version_id as id from product_info_templates where id = $1', [template.id]);
  return {
    teamId,
    memberIds,
    brandIds,
    categoryIds,
    templateId: template.id,
    versionId: version.id,
    fields: { material: fieldId('material'), weight: fieldId('weight'), detailShots: fieldId('detailShots') },
  };
}

/** Library files as asset import writes them (stored object + placement at the root), metadata only; returns the first file id. */
async function insertLibraryFiles(
  client: pg.Client,
  seed: TeamSeed,
  count: number,
): Promise<{ firstImage: number; images: number; firstPdf: number; pdfs: number }> {
  const images = Math.floor(count * 0.9);
  const member = seed.memberIds[0]!;
  await client.query(
    `insert into stored_objects (team_id, sha256, storage_key, mime_type, byte_size, width, height, duration_ms, create_user_id, created_at)
     select $1::int, h, 'objects/' || left(h, 2) || '/' || h,
            case when i <= $3 then 'image/jpeg' else 'application/pdf' end,
            20000 + (i * 7919) % 3000000,
            case when i <= $3 then 800 + (i % 5) * 200 end, case when i <= $3 then 600 + (i % 4) * 150 end, null, $4,
            now() - interval '400 days' + i * interval '1 minute'
       from generate_series(1, $2) i, lateral (select encode(sha256(convert_to('bench-' || $1::int || '-' || i, 'UTF8')), 'hex') as h) x
      order by i`,
    [seed.teamId, count, images, member],
  );
  const { rows } = await client.query<{ id: number }>(
    `insert into library_files (team_id, folder_id, object_id, name, extension, mime_type, byte_size, width, height, duration_ms,
                                description, source, owner_id, creator_id, create_user_id, update_user_id, created_at, updated_at)
     select o.team_id, null, o.id,
            case when o.mime_type = 'image/jpeg' then 'photo-' || lpad(n::text, 5, '0') || '.jpg' else 'spec-sheet-' || lpad(n::text, 5, '0') || '.pdf' end,
            case when o.mime_type = 'image/jpeg' then 'jpg' else 'pdf' end,
            o.mime_type, o.byte_size, o.width, o.height, o.duration_ms,
            'Benchmark file ' || n, 2, $2, $2, $2, $2, o.created_at, o.created_at
       from (select s.*, row_number() over (order by s.id) as n from stored_objects s where s.team_id = $1) o
      order by o.id
     returning id`,
    [seed.teamId, member],
  );
  const ids = rows.map((r) => r.id).sort((a, b) => a - b);
  // ids are consecutive (one statement, one sequence), images first
  return { firstImage: ids[0]!, images, firstPdf: ids[images]!, pdfs: count - images };
}

/**
 * `count` products of a team in one INSERT ... SELECT. Row i is deterministic: its brand, category,
 * media and timestamps are functions of i (pseudo-random through multiplicative hashing).
 */
async function insertProducts(
  client: pg.Client,
  seed: TeamSeed,
  files: Awaited<ReturnType<typeof insertLibraryFiles>>,
  count: number,
  offset: number,
  deleted: boolean,
): Promise<void> {
  const categories = `(array[${seed.categoryIds.map((ids) => `array[${ids.join(',')}]`).join(',')}])`;
  await client.query(
    `insert into products (team_id, name, spu, description, status, brand_id, category_id, owner_id, draft_reason, template_id, template_version_id,
                           template_fields, media_fields, cover_file_id, image_file_ids, related_file_ids, media_file_ids,
                           published_at, created_at, updated_at, deleted_at)
     select $1::int, name, spu, description, status, brand_id, category_id, owner_id, draft_reason, template_id, template_version_id,
            template_fields, media_fields, cover_file_id, images, related, media, published_at, created_at, updated_at,
            case when $12 then updated_at + interval '1 hour' end
       from (
         select g.i, b, t,
                initcap(${sqlArray(ADJECTIVES)}[1 + g.i % 10]) || ' ' || ${sqlArray(MATERIALS)}[1 + (g.i / 10) % 10] || ' '
                  || ${sqlArray(NOUNS)}[1 + (g.i / 100) % 10] || ' ' || ${sqlArray(COLLECTIONS)}[1 + (g.i * 7) % 50] || ' ' || g.i as name,
                'SPU-' || $1::int || '-' || lpad(g.i::text, 8, '0') as spu,
                case when g.i % 4 = 0 then null else 'A benchmark product, number ' || g.i || ', with a description of ordinary length for a catalogue entry.' end as description,
                case when g.i % 5 = 0 then 'draft' else 'published' end as status,
                ($2::int[])[1 + b] as brand_id,
                case when g.i % 10 = 0 then null else (${categories})[1 + b][1 + (g.i / 20) % ${ROOTS_PER_BRAND * (CHILDREN_PER_ROOT + 1)}] end as category_id,
                case when g.i % 3 = 0 then null else ($3::int[])[1 + g.i % array_length($3::int[], 1)] end as owner_id,
                -- the template has no required field and every draft has a name: each could be published as it stands
                null::text as draft_reason,
                case when t then $4 end as template_id,
                case when t then $5 end as template_version_id,
                case when t then jsonb_build_object($6::text, ${sqlArray(MATERIALS)}[1 + (g.i / 10) % 10], $7::text, round((g.i % 400) / 10.0, 1)) else '{}'::jsonb end as template_fields,
                case when t and g.i % 4 = 2 then jsonb_build_object($8::text, jsonb_build_array($9 + (g.i * 31) % $10)) else '{}'::jsonb end as media_fields,
                case when g.i % 5 < 2 then $9 + (g.i * 17) % $10 end as cover_file_id,
                array[$9 + (g.i * 7) % $10, $9 + (g.i * 7 + 1) % $10, $9 + (g.i * 7 + 2) % $10] as images,
                case when g.i % 10 < 3 then array[$11 + g.i % $13] else '{}'::int[] end as related,
                case when g.i % 5 = 0 then null else ts + interval '2 hours' end as published_at,
                ts as created_at,
                -- updated some time after creation, never within the last hour (so inside any sync window)
                least(ts + ((g.i::bigint * 104729) % 2592000)::int * interval '1 second' + (g.i % 997) * interval '1 microsecond', now() - interval '1 hour') as updated_at
           from generate_series($14::int + 1, $14::int + $15::int) g(i),
                lateral (select (g.i * 13) % ${BRANDS} as b, g.i % 2 = 0 as t,
                                now() - interval '400 days' + g.i * (interval '365 days' / ($14::int + $15::int)) as ts) x
       ) s,
       lateral (select array(select distinct m from unnest(
                  images || related || coalesce(cover_file_id, images[1]) ||
                  coalesce((select array_agg(v::int) from jsonb_array_elements_text(media_fields -> $8::text) v), '{}')) m order by m) as media) mm
      order by s.i`,
    [
      seed.teamId,
      seed.brandIds,
      seed.memberIds,
      seed.templateId,
      seed.versionId,
      seed.fields.material,
      seed.fields.weight,
      seed.fields.detailShots,
      files.firstImage,
      files.images,
      files.firstPdf,
      deleted,
      files.pdfs,
      offset,
      count,
    ],
  );
}

/** The product indexes (all but the primary key), saved so the bulk insert runs without them. */
async function dropProductIndexes(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes where schemaname = 'public' and tablename = 'products' and indexname <> 'products_pkey'`,
  );
  for (const row of rows) await client.query(`drop index "${row.name}"`);
  return rows.map((r) => r.def);
}

async function generate(): Promise<void> {
  const started = performance.now();
  const step = (label: string, since: number) => console.error(`${label}: ${((performance.now() - since) / 1000).toFixed(1)} s`);
  await freshDatabase(databaseUrl);
  const orm = await openOrm({ databaseUrl, poolMax: 4 });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let t = performance.now();
    await migrateUp(orm);
    const coreConfig = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    const core = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
    const db = async (sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows;
    const bench = await seedTeamThroughCore(core, 'Bench', db);
    const other = await seedTeamThroughCore(core, 'Other', db);
    step('migrate; teams, members, brands, categories, templates through the core', t);

    t = performance.now();
    const benchFiles = await insertLibraryFiles(client, bench, FILES_PER_TEAM);
    const otherFiles = await insertLibraryFiles(client, other, FILES_PER_TEAM / 10);
    step(`library: ${FILES_PER_TEAM + FILES_PER_TEAM / 10} stored objects and files`, t);

    t = performance.now();
    const indexes = await dropProductIndexes(client);
    await client.query(`set maintenance_work_mem = '512MB'`);
    // no triggers (foreign keys, the deferred version bump) for the bulk insert: rows are consistent by construction
    await client.query(`set session_replication_role = replica`);
    const chunk = 250_000;
    for (let offset = 0; offset < PRODUCT_COUNT; offset += chunk) {
      await insertProducts(client, bench, benchFiles, Math.min(chunk, PRODUCT_COUNT - offset), offset, false);
      console.error(`  ${Math.min(offset + chunk, PRODUCT_COUNT)} products`);
    }
    const deletedCount = Math.floor(PRODUCT_COUNT * 0.005);
    await insertProducts(client, bench, benchFiles, deletedCount, PRODUCT_COUNT, true);
    await insertProducts(client, other, otherFiles, Math.floor(PRODUCT_COUNT * 0.02), 0, false);
    await client.query(`reset session_replication_role`);
    // what the skipped trigger would have done: the teams' product versions exist
    await client.query(
      `insert into product_versions (team_id, version) values ($1, 1), ($2, 1) on conflict (team_id) do update set version = product_versions.version + 1`,
      [bench.teamId, other.teamId],
    );
    step(`products: ${PRODUCT_COUNT} live + ${deletedCount} deleted (Bench), ${Math.floor(PRODUCT_COUNT * 0.02)} (Other)`, t);

    t = performance.now();
    for (const def of indexes) await client.query(def);
    step(`${indexes.length} product indexes rebuilt`, t);

    t = performance.now();
    await client.query('vacuum (analyze) products, library_files, stored_objects');
    await client.query('analyze');
    step('vacuum analyze', t);
    await client.query(`insert into settings (name, value) values ('bench_products_generated', $1) on conflict (name) do update set value = excluded.value`, [
      String(PRODUCT_COUNT),
    ]);
    step('generated in', started);
  } catch (e) {
    await client.end();
    await orm.close();
    await dropDatabase(databaseUrl);
    throw e;
  }
  await client.end();
  await orm.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--reuse') && (await isComplete(databaseUrl))) {
    console.error(`${PRODUCTS_DB} is complete (${PRODUCT_COUNT} products); reused`);
  } else {
    await generate();
  }
}

export { isComplete };
