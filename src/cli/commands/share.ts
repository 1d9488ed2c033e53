import { numberFlag, type CliCommand } from '../command.ts';

/** Operator commands for folder shares (CONTRACT.md `share create`). */
export const shareCommands: Record<string, CliCommand> = {
  'share create': {
    flags: { team: { type: 'string' }, folder: { type: 'string' }, password: { type: 'string' } },
    run: (core, flags) =>
      core.assets.shares.create(
        core.operatorCtx(),
        Object.fromEntries(Object.entries({ team: numberFlag(flags.team), folder: flags.folder, password: flags.password }).filter(([, v]) => v !== undefined)),
      ),
  },
};
