import { given, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/** Operator commands for folder shares (CONTRACT.md `share create`); the share service signs links and counts attempts, so it comes with the core. */
export const handlers: Handlers<'share'> = {
  'share create': async (cli, flags) =>
    (await cli.core()).assets.shares.create(cli.operatorCtx(), given({ team: numberFlag(flags.team), folder: flags.folder, password: flags.password })),
};
