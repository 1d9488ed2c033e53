import cliProgress from 'cli-progress';
import { createStorage } from '../../core/assets/storage/create-storage.ts';
import { type CopyProgress, StorageMaintenance } from '../../core/assets/storage/storage-maintenance.ts';
import { invalid } from '../../core/platform/errors.ts';
import type { Cli, Flags } from '../command.ts';
import type { Handlers } from '../registry.ts';

const STORES = ['local', 's3'] as const;
type Store = (typeof STORES)[number];

/** `--from`/`--to`/`--store` as a store name; anything else is validation_failed naming the flag. */
function store(value: string | boolean | undefined, flag: string): Store {
  if (typeof value === 'string' && (STORES as readonly string[]).includes(value)) return value as Store;
  throw invalid(flag, 'must be local or s3');
}

const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

/**
 * The object store's maintenance from the operator CLI (docs/operations.md "Object storage"):
 * both stores come from the settings (STORAGE_DIR; the S3_* settings and the AWS credential chain).
 */
export const handlers: Handlers<'storage'> = {
  'storage copy': async (cli: Cli, flags: Flags) => {
    const from = store(flags.from, 'from');
    const to = store(flags.to, 'to');
    if (from === to) throw invalid('to', 'must name the other store than --from');
    const source = createStorage(cli.config, from);
    const target = createStorage(cli.config, to);
    // noTTYOutput: the bar is drawn (as lines) even when stderr is a pipe or a log file
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        noTTYOutput: true,
        notTTYSchedule: 1000,
        format: `copying ${from} to ${to} [{bar}] {value}/{total} objects, {mib}/{totalMib} MiB`,
        hideCursor: false,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const onProgress = (p: CopyProgress) => {
      const payload = { mib: mib(p.bytes), totalMib: mib(p.totalBytes) };
      if (!started) {
        started = true;
        bar.start(p.totalObjects, p.objects, payload);
      } else bar.update(p.objects, payload);
    };
    try {
      return { from: source.describe(), to: target.describe(), ...(await new StorageMaintenance().copy(cli.operatorCtx(), source, target, onProgress)) };
    } finally {
      if (started) bar.stop();
      if ('close' in source) await source.close();
      if ('close' in target) await target.close();
    }
  },
  'storage check': async (cli: Cli, flags: Flags) => {
    const name = flags.store === undefined ? cli.config.storage.backend : store(flags.store, 'store');
    const storage = createStorage(cli.config, name);
    try {
      return {
        store: storage.describe(),
        ...(await new StorageMaintenance().check(cli.operatorCtx(), storage, { removeUnreferenced: flags['remove-unreferenced'] === true })),
      };
    } finally {
      if ('close' in storage) await storage.close();
    }
  },
};
