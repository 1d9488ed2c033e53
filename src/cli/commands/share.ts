import type { CliCommand } from '../command.ts';

/** A numeric flag as a number; anything else is passed on as is so the core reports it as invalid. */
function numberFlag(value: string | boolean | undefined): number | string | boolean | undefined {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
}

/** Operator commands for folder shares (CONTRACT.md `share create`). */
export const shareCommands: Record<string, CliCommand> = {
  'share create': {
    flags: { team: { type: 'string' }, folder: { type: 'string' }, password: { type: 'string' } },
    run: (core, flags) =>
      core.shares.create(
        core.operatorCtx(),
        Object.fromEntries(Object.entries({ team: numberFlag(flags.team), folder: flags.folder, password: flags.password }).filter(([, v]) => v !== undefined)),
      ),
  },
};
