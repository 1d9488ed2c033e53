import type { MikroORM } from '@mikro-orm/postgresql';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { DomainError } from '../core/platform/errors.ts';
import { commandsUnder, leadingWords, parseFlags, resolveCommand, UsageError, unknownCommand } from './args.ts';
import type { Cli, Flags } from './command.ts';
import { commandHelp, commandsHelp } from './help.ts';
import { COMMAND_NAMES, type CommandName, type Handler, loadHandler } from './registry.ts';

/** The operator CLI of CONTRACT.md: prints one JSON object; on failure `{"error":{code,message}}` and a non-zero exit. */

/** The process environment a run reads its configuration from. */
type Env = Record<string, string | undefined>;

/** What one run of a command printed on stdout and the exit code it ends with. */
export interface CliOutcome {
  exitCode: 0 | 1 | 2;
  stdout: string;
}

function failure(code: string, message: string, details?: unknown): CliOutcome {
  return { exitCode: code === 'usage' ? 2 : 1, stdout: `${JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } })}\n` };
}

/** `--help` / `-h` anywhere: the page of the command, or of the group the leading words name. */
function help(argv: string[]): string | null {
  if (!argv.some((arg) => arg === '--help' || arg === '-h')) return null;
  const words = leadingWords(argv);
  if (words.length === 0) return commandsHelp(COMMAND_NAMES, 'Commands:');
  const name = resolveCommand(words);
  if (name && words.length === name.split(' ').length) return commandHelp(name);
  const group = commandsUnder(words);
  if (group.length > 0) return commandsHelp(group, `Commands of "${words.join(' ')}":`);
  throw unknownCommand(words);
}

/**
 * The database, migrated: one read says whether any migration is pending (nearly always none), and
 * only then is the database created if missing and the migrator run, under its advisory lock.
 */
async function openDatabase(config: Config): Promise<MikroORM> {
  const { ensureDatabase, migrateUp, openOrm, pendingMigrations } = await import('../db/orm.ts');
  const pending = await pendingMigrations(config.databaseUrl);
  if (pending.length > 0) await ensureDatabase(config.databaseUrl);
  const orm = await openOrm({ databaseUrl: config.databaseUrl, poolMax: 4 });
  try {
    if (pending.length > 0) await migrateUp(orm);
  } catch (e) {
    await orm.close();
    throw e;
  }
  return orm;
}

async function cliFor(orm: MikroORM, config: Config): Promise<Cli> {
  const [{ withLazyUnitOfWork }, { AnswerAllowance, AnswerBudget, HEAP_BYTES_PER_STORED_BYTE }] = await Promise.all([
    import('../core/platform/sql.ts'),
    import('../core/platform/answer-budget.ts'),
  ]);
  // the command prints one JSON document built whole in this process: its heavy reads (lists whose
  // items can be large) admit their stored size against CLI_MAX_ANSWER_MB first (docs/cli.md "Large answers")
  const answer = new AnswerAllowance(new AnswerBudget(config.cliMaxAnswerBytes * HEAP_BYTES_PER_STORED_BYTE), config.cliMaxAnswerBytes);
  let core: ReturnType<Cli['core']> | undefined;
  return {
    config,
    orm,
    // the unit of work is forked on first use, as createCore's operatorCtx and ctxFor do
    operatorCtx: () => withLazyUnitOfWork(orm.em, {}),
    ctxFor: (actor) => withLazyUnitOfWork(orm.em, { teamId: actor.teamId, actor, requestId: 'cli', answer }),
    core: () =>
      (core ??= (async () => {
        const [{ createCore }, { loadSigningSecret }, { publicUrls }] = await Promise.all([
          import('../core/core.ts'),
          import('../core/platform/settings.ts'),
          import('../public-urls.ts'),
        ]);
        // the same link-signing secret as the service (kept in the database unless configured), so a
        // command's result may carry signed links like the API's do
        const linkSigningSecret = await loadSigningSecret({ em: orm.em.fork() }, config.linkSigningSecret);
        return createCore(orm, { ...config, linkSigningSecret }, publicUrls(config.publicBaseUrl));
      })()),
  };
}

/** Loads the command's module while the database is opened: the one waits on disk and CPU, the other on PostgreSQL. */
async function start(name: CommandName, config: Config): Promise<{ handler: Handler; orm: MikroORM }> {
  const [handler, orm] = await Promise.allSettled([loadHandler(name), openDatabase(config)]);
  if (handler.status === 'rejected') {
    if (orm.status === 'fulfilled') await orm.value.close();
    throw handler.reason;
  }
  if (orm.status === 'rejected') {
    // opening is the command's first query: an unreachable database is service_unavailable, as for every query (db-errors.ts)
    const { mapDatabaseError } = await import('../core/platform/db-errors.ts');
    throw mapDatabaseError(orm.reason);
  }
  return { handler: handler.value, orm: orm.value };
}

async function run(argv: string[], env: Env): Promise<string> {
  // `shelf --version` alone: the release, without configuration or database (a command's own
  // --version flag, as in `asset version add`, comes after the command's words)
  if (argv.length === 1 && argv[0] === '--version') {
    const { SHELF_VERSION } = await import('../version.ts');
    return `${JSON.stringify({ version: SHELF_VERSION })}\n`;
  }
  const page = help(argv);
  if (page !== null) return page;
  const words = leadingWords(argv);
  const name = resolveCommand(words);
  if (!name) throw unknownCommand(words);
  const flags = parseFlags(name, argv.slice(name.split(' ').length));
  const config = loadConfig(env);
  const { handler, orm } = await start(name, config);
  try {
    const result = await handler(await cliFor(orm, config), flags as Flags);
    return `${JSON.stringify(result)}\n`;
  } finally {
    await orm.close();
  }
}

/**
 * Runs one command with `env` as its environment and returns what it prints and its exit code,
 * without writing or exiting: `main` does that for the process, and tests run commands in their
 * own process this way (the same parser, handlers and core as a spawned run).
 */
export async function execute(argv: string[], env: Env = process.env): Promise<CliOutcome> {
  try {
    return { exitCode: 0, stdout: await run(argv, env) };
  } catch (e) {
    if (e instanceof UsageError) return failure('usage', e.message, e.issue && [e.issue]);
    if (e instanceof DomainError) return failure(e.code, e.message, e.details);
    if (e instanceof ConfigError) return failure('configuration_error', e.message);
    return failure('internal_error', (e as Error).message);
  }
}

export async function main(argv: string[]): Promise<void> {
  const { exitCode, stdout } = await execute(argv);
  process.stdout.write(stdout);
  if (exitCode !== 0) process.exit(exitCode);
}
