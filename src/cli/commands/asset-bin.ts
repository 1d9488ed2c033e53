import { RecycleBinService } from '../../core/assets/recycle-bin/recycle-bin.service.ts';
import { createStorage } from '../../core/assets/storage/create-storage.ts';
import { asMember, type Cli, given, idFlag, idsFlag, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/** The recycle bin takes only the storage, as createCore builds it. */
const bin = (cli: Cli) => new RecycleBinService(createStorage(cli.config));

/**
 * The recycle bin from the operator CLI (docs/library.md "Recycle bin"), acting as the member
 * `--user`, whose team's bin it is.
 */
export const handlers: Handlers<'asset-bin'> = {
  'asset delete': async (cli, flags) => bin(cli).deleteFile(await asMember(cli, flags), idFlag(flags.file)),
  'asset folder delete': async (cli, flags) => bin(cli).deleteFolder(await asMember(cli, flags), idFlag(flags.folder)),
  'asset bin list': async (cli, flags) => bin(cli).list(await asMember(cli, flags), given({ first: numberFlag(flags.first), after: numberFlag(flags.after) })),
  'asset bin restore': async (cli, flags) => bin(cli).restore(await asMember(cli, flags), { ids: idsFlag(flags.ids) }),
  'asset bin purge': async (cli, flags) => bin(cli).purge(await asMember(cli, flags), { ids: idsFlag(flags.ids) }),
  'asset bin empty': async (cli, flags) => bin(cli).empty(await asMember(cli, flags)),
};
