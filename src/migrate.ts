import { loadConfig } from './config.ts';
import { ensureDatabase, migrateUp, openOrm } from './db/orm.ts';

/** `npm run migrate` applies pending migrations; `npm run migrate:create` writes a new one from the entities. */
const command = process.argv[2] ?? 'up';
const config = loadConfig();
await ensureDatabase(config.databaseUrl);
const orm = await openOrm({ databaseUrl: config.databaseUrl });
try {
  if (command === 'create') {
    const result = await orm.migrator.create(undefined, false, process.argv[3] === '--initial');
    console.log(JSON.stringify({ created: result.fileName }));
  } else if (command === 'up') {
    console.log(JSON.stringify({ applied: await migrateUp(orm) }));
  } else if (command === 'pending') {
    console.log(JSON.stringify({ pending: (await orm.migrator.getPending()).map((m) => m.name) }));
  } else {
    console.error('usage: node src/migrate.ts up|create|pending');
    process.exitCode = 2;
  }
} finally {
  await orm.close();
}
