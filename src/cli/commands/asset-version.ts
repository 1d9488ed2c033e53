import { asMember, idFlag, type CliCommand } from '../command.ts';

/** Version lines from the operator CLI (docs/library.md "Version lines"), acting as the member `--user`. */
export const assetVersionCommands: Record<string, CliCommand> = {
  'asset version list': {
    flags: { user: { type: 'string' }, file: { type: 'string' } },
    run: async (core, flags) => core.assets.versionLines.line(await asMember(core, flags), idFlag(flags.file)),
  },
  'asset version add': {
    flags: { user: { type: 'string' }, file: { type: 'string' }, version: { type: 'string' }, cover: { type: 'boolean' } },
    run: async (core, flags) =>
      core.assets.versionLines.addVersion(await asMember(core, flags), idFlag(flags.file), { versionFileId: idFlag(flags.version), ...(flags.cover ? { makeCover: true } : {}) }),
  },
  'asset version cover': {
    flags: { user: { type: 'string' }, file: { type: 'string' } },
    run: async (core, flags) => core.assets.versionLines.setCover(await asMember(core, flags), idFlag(flags.file)),
  },
  'asset version remove': {
    flags: { user: { type: 'string' }, file: { type: 'string' }, 'remove-type': { type: 'string' } },
    run: async (core, flags) => core.assets.versionLines.removeVersion(await asMember(core, flags), idFlag(flags.file), { removeType: typeof flags['remove-type'] === 'string' ? flags['remove-type'].toUpperCase() : flags['remove-type'] }),
  },
};
