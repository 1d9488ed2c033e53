import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { entities } from '../core/entities.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

/** The table MikroORM's migrator records executed migrations in (its default), one row per migration name. */
const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/** An arbitrary constant: the advisory lock every process takes around migrations. */
const MIGRATION_LOCK_ID = 7_424_201;

export interface OrmOptions {
  databaseUrl: string;
  /** pg pool size; 10 served 32 concurrent callers best on 2 cores (STACK.md). */
  poolMax?: number;
  debug?: boolean;
}

export function ormConfig(options: OrmOptions) {
  return defineConfig({
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 10 },
    migrations: {
      path: MIGRATIONS_DIR,
      tableName: MIGRATIONS_TABLE,
      pathTs: MIGRATIONS_DIR,
      emit: 'ts',
      // no snapshot file: `migrate:create` diffs the entities against a database migrated to the
      // latest migration, so work on separate branches cannot leave a stale snapshot behind
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    debug: options.debug ?? process.env.ORM_DEBUG === '1',
  });
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/** Creates the database named in the URL when it does not exist (CONTRACT.md), tolerating a racing creator. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database "${name.replaceAll('"', '""')}"`);
      } catch (e) {
        // 42P04 duplicate_database, 23505: another process created it between our check and create
        const code = (e as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw e;
      }
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so two processes starting
 * together run them once: the second waits, then finds nothing pending.
 */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const em = orm.em.fork();
  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_ID]);
    const applied = await orm.migrator.up({ transaction: tx.getTransactionContext() });
    return applied.map((m) => m.name);
  });
}

/** The migration names the migrator reads from MIGRATIONS_DIR: its file names without the extension. */
function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.replace(/\.(ts|js)$/, ''));
}

/**
 * The migrations not yet applied, in one read of the migrations table and without loading the
 * migrator: every file's name must be recorded there. A database or table that does not exist yet
 * has every migration pending. The operator CLI checks this on every run and runs migrateUp only
 * when something is pending.
 */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const names = migrationNames();
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (e) {
    // 3D000 invalid_catalog_name: the database is created and migrated by the caller
    if ((e as { code?: string }).code === '3D000') return names;
    throw e;
  }
  try {
    const applied = await client.query<{ name: string }>(`select name from ${MIGRATIONS_TABLE} where name = any($1::text[])`, [names]);
    const done = new Set(applied.rows.map((row) => row.name));
    return names.filter((name) => !done.has(name));
  } catch (e) {
    // 42P01 undefined_table: a database no migration has run in yet
    if ((e as { code?: string }).code === '42P01') return names;
    throw e;
  } finally {
    await client.end();
  }
}
