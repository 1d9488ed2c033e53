/**
 * Shelf's real HTTP app for the search benchmark, wired as bench/servers/shelf-server.ts wires it,
 * with the memo of search totals switched by SEARCH_TOTALS_MEMO (on, the default, or off: every
 * search counts afresh, the "cold total" figures of bench/RESULTS-search.md).
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
core.assets.searchTotals.enabled = process.env.SEARCH_TOTALS_MEMO !== 'off';
core.assets.colourMatches.enabled = core.assets.searchTotals.enabled;
core.assets.facetCounts.enabled = core.assets.searchTotals.enabled;
core.assets.lookupNameMatchIds.enabled = core.assets.searchTotals.enabled;
const queues = new Queues(config);
const metrics = createMetrics({ orm, queues: () => queues.all() });
const app = await buildApp({ core, queues, metrics });

await serveUntilStopped(app, async () => {
  await queues.close();
  await orm.close();
});
