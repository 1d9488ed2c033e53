import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './private-redis.ts';

const run = promisify(execFile);

/** A PostgreSQL cluster of the test's own (fault tests stop it; the shared server is never touched). */
export interface PrivatePostgres {
  url(database: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  remove(): Promise<void>;
}

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** initdb refuses root: as root the cluster's commands run as the postgres user. */
async function asPostgres(command: string, args: string[]): Promise<void> {
  const root = process.getuid?.() === 0;
  await run(root ? 'runuser' : command, root ? ['-u', 'postgres', '--', command, ...args] : args);
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'shelf-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const port = await freePort();
  const bin = binDir();
  const data = join(dir, 'data');
  await asPostgres(`${bin}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const cluster: PrivatePostgres = {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () =>
      asPostgres(`${bin}/pg_ctl`, [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        'start',
      ]),
    stop: () => asPostgres(`${bin}/pg_ctl`, ['-D', data, '-m', 'immediate', '-w', 'stop']),
    async remove() {
      await cluster.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
