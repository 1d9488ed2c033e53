import pino from 'pino';
import { startWorkers } from '../workers/index.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createCore } from './core/core.ts';
import { loadSigningSecret } from './core/platform/settings.ts';
import { ensureDatabase, migrateUp, openOrm } from './db/orm.ts';
import { createMetrics } from './observability/metrics.ts';
import { publicUrls } from './public-urls.ts';
import { Queues } from './queues.ts';

/** Migrates, then serves HTTP and/or runs the workers by ROLE; SIGTERM drains both. */
async function main(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel });
  await ensureDatabase(config.databaseUrl);
  const orm = await openOrm({ databaseUrl: config.databaseUrl });
  const applied = await migrateUp(orm);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const signingSecret = await loadSigningSecret({ em: orm.em.fork() }, config.linkSigningSecret);
  const core = createCore(orm, { ...config, linkSigningSecret: signingSecret }, publicUrls(config.publicBaseUrl));
  const queues = new Queues(config);
  const metrics = createMetrics({ orm, queues: () => queues.all(), outboxLagSeconds: () => core.events.deliveries.lagSeconds(core.operatorCtx()) });

  // a worker process never loads the HTTP and GraphQL surface: half its start-up, in which its timers wait
  const app =
    config.role === 'worker' ? null : await (await import('./rest/app.ts')).buildApp({ core, queues, metrics, logger: logger.child({ component: 'http' }) });
  const workers = config.role === 'api' ? null : await startWorkers({ core, config, queues, metrics, logger: logger.child({ component: 'worker' }) });
  if (app) {
    // connected before the first request: share passwords need it, and /readyz reports it
    if (!(await core.platform.attemptLimiter.connect()))
      logger.warn('the attempt counter (Redis) is not connected yet; password checks answer 503 until it is');
    await app.listen({ port: config.port, host: config.host });
    logger.info({ url: config.publicBaseUrl, role: config.role }, 'shelf is serving');
  } else {
    logger.info({ role: config.role }, 'shelf workers running');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    // in-flight requests finish; workers finish their active jobs before closing
    await Promise.all([app?.close(), workers?.close()]);
    await queues.close();
    await core.platform.attemptLimiter.close();
    await core.platform.outbound.close();
    await orm.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

try {
  await main(loadConfig());
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(`configuration error: ${e.message}`);
    process.exit(78);
  }
  console.error(e);
  process.exit(1);
}
