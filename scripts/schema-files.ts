import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { openOrm } from '../src/db/orm.ts';
import { printedSchema } from '../src/graphql/index.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { publicUrls } from '../src/public-urls.ts';
import { Queues } from '../src/queues.ts';
import { buildApp } from '../src/rest/app.ts';

/**
 * The checked-in schema files as the code renders them now. The OpenAPI document is built from
 * the route schemas of a real app instance; no request is served and nothing is written to the database.
 */
export async function renderedSchemas(): Promise<Record<string, string>> {
  const config = loadConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:8080', LINK_SIGNING_SECRET: 'schema-generation-only-secret-000000' });
  const orm = await openOrm({ databaseUrl: config.databaseUrl, poolMax: 1 });
  const queues = new Queues(config);
  try {
    const app = await buildApp({
      core: createCore(orm, config, publicUrls(config.publicBaseUrl)),
      queues,
      metrics: createMetrics({ orm, queues: () => queues.all() }),
    });
    await app.ready();
    const openapi = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    return { 'schema/schema.graphql': printedSchema(), 'schema/openapi.json': openapi };
  } finally {
    await queues.close();
    await orm.close();
  }
}
