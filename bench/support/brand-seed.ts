import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createCore } from '../../src/core/core.ts';
import { ensureDatabase, migrateUp, openOrm } from '../../src/db/orm.ts';
import { publicUrls } from '../../src/public-urls.ts';

/** What the benchmark loads: a view_only key of the measured team, one of its brands, its brand count. */
export interface BrandSeed {
  key: string;
  brandId: number;
  brandCount: number;
}

/** A database URL on the same server as `base`, naming another database. */
export function databaseUrlNamed(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the benchmark's throwaway database (and whatever is still connected to it). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const admin = new pg.Client({ connectionString: databaseUrlNamed(databaseUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  } finally {
    await admin.end();
  }
}

/** Drops and recreates the benchmark's throwaway database; seedBrands migrates it. */
export async function freshDatabase(databaseUrl: string): Promise<void> {
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
}

/**
 * Seeds through the core as an operator would: the measured team with `brandCount` brands and a
 * view_only key, and a second team with as many brands, so the team filter has rows to exclude.
 */
export async function seedBrands(databaseUrl: string, brandCount: number): Promise<BrandSeed> {
  const orm = await openOrm({ databaseUrl, poolMax: 4 });
  try {
    await migrateUp(orm);
    const coreConfig = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    const core = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
    const op = () => core.operatorCtx();
    const seedTeam = async (name: string) => {
      const { teamId } = await core.access.createTeam(op(), { name });
      const writer = await core.access.createKey(op(), { teamId, role: 'manage' });
      const ctx = core.ctxFor(await core.access.authenticate(op(), `Bearer ${writer.key}`), 'bench-seed');
      const ids: number[] = [];
      for (let i = 0; i < brandCount; i++) {
        const created = await core.catalogue.brands.create(ctx, {
          name: `${name} brand ${i}`,
          description: `A brand of ${name} used by the read benchmark, number ${i}.`,
          website: `https://brand-${i}.example.com/`,
          sortOrder: i % 17,
        });
        ids.push(created.body.id);
      }
      return { teamId, ids };
    };
    const measured = await seedTeam('Bench');
    await seedTeam('Other');
    const reader = await core.access.createKey(op(), { teamId: measured.teamId, role: 'view_only' });
    await orm.em.fork().execute('analyze');
    return { key: reader.key, brandId: measured.ids[Math.floor(brandCount / 2)]!, brandCount };
  } finally {
    await orm.close();
  }
}
