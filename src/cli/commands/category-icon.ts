import { readFile } from 'node:fs/promises';
import { invalid } from '../../core/platform/errors.ts';
import type { CliCommand } from '../command.ts';
import { idFlag } from '../command.ts';

/** Reads the file named by --file; an unreadable path is the operator's input error, not an internal one. */
async function readIconFile(path: string | boolean | undefined): Promise<Buffer> {
  if (typeof path !== 'string' || path === '') throw invalid('file', 'is required');
  try {
    return await readFile(path);
  } catch (e) {
    throw invalid('file', `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Operator commands for category icon assets (CONTRACT.md). */
export const categoryIconCommands: Record<string, CliCommand> = {
  'category-icon import': {
    flags: { team: { type: 'string' }, file: { type: 'string' } },
    run: async (core, flags) => {
      const bytes = await readIconFile(flags.file);
      return core.catalogue.categoryIcons.importIcon(core.operatorCtx(), { teamId: idFlag(flags.team), bytes });
    },
  },
};
