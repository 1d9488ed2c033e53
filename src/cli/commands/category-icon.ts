import { readFile } from 'node:fs/promises';
import { createStorage } from '../../core/assets/storage/create-storage.ts';
import { CategoryIconService } from '../../core/catalogue/categories/category-icon.service.ts';
import { invalid } from '../../core/platform/errors.ts';
import { idFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/** Reads the file named by --file; an unreadable path is the operator's input error, not an internal one. */
async function readIconFile(path: string | boolean | undefined): Promise<Buffer> {
  if (typeof path !== 'string' || path === '') throw invalid('file', 'is required');
  try {
    return await readFile(path);
  } catch (e) {
    throw invalid('file', `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Operator commands for category icon assets (CONTRACT.md); the icon service takes only the storage. */
export const handlers: Handlers<'category-icon'> = {
  'category-icon import': async (cli, flags) => {
    const bytes = await readIconFile(flags.file);
    return new CategoryIconService({ storage: createStorage(cli.config) }).importIcon(cli.operatorCtx(), {
      teamId: idFlag(flags.team),
      bytes,
    });
  },
};
