import { DefaultLogger, type LogContext, type LoggerOptions } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { createCore } from '../../src/core/core.ts';
import { ormConfig } from '../../src/db/orm.ts';
import { publicUrls } from '../../src/public-urls.ts';
import { buildApp } from '../../src/rest/app.ts';
import type { TestEnv } from './env.ts';

/** Records every SQL statement the ORM sends, through MikroORM's own logger hook. */
class CountingLogger extends DefaultLogger {
  readonly statements: string[];

  constructor(options: LoggerOptions, statements: string[]) {
    super(options);
    this.statements = statements;
  }

  override logQuery(context: { query: string } & LogContext): void {
    this.statements.push(context.query);
    super.logQuery(context);
  }
}

export interface CountingApp {
  app: FastifyInstance;
  /** Every statement sent so far; tests reset it with `statements.length = 0`. */
  statements: string[];
  close(): Promise<void>;
}

/**
 * A second app over the test database whose ORM counts the SQL it sends, for dataloader tests.
 * With query logging on, queryRows keeps every statement on the EntityManager (src/core/platform/sql.ts),
 * so MikroORM's logger sees each one; the writer is silenced and the subclass counts.
 */
export async function countingApp(env: TestEnv): Promise<CountingApp> {
  const statements: string[] = [];
  const orm = await MikroORM.init({
    ...ormConfig({ databaseUrl: env.config.databaseUrl, poolMax: 4 }),
    debug: ['query'],
    logger: () => {},
    loggerFactory: (options: LoggerOptions) => new CountingLogger(options, statements),
  });
  // without the live relay, whose background statements would be counted with the request's
  const app = await buildApp({
    core: createCore(orm, env.config, publicUrls(env.config.publicBaseUrl)),
    queues: env.queues,
    metrics: env.metrics,
    liveUpdates: false,
  });
  await app.ready();
  // the ORM's one-time connection check would otherwise be counted in the first measured request
  await orm.em.fork().execute('select 1');
  return {
    app,
    statements,
    async close() {
      await app.close();
      await orm.close();
    },
  };
}
