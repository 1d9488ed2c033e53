/**
 * Operator CLI start (CLI issue): wall time of whole CLI processes against `node -e 0` on the same
 * Node, in one run, alternating, medians and ratios.
 *
 *   npm run -s bench:cli
 *
 * Cases: `team create` (a write with no schema module), `webhook list` (a read through a service
 * that validates with TypeBox), a usage error (no database), each as `node src/cli/main.ts ...`
 * with the start caches warm (Node's compile cache and the CLI's resolution cache, in a private
 * directory, warmed first) and with them off (NODE_DISABLE_COMPILE_CACHE=1: every module resolved,
 * compiled and stripped again); and `webhook list`
 * through `npm run -s shelf --`, to show what npm adds. One round runs every case once, each after
 * a `node -e 0` of its own; BENCH_ROUNDS (15) rounds. BENCH_BASELINE=<another checkout> (sharing
 * this node_modules, e.g. `git archive <commit> | tar -x -C dir` plus a symlink) adds its CLI's
 * `team create`, `webhook list` and usage error to the same rounds, as "before". The machine's load is printed before and
 * after, and the modules each case loads (counted by a load hook in one extra run). Only the local
 * PostgreSQL is contacted; the benchmark creates and drops its own database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { databaseUrlNamed, dropDatabase, freshDatabase } from './support/brand-seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const DATABASE = databaseUrlNamed(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shelf', 'shelf_bench_cli');
const NODE = process.execPath;
const CACHE = mkdtempSync(join(tmpdir(), 'shelf-bench-cli-cache-'));
const COUNTER = fileURLToPath(new URL('./support/count-modules.ts', import.meta.url));

interface Case {
  label: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Exit code the case must end with (a failed command would measure the wrong thing). */
  exit: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Runs one process to its end; resolves with its wall time in ms (spawn to exit). */
function timed(command: string, args: string[], env: Record<string, string>, exit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== exit) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${out}`));
      else resolve(ms);
    });
  });
}

/** How many modules (files, not node: builtins) a case loads, counted in one more run (with the start caches off; the same modules load either way). */
function moduleCount(c: Case): number {
  const env = { ...process.env, ...c.env, NODE_DISABLE_COMPILE_CACHE: '1', SHELF_COUNT_MODULES: '1' };
  const run = spawnSync(NODE, ['--import', COUNTER, ...c.args], { cwd: ROOT, env, encoding: 'utf8' });
  const match = /modules loaded: (\d+)/.exec(run.stderr);
  return match ? Number(match[1]) : Number.NaN;
}

async function seed(): Promise<number> {
  await freshDatabase(DATABASE);
  const orm = await openOrm({ databaseUrl: DATABASE, poolMax: 2 });
  try {
    await migrateUp(orm);
    const rows = await orm.em.fork().execute<{ id: number }[]>(`insert into teams (name) values ('bench') returning id`);
    return rows[0]!.id;
  } finally {
    await orm.close();
  }
}

async function main(): Promise<void> {
  console.log(`load before: ${load()}  (node ${process.version}, ${ROUNDS} rounds)`);
  const team = String(await seed());
  const env = { DATABASE_URL: DATABASE, LOG_LEVEL: 'silent', NODE_COMPILE_CACHE: CACHE };
  const cold = { ...env, NODE_DISABLE_COMPILE_CACHE: '1' };
  const cli = (...args: string[]) => ['src/cli/main.mjs', ...args];
  const cases: Case[] = [
    { label: 'team create', command: NODE, args: cli('team', 'create', '--name', 'bench'), env, exit: 0 },
    { label: 'webhook list', command: NODE, args: cli('webhook', 'list', '--team', team), env, exit: 0 },
    { label: 'usage error', command: NODE, args: cli('team', 'frobnicate'), env, exit: 2 },
    { label: 'team create, start caches off', command: NODE, args: cli('team', 'create', '--name', 'bench'), env: cold, exit: 0 },
    { label: 'webhook list, start caches off', command: NODE, args: cli('webhook', 'list', '--team', team), env: cold, exit: 0 },
    { label: 'webhook list via npm run -s shelf', command: 'npm', args: ['run', '-s', 'shelf', '--', 'webhook', 'list', '--team', team], env, exit: 0 },
  ];
  const baseline = process.env.BENCH_BASELINE;
  if (baseline) {
    // the entry was src/cli/main.ts before it became JavaScript
    const entry = existsSync(join(baseline, 'src/cli/main.mjs')) ? 'src/cli/main.mjs' : 'src/cli/main.ts';
    const before = (...args: string[]) => [join(baseline, entry), ...args];
    cases.push(
      { label: 'before: team create', command: NODE, args: before('team', 'create', '--name', 'bench'), env, exit: 0 },
      { label: 'before: webhook list', command: NODE, args: before('webhook', 'list', '--team', team), env, exit: 0 },
      { label: 'before: usage error', command: NODE, args: before('team', 'frobnicate'), env, exit: 2 },
    );
  }
  // warm the compile cache (and the disk cache) once per case
  for (const c of cases) await timed(c.command, c.args, c.env ?? {}, c.exit);
  const times = new Map<string, number[]>(cases.map((c) => [c.label, []]));
  const floors = new Map<string, number[]>(cases.map((c) => [c.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // alternate which goes first, so neither side always runs right after the other
    for (const c of round % 2 === 0 ? cases : [...cases].reverse()) {
      const floor = () => timed(NODE, ['-e', '0'], {}, 0).then((ms) => floors.get(c.label)!.push(ms));
      const side = () => timed(c.command, c.args, c.env ?? {}, c.exit).then((ms) => times.get(c.label)!.push(ms));
      if (round % 2 === 0) {
        await floor();
        await side();
      } else {
        await side();
        await floor();
      }
    }
  }
  console.log(`load after: ${load()}\n`);
  console.log('| case | median ms | node -e 0 median ms (same rounds) | ratio | modules loaded |');
  console.log('|---|---|---|---|---|');
  for (const c of cases) {
    const t = median(times.get(c.label)!);
    const f = median(floors.get(c.label)!);
    const modules = c.command === NODE ? moduleCount(c) : Number.NaN;
    console.log(`| ${c.label} | ${t.toFixed(0)} | ${f.toFixed(0)} | ${(t / f).toFixed(1)}x | ${Number.isNaN(modules) ? '' : modules} |`);
  }
}

try {
  await main();
} finally {
  await dropDatabase(DATABASE);
  rmSync(CACHE, { recursive: true, force: true });
}
