import cliProgress from 'cli-progress';
import { LibraryImportService } from '../../core/assets/imports/library-import.service.ts';
import { createStorage } from '../../core/assets/storage/create-storage.ts';
import { invalid } from '../../core/platform/errors.ts';
import { type Cli, type Flags, given, idFlag, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

const FILE_ONLY_FLAGS = ['name', 'tags', 'description', 'score', 'link', 'user', 'version-of', 'cover'] as const;

/**
 * The import services, built as createCore builds them (each takes only the storage and the
 * import service): a plain import loads no other part of the core. --pending and --version-of load
 * their service when given.
 */
function services(cli: Cli) {
  const storage = createStorage(cli.config);
  const imports = new LibraryImportService(storage);
  return {
    imports,
    pending: async () => new (await import('../../core/assets/pending-inbound/pending-inbound.service.ts')).PendingInboundService({ imports, storage }),
    versionLines: async () => {
      const [{ VersionLineService }, { RecycleBinService }] = await Promise.all([
        import('../../core/assets/versions/version-line.service.ts'),
        import('../../core/assets/recycle-bin/recycle-bin.service.ts'),
      ]);
      return new VersionLineService({ recycleBin: new RecycleBinService(storage), imports });
    },
  };
}

async function importFile(cli: Cli, flags: Flags): Promise<object> {
  if (flags['version-of'] !== undefined && flags.pending) throw invalid('pending', 'cannot be combined with --version-of');
  if (flags.cover && flags['version-of'] === undefined) throw invalid('cover', 'is accepted only with --version-of');
  const { imports, pending, versionLines } = services(cli);
  const input = given({
    team: numberFlag(flags.team),
    file: flags.file,
    folder: flags.folder,
    name: flags.name,
    tags: typeof flags.tags === 'string' ? flags.tags.split(',') : flags.tags,
    description: flags.description,
    score: numberFlag(flags.score),
    link: flags.link,
    user: numberFlag(flags.user),
  });
  // --pending holds the import until it is confirmed (docs/library.md "Pending inbound");
  // --version-of makes the new bytes the newest version of a file (docs/library.md "Version lines")
  if (flags['version-of'] !== undefined)
    return (await versionLines()).importVersion(cli.operatorCtx(), input, idFlag(flags['version-of']), flags.cover === true);
  if (flags.pending) return (await pending()).holdFile(cli.operatorCtx(), input);
  return imports.importFile(cli.operatorCtx(), input);
}

/** Imports a tree with a progress bar on stderr, so stdout stays one JSON object. */
async function importDirectory(cli: Cli, flags: Flags): Promise<object> {
  const misplaced = FILE_ONLY_FLAGS.find((flag) => flags[flag] !== undefined);
  if (misplaced) throw invalid(misplaced, 'is accepted only with --file');
  // noTTYOutput: the bar is drawn (as lines) even when stderr is a pipe or a log file
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, noTTYOutput: true, notTTYSchedule: 1000, format: 'importing [{bar}] {value}/{total} files', hideCursor: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const onProgress = (done: number, total: number) => {
    if (!started) {
      started = true;
      bar.start(total, done);
    } else {
      bar.update(done);
    }
  };
  try {
    const { imports, pending } = services(cli);
    const input = given({ team: numberFlag(flags.team), dir: flags.dir, folder: flags.folder });
    return flags.pending
      ? await (await pending()).holdDirectory(cli.operatorCtx(), input, onProgress)
      : await imports.importDirectory(cli.operatorCtx(), input, onProgress);
  } finally {
    if (started) bar.stop();
  }
}

/** `asset import` (CONTRACT.md): a file or a directory tree into the team library. */
export const handlers: Handlers<'asset'> = {
  'asset import': async (cli, flags) => {
    if ((flags.file === undefined) === (flags.dir === undefined)) throw invalid('file', 'give exactly one of --file or --dir');
    return flags.file !== undefined ? importFile(cli, flags) : importDirectory(cli, flags);
  },
};
