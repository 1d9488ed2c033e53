import { join } from 'node:path';
import { expect } from 'vitest';
import { createEventWorld, type EventWorld } from './event-world.ts';
import { given } from './given.ts';
import { send } from './http.ts';
import { tempDir, writeImage } from './media-files.ts';

type TempDir = Awaited<ReturnType<typeof tempDir>>;

/**
 * An event world for library lifecycle tests: its own storage and input directories, workers
 * running, a folder that exists before its subscription (an import creates it), a material
 * subscription on `/m` and a folder subscription on `/f`, and the environment a CLI run needs.
 */
export interface LibraryEventWorld {
  world: EventWorld;
  /** Where a test writes its input files. */
  files: TempDir;
  storage: TempDir;
  /** The subscribed folder. */
  folderId: number;
  /** The environment of `runCli` against this world. */
  cliEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function createLibraryEventWorld(options: {
  /** Names the temporary directories. */
  name: string;
  /** The folder path to create and subscribe to, like `/bin`. */
  folder: string;
  /** The 6.2 event types of the material subscription. */
  materialEvents: string[];
  /** The file that creates the folder; a small image of its own when omitted. */
  seedFile?: (files: TempDir) => Promise<string>;
  /** Settings beyond STORAGE_DIR (src/config.ts). */
  settings?: Record<string, string>;
}): Promise<LibraryEventWorld> {
  const files = await tempDir(`${options.name}-files`);
  const storage = await tempDir(`${options.name}-storage`);
  const world = await createEventWorld({ ...options.settings, STORAGE_DIR: storage.path });
  await world.startWorkers();
  const seed = options.seedFile ? await options.seedFile(files) : join(files.path, 'seed.png');
  if (!options.seedFile) await writeImage(seed, { width: 8, height: 8, colour: '#808080', format: 'png' });
  const folderId = (await given(world.env).libraryFile(world.team, { file: seed, folder: options.folder, name: 'seed.png' })).folderIds.at(-1)!;
  const material = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: world.key.key,
    body: { callbackUrl: `${world.receiver.url}/m`, eventTypes: options.materialEvents },
  });
  expect(material.body.code).toBe('0');
  const folder = await send(world.env, {
    method: 'POST',
    url: '/open/folder-subscribe',
    key: world.key.key,
    body: { folderIds: [folderId], callbackUrl: `${world.receiver.url}/f` },
  });
  expect(folder.body.code).toBe('0');
  const cliEnv = {
    DATABASE_URL: world.env.config.databaseUrl,
    STORAGE_DIR: storage.path,
    REDIS_URL: world.env.config.redisUrl,
    QUEUE_PREFIX: world.env.config.queuePrefix,
  };
  return {
    world,
    files,
    storage,
    folderId,
    cliEnv,
    async close() {
      await world.close();
      await files.remove();
      await storage.remove();
    },
  };
}
