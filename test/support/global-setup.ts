import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, migrateUp, openOrm } from '../../src/db/orm.ts';
import { adminUrl, databaseUrlFor } from './databases.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/** Migrates one template database per run; every test file clones it (CREATE DATABASE ... TEMPLATE). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = `shelf_tpl_${process.pid}_${Date.now().toString(36)}`;
  await ensureDatabase(databaseUrlFor(template));
  const orm = await openOrm({ databaseUrl: databaseUrlFor(template), poolMax: 2 });
  try {
    await migrateUp(orm);
  } finally {
    await orm.close();
  }
  project.provide('templateDatabase', template);
  return async () => {
    const client = new pg.Client({ connectionString: adminUrl() });
    await client.connect();
    await client.query(`drop database if exists "${template}" with (force)`);
    await client.end();
  };
}
