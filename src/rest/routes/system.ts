import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../../core/platform/database.queries.ts';
import { SHELF_VERSION } from '../../version.ts';
import type { AppDeps } from '../app.ts';

/**
 * Liveness (with the release version), readiness (PostgreSQL and Redis: the queues' connection and the attempt counter's, which
 * share passwords need), Prometheus metrics and the OpenAPI download.
 */
export async function systemRoutes(app: FastifyInstance, { deps }: { deps: AppDeps }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok', version: SHELF_VERSION }));

  app.get('/readyz', async (_request, reply) => {
    const checks = await Promise.all([
      pingDatabase(deps.core.operatorCtx()).then(
        () => 'ok',
        () => 'down',
      ),
      Promise.all([deps.queues.ping(), deps.core.platform.attemptLimiter.ping()]).then((up) => (up.every(Boolean) ? 'ok' : 'down')),
    ]);
    const [postgres, redis] = checks;
    const ready = postgres === 'ok' && redis === 'ok';
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', postgres, redis });
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('Content-Type', deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });

  app.get('/v1/openapi.json', async () => app.swagger());
}
