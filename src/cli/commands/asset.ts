import cliProgress from 'cli-progress';
import type { Core } from '../../core/core.ts';
import { invalid } from '../../core/platform/errors.ts';
import type { UnitOfWork } from '../../core/assets/folders.ts';
import { asMember, idFlag, numberFlag, type CliCommand, type Flags } from '../command.ts';

const FILE_ONLY_FLAGS = ['name', 'tags', 'description', 'score', 'link', 'user', 'version-of', 'cover'] as const;

/** The flags that were given, as the core's input (its keys are the flag names, so errors name the flag). */
function given(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

function importFile(core: Core, flags: Flags): Promise<object> {
  if (flags['version-of'] !== undefined && flags.pending) throw invalid('pending', 'cannot be combined with --version-of');
  if (flags.cover && flags['version-of'] === undefined) throw invalid('cover', 'is accepted only with --version-of');
  // --pending holds the import until it is confirmed (docs/library.md "Pending inbound");
  // --version-of makes the new bytes the newest version of a file (docs/library.md "Version lines")
  const importer =
    flags['version-of'] !== undefined
      ? (op: UnitOfWork, input: unknown) => core.assets.versionLines.importVersion(op, input, idFlag(flags['version-of']), flags.cover === true)
      : flags.pending
        ? core.assets.pendingInbound.holdFile.bind(core.assets.pendingInbound)
        : core.assets.libraryImport.importFile.bind(core.assets.libraryImport);
  return importer(
    core.operatorCtx(),
    given({
      team: numberFlag(flags.team),
      file: flags.file,
      folder: flags.folder,
      name: flags.name,
      tags: typeof flags.tags === 'string' ? flags.tags.split(',') : flags.tags,
      description: flags.description,
      score: numberFlag(flags.score),
      link: flags.link,
      user: numberFlag(flags.user),
    }),
  );
}

/** Imports a tree with a progress bar on stderr, so stdout stays one JSON object. */
async function importDirectory(core: Core, flags: Flags): Promise<object> {
  const misplaced = FILE_ONLY_FLAGS.find((flag) => flags[flag] !== undefined);
  if (misplaced) throw invalid(misplaced, 'is accepted only with --file');
  // noTTYOutput: the bar is drawn (as lines) even when stderr is a pipe or a log file
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, noTTYOutput: true, notTTYSchedule: 1000, format: 'importing [{bar}] {value}/{total} files', hideCursor: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  try {
    const importer = flags.pending ? core.assets.pendingInbound.holdDirectory.bind(core.assets.pendingInbound) : core.assets.libraryImport.importDirectory.bind(core.assets.libraryImport);
    return await importer(core.operatorCtx(), given({ team: numberFlag(flags.team), dir: flags.dir, folder: flags.folder }), (done, total) => {
      if (!started) {
        started = true;
        bar.start(total, done);
      } else {
        bar.update(done);
      }
    });
  } finally {
    if (started) bar.stop();
  }
}

/** `--start` / `--end` of `asset validity`: a time, or `none` (or omitted) for no bound. */
function boundFlag(value: string | boolean | undefined): string | null | boolean {
  return value === undefined || value === 'none' ? null : value;
}

/** Operator commands for the team library (CONTRACT.md `asset import`; the file edits act as the member `--user`). */
export const assetCommands: Record<string, CliCommand> = {
  'asset import': {
    flags: {
      team: { type: 'string' },
      file: { type: 'string' },
      dir: { type: 'string' },
      folder: { type: 'string' },
      name: { type: 'string' },
      tags: { type: 'string' },
      description: { type: 'string' },
      score: { type: 'string' },
      link: { type: 'string' },
      user: { type: 'string' },
      'version-of': { type: 'string' },
      cover: { type: 'boolean' },
      pending: { type: 'boolean' },
    },
    run: async (core, flags) => {
      if ((flags.file === undefined) === (flags.dir === undefined)) throw invalid('file', 'give exactly one of --file or --dir');
      return flags.file !== undefined ? importFile(core, flags) : importDirectory(core, flags);
    },
  },
  'asset transfer': {
    flags: { user: { type: 'string' }, file: { type: 'string' }, owner: { type: 'string' } },
    run: async (core, flags) => ({ id: (await core.assets.libraryEdit.transferOwnership(await asMember(core, flags), idFlag(flags.file), { ownerUserId: numberFlag(flags.owner) })).id }),
  },
  'asset validity': {
    flags: { user: { type: 'string' }, file: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' } },
    run: async (core, flags) => core.assets.fileValidity.set(await asMember(core, flags), idFlag(flags.file), { startTime: boundFlag(flags.start), endTime: boundFlag(flags.end) }),
  },
};
