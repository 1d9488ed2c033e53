/**
 * Generates the asset-search benchmark database (bench/support/search-seed.ts) and keeps it, so
 * bench/search.bench.ts can run against it repeatedly (BENCH_REUSE_DB=1):
 *
 *   BENCH_FILES=1000000 BENCH_REAL_IMAGES=2000 node_modules/node/bin/node bench/search-generate.ts
 *
 * The database is `shelf_bench_search` on DATABASE_URL's server (dropped and recreated); files live
 * under STORAGE_DIR (default ./data/bench-search). Prints the seed facts as one JSON object, which
 * the bench also stores in the database (table bench_seed) to find them again.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { databaseUrlNamed, dropDatabase } from './support/brand-seed.ts';
import { seedSearchLibrary } from './support/search-seed.ts';

export const BENCH_DATABASE = 'shelf_bench_search';

/** Creates, migrates and seeds the benchmark database; returns the facts the bench needs. */
export async function generateSearchDatabase(options: { files: number; realImages: number; storageDir: string }) {
  const databaseUrl = databaseUrlNamed(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', BENCH_DATABASE);
  await dropDatabase(databaseUrl);
  const admin = new pg.Client({ connectionString: databaseUrlNamed(databaseUrl, 'postgres') });
  await admin.connect();
  await admin.query(`create database ${BENCH_DATABASE}`);
  await admin.end();
  await mkdir(options.storageDir, { recursive: true });
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    STORAGE_DIR: options.storageDir,
    LINK_SIGNING_SECRET: 'bench-search-secret-bench-search-secret',
  });
  const orm = await openOrm({ databaseUrl });
  try {
    await migrateUp(orm);
    const seed = await seedSearchLibrary(createCore(orm, config, publicUrls(config.publicBaseUrl)), databaseUrl, options);
    await seed.cleanup();
    const facts = {
      teamId: seed.teamId,
      key: seed.key,
      folders: seed.folders,
      bigJpegId: seed.bigJpegId,
      realImageIds: seed.realImageIds,
      files: options.files,
      storageDir: options.storageDir,
    };
    await orm.em.fork().execute('create table bench_seed (facts jsonb not null)');
    await orm.em.fork().execute('insert into bench_seed (facts) values (?::jsonb)', [JSON.stringify(facts)]);
    return { databaseUrl, facts };
  } finally {
    await orm.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const { facts } = await generateSearchDatabase({
    files: Number(process.env.BENCH_FILES ?? 1_000_000),
    realImages: Number(process.env.BENCH_REAL_IMAGES ?? 2000),
    storageDir: resolve(process.env.STORAGE_DIR ?? './data/bench-search'),
  });
  console.error(`generated in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(JSON.stringify({ ...facts, realImageIds: facts.realImageIds.length }));
}
