/**
 * Shelf's real HTTP app in a process of its own, wired as src/main.mjs and test/support/env.ts wire it
 * (createCore, Queues, createMetrics, buildApp), logging nothing. Started by a benchmark with `fork`:
 * it listens on 127.0.0.1 on a free port, tells the parent the port over IPC, and closes on 'stop'.
 */
import { loadConfig } from '../../src/config.ts';
import { createCore } from '../../src/core/core.ts';
import { openOrm } from '../../src/db/orm.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { publicUrls } from '../../src/public-urls.ts';
import { Queues } from '../../src/queues.ts';
import { buildApp } from '../../src/rest/app.ts';
import { serveUntilStopped } from './serve.ts';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' });
const orm = await openOrm({ databaseUrl: config.databaseUrl });
const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
const queues = new Queues(config);
const metrics = createMetrics({ orm, queues: () => queues.all() });
const app = await buildApp({ core, queues, metrics });

await serveUntilStopped(app, async () => {
  await queues.close();
  await orm.close();
});
