import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { createCore } from '../core/core.ts';
import { DomainError } from '../core/platform/errors.ts';
import { loadSigningSecret } from '../core/platform/settings.ts';
import { ensureDatabase, migrateUp, openOrm } from '../db/orm.ts';
import type { CliCommand } from './command.ts';
import { accessCommands } from './commands/access.ts';
import { assetCommands } from './commands/asset.ts';
import { assetAnalysisCommands } from './commands/asset-analysis.ts';
import { assetMetadataCommands } from './commands/asset-metadata.ts';
import { assetBinCommands } from './commands/asset-bin.ts';
import { assetVersionCommands } from './commands/asset-version.ts';
import { assetPendingCommands } from './commands/asset-pending.ts';
import { categoryIconCommands } from './commands/category-icon.ts';
import { shareCommands } from './commands/share.ts';
import { webhookCommands } from './commands/webhook.ts';
import { approvalCommands } from './commands/approval.ts';

/** The operator CLI of CONTRACT.md: prints one JSON object; on failure `{"error":{code,message}}` and a non-zero exit. */
const commands: Record<string, CliCommand> = { ...accessCommands, ...categoryIconCommands, ...assetCommands, ...assetAnalysisCommands, ...assetMetadataCommands, ...assetBinCommands, ...assetVersionCommands, ...assetPendingCommands, ...shareCommands, ...webhookCommands, ...approvalCommands };

function fail(code: string, message: string, details?: unknown): never {
  process.stdout.write(`${JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } })}\n`);
  process.exit(code === 'usage' ? 2 : 1);
}

async function run(argv: string[]): Promise<void> {
  // commands are two words (`share create`) or three (`asset analysis set`)
  const three = argv.slice(0, 3).join(' ');
  const name = commands[three] ? three : argv.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) fail('usage', `unknown command "${name}"; commands: ${Object.keys(commands).join(', ')}`);
  let flags;
  try {
    flags = parseArgs({ args: argv.slice(name.split(' ').length), options: command.flags, strict: true, allowPositionals: false }).values;
  } catch (e) {
    fail('usage', (e as Error).message);
  }
  const config = loadConfig();
  await ensureDatabase(config.databaseUrl);
  const orm = await openOrm({ databaseUrl: config.databaseUrl, poolMax: 4 });
  try {
    await migrateUp(orm);
    // the same link-signing secret as the service (kept in the database unless configured), so a
    // command's result may carry signed links like the API's do
    const linkSigningSecret = await loadSigningSecret({ em: orm.em.fork() }, config.linkSigningSecret);
    const result = await command.run(createCore(orm, { ...config, linkSigningSecret }), flags as Record<string, string | boolean | undefined>);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await orm.close();
  }
}

try {
  await run(process.argv.slice(2));
} catch (e) {
  if (e instanceof DomainError) fail(e.code, e.message, e.details);
  if (e instanceof ConfigError) fail('configuration_error', e.message);
  fail('internal_error', (e as Error).message);
}
