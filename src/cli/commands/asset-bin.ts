import { asMember, idFlag, idsFlag, numberFlag, type CliCommand } from '../command.ts';

/**
 * The recycle bin from the operator CLI (docs/library.md "Recycle bin"), acting as the member
 * `--user`, whose team's bin it is.
 */
export const assetBinCommands: Record<string, CliCommand> = {
  'asset delete': {
    flags: { user: { type: 'string' }, file: { type: 'string' } },
    run: async (core, flags) => core.assets.recycleBin.deleteFile(await asMember(core, flags), idFlag(flags.file)),
  },
  'asset folder delete': {
    flags: { user: { type: 'string' }, folder: { type: 'string' } },
    run: async (core, flags) => core.assets.recycleBin.deleteFolder(await asMember(core, flags), idFlag(flags.folder)),
  },
  'asset bin list': {
    flags: { user: { type: 'string' }, first: { type: 'string' }, after: { type: 'string' } },
    run: async (core, flags) =>
      core.assets.recycleBin.list(await asMember(core, flags), Object.fromEntries(Object.entries({ first: numberFlag(flags.first), after: numberFlag(flags.after) }).filter(([, v]) => v !== undefined))),
  },
  'asset bin restore': {
    flags: { user: { type: 'string' }, ids: { type: 'string' } },
    run: async (core, flags) => core.assets.recycleBin.restore(await asMember(core, flags), { ids: idsFlag(flags.ids) }),
  },
  'asset bin purge': {
    flags: { user: { type: 'string' }, ids: { type: 'string' } },
    run: async (core, flags) => core.assets.recycleBin.purge(await asMember(core, flags), { ids: idsFlag(flags.ids) }),
  },
  'asset bin empty': {
    flags: { user: { type: 'string' } },
    run: async (core, flags) => core.assets.recycleBin.empty(await asMember(core, flags)),
  },
};
