import { LibraryImportService } from '../../core/assets/imports/library-import.service.ts';
import { RecycleBinService } from '../../core/assets/recycle-bin/recycle-bin.service.ts';
import { createStorage } from '../../core/assets/storage/create-storage.ts';
import { VersionLineService } from '../../core/assets/versions/version-line.service.ts';
import { asMember, type Cli, idFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/** Version lines take the recycle bin and the import service, each on the storage, as createCore builds them. */
function versionLines(cli: Cli): VersionLineService {
  const storage = createStorage(cli.config);
  return new VersionLineService({ recycleBin: new RecycleBinService(storage), imports: new LibraryImportService(storage) });
}

/** Version lines from the operator CLI (docs/library.md "Version lines"), acting as the member `--user`. */
export const handlers: Handlers<'asset-version'> = {
  'asset version list': async (cli, flags) => versionLines(cli).line(await asMember(cli, flags), idFlag(flags.file)),
  'asset version add': async (cli, flags) =>
    versionLines(cli).addVersion(await asMember(cli, flags), idFlag(flags.file), {
      versionFileId: idFlag(flags.version),
      ...(flags.cover ? { makeCover: true } : {}),
    }),
  'asset version cover': async (cli, flags) => versionLines(cli).setCover(await asMember(cli, flags), idFlag(flags.file)),
  'asset version remove': async (cli, flags) =>
    versionLines(cli).removeVersion(await asMember(cli, flags), idFlag(flags.file), {
      removeType: typeof flags['remove-type'] === 'string' ? flags['remove-type'].toUpperCase() : flags['remove-type'],
    }),
};
