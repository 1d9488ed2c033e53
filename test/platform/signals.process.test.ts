import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { adminUrl, databaseUrlFor, redisUrl } from '../support/databases.ts';
import { freePort } from '../support/private-redis.ts';

/**
 * A supervisor (a terminal, systemd, CI, `docker stop`) signals only the process it started: npm
 * here. npm passes SIGTERM and SIGINT to its script's process only, so the scripts must exec
 * their way down to Node for Shelf to drain rather than be orphaned.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const created: string[] = [];
const started: number[] = [];

afterEach(() => {
  // a failed test must not leave a server behind: end what this file started, by pid
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});
afterAll(async () => {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  for (const name of created) await client.query(`drop database if exists "${name}" with (force)`);
  await client.end();
});

/** Live and not a zombie (an exited child its parent has not reaped yet). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Every live process below `pid`, from /proc. */
function descendants(pid: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we listed
    }
  }
  const found: { pid: number; command: string }[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      if (!alive(child)) continue;
      let command = '';
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {
        continue;
      }
      found.push({ pid: child, command });
      visit(child);
    }
  };
  visit(pid);
  return found;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface Launched {
  npm: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm <args>` as a supervisor runs it: Node 24 from node_modules/.bin first on PATH, as CI has it. */
async function launch(args: string[]): Promise<Launched> {
  const port = await freePort();
  const database = `shelf_sig_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  created.push(database);
  const npm = spawn('npm', args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${ROOT}node_modules/.bin:${process.env.PATH}`,
      PORT: String(port),
      ROLE: 'all',
      DATABASE_URL: databaseUrlFor(database),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `shelf-signals-${port}`,
      LOG_LEVEL: 'info',
    },
  });
  started.push(npm.pid!);
  let output = '';
  npm.stdout!.on('data', (d) => (output += d));
  npm.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.on('exit', (code, signal) => resolve({ code, signal })));
  return { npm, port, output: () => output, exited };
}

/** The pid pino wrote on the line with `msg`, once it is there. */
function loggedPid(output: string, msg: string): number | null {
  const line = output.split('\n').find((l) => l.startsWith('{') && l.includes(`"msg":"${msg}"`));
  return line ? (JSON.parse(line) as { pid: number }).pid : null;
}

async function stopsCleanly(args: string[], signal: 'SIGTERM' | 'SIGINT'): Promise<void> {
  const shelf = await launch(args);
  await expect.poll(() => loggedPid(shelf.output(), 'shelf is serving'), { timeout: 90_000, interval: 200 }).not.toBeNull();
  expect(await portAnswers(shelf.port)).toBe(true);
  const nodePid = loggedPid(shelf.output(), 'shelf is serving')!;
  const tree = descendants(shelf.npm.pid!);
  started.push(...tree.map((p) => p.pid));
  // the serving Node process is npm's own descendant, and no shell is left between them
  expect(tree.map((p) => p.pid)).toContain(nodePid);
  expect(tree.filter((p) => /^(sh|bash) /.test(p.command))).toEqual([]);

  shelf.npm.kill(signal);

  await expect.poll(() => shelf.output().includes('"msg":"stopped"'), { timeout: 30_000 }).toBe(true);
  expect(loggedPid(shelf.output(), 'draining')).toBe(nodePid);
  expect(shelf.output()).toContain(`"signal":"${signal}"`);
  // npm waits for its script and passes on Node's exit status (measured with npm 11.19)
  expect(await shelf.exited).toEqual({ code: 0, signal: null });
  expect(await portAnswers(shelf.port)).toBe(false);
  await expect.poll(() => [shelf.npm.pid!, ...tree.map((p) => p.pid)].filter(alive), { timeout: 10_000 }).toEqual([]);
}

describe('stopping Shelf through the npm process a supervisor started', () => {
  it('npm run serve: SIGTERM to npm alone drains Shelf (stopped logged), closes the port and leaves no process', async () => {
    await stopsCleanly(['run', 'serve'], 'SIGTERM');
  }, 150_000);

  it('npm start: SIGTERM to the outer npm alone reaches Shelf through the nested npm, drains it and leaves no process', async () => {
    await stopsCleanly(['start'], 'SIGTERM');
  }, 150_000);

  it('npm start: SIGINT to the outer npm alone drains Shelf the same way', async () => {
    await stopsCleanly(['start'], 'SIGINT');
  }, 150_000);
});

describe('the container image', () => {
  it("runs the serve script's Node command line itself, under tini as PID 1", () => {
    const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');
    const serve = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts.serve!;
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(entrypoint).toEqual(['/usr/bin/tini', '--']);
    expect(cmd[0]).toBe('/app/node_modules/.bin/node');
    expect(['exec', 'node', ...cmd.slice(1)].join(' ')).toBe(serve);
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends tini/);
  });
});
