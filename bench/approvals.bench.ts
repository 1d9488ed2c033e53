/**
 * Approvals benchmark (approvals issue): how late approval timers fire with 10,000 pending tasks
 * due within a minute, decision-to-callback latency end to end, and createApproval with one 10 MB
 * asset against a guarded download of it through sha256 to a file (bench/support/create-approval-rounds.ts),
 * in one run. createApproval alone: BENCH_TIMERS=0 BENCH_DECISIONS=0.
 *
 *   node_modules/node/bin/node bench/approvals.bench.ts
 *
 * BENCH_TIMERS (10,000) tasks whose node times out at a random moment of the next BENCH_TIMER_SPREAD_S
 * (60) seconds (written by SQL, as createApproval leaves them); BENCH_DECISIONS (500) decisions at
 * BENCH_DECISION_RATE (100)/s; BENCH_DOWNLOADS (50) rounds of a 10 MB asset from a server process of its
 * own (0 leaves a part out). A real `ROLE=worker` process, spawned once the tasks are written (a restart: nothing is queued
 * yet), runs the relay, the timers and webhook delivery; the receiver is a local process. Timer
 * lateness is reported for the whole run, for the timers due in the worker's first 10 s, and per
 * 10 s; a timer that has not fired 8 s after the last deadline counts as never fired. Before it,
 * the floor: as many bare BullMQ delayed jobs taken by a bare worker process (BENCH_TIMER_FLOOR=0
 * leaves it out). Only 127.0.0.1 is contacted.
 */
import { fork, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/core/core.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { redisConnection } from '../src/queues.ts';
import { databaseUrlNamed, freshDatabase } from './support/brand-seed.ts';
import { ask, sleep } from './support/child-messages.ts';
import { createApprovalRounds } from './support/create-approval-rounds.ts';

const env = process.env;
const TIMERS = Number(env.BENCH_TIMERS ?? 10_000);
const SPREAD_S = Number(env.BENCH_TIMER_SPREAD_S ?? 60);
const DECISIONS = Number(env.BENCH_DECISIONS ?? 500);
const DECISION_RATE = Number(env.BENCH_DECISION_RATE ?? 100);
const DOWNLOADS = Number(env.BENCH_DOWNLOADS ?? 50);
/** The size of each createApproval asset. */
const ASSET_BYTES = 10 * 1024 * 1024;
/** Rounds run first and not counted (JIT, connection set-up). */
const WARMUP_DOWNLOADS = 2;
/** BENCH_TIMER_FLOOR=0 leaves out the floor (bare BullMQ delayed jobs) run before Shelf's timers. */
const FLOOR = env.BENCH_TIMER_FLOOR !== '0';
/** The timer worker's concurrency, for the floor's worker (Shelf's comes from its own config). */
const FLOOR_CONCURRENCY = Number(env.APPROVAL_TIMER_CONCURRENCY ?? 4);
/** How long after the last deadline a timer may still fire before it counts as not fired. */
const SETTLE_MS = 8_000;
/** A worker's first seconds (the restart of a rolling deploy): timers due this long after its spawn are reported apart. */
const START_WINDOW_MS = 10_000;
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shelf', 'shelf_bench_approvals');
const PREFIX = `shelf-bench-approvals-${process.pid}`;
const SECRET = 'bench-approvals-secret-bench-approvals-secret';
const STORAGE = `/tmp/shelf-bench-approvals-${process.pid}`;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const median = (xs: number[]) => pct(xs, 50);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** p50, p99 and max of lateness in ms; `missing` timers that never fired count as infinitely late. */
function lateness(xs: number[], missing = 0): string {
  if (xs.length + missing === 0) return 'none';
  const all = [...xs, ...Array<number>(missing).fill(Infinity)];
  const f = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} ms` : 'never');
  return `p50 ${f(pct(all, 50))}, p99 ${f(pct(all, 99))}, max ${f(Math.max(...all))}`;
}

/**
 * The floor: as many bare BullMQ delayed jobs over the same spread, taken by a bare worker process
 * with the timer worker's concurrency that only notes how late each started (no database).
 */
async function timerFloor(say: (line: string) => void): Promise<number[]> {
  const queue = new Queue('bare-timers', { connection: redisConnection({ redisUrl: REDIS_URL }), prefix: PREFIX });
  const child = fork(new URL('./servers/bare-timer-worker.ts', import.meta.url), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...env, REDIS_URL, QUEUE_PREFIX: PREFIX, QUEUE_NAME: 'bare-timers', CONCURRENCY: String(FLOOR_CONCURRENCY) },
  });
  await new Promise((resolve) => child.once('message', resolve));
  const start = Date.now();
  const dues = Array.from({ length: TIMERS }, () => start + (Math.random() * SPREAD_S + 5) * 1000);
  for (let i = 0; i < dues.length; i += 1000) {
    await queue.addBulk(
      dues.slice(i, i + 1000).map((due) => ({ name: 'bare', data: { due }, opts: { delay: Math.max(0, due - Date.now()), removeOnComplete: true } })),
    );
  }
  await sleep(Math.max(...dues) + SETTLE_MS - Date.now());
  const { lateness: late } = await ask<{ lateness: number[] }>(child, 'report', 'report');
  child.send('stop');
  await new Promise((r) => child.once('exit', r));
  await queue.obliterate({ force: true });
  await queue.close();
  say(
    `timers floor (bare BullMQ delayed jobs, concurrency ${FLOOR_CONCURRENCY}, no database): ${late.length} of ${TIMERS} ran; late by ${lateness(late, TIMERS - late.length)}; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  return [...late, ...Array<number>(TIMERS - late.length).fill(Infinity)];
}

/** Shelf's timers: which fired (NODE_TIMEOUT callbacks), how late, in the worker's first seconds and after, and whether any fired twice. */
async function reportTimers(
  say: (line: string) => void,
  db: (sql: string, params?: unknown[]) => Promise<unknown>,
  deadlines: Map<string, number>,
  spawnedAt: number,
  readyAt: number,
  floor: number[],
): Promise<void> {
  const fired = (await db(
    `select ordering_key, (body->>'eventTime')::float8 as at from outbox_events where event_type = 'APPROVAL' and body->'payload'->>'eventName' = 'NODE_TIMEOUT'`,
  )) as { ordering_key: string; at: number }[];
  const firstFire = new Map<string, number>();
  let doubled = 0;
  for (const f of fired) {
    const task = f.ordering_key.slice(5);
    if (firstFire.has(task)) doubled++;
    else firstFire.set(task, f.at);
  }
  const queued = new Map(
    (
      (await db(
        `select id, (extract(epoch from timer_queued_at) * 1000)::float8 as at from approval_tasks where reason = 'bench-timer' and timer_queued_at is not null`,
      )) as { id: string; at: number }[]
    ).map((r) => [r.id, r.at]),
  );
  const groups = { all: [] as number[], start: [] as number[], rest: [] as number[] };
  const missing = { all: 0, start: 0, rest: 0 };
  let queuedLate = 0;
  const buckets = new Map<number, number[]>();
  for (const [task, due] of deadlines) {
    const inStart = due < spawnedAt + START_WINDOW_MS;
    const at = firstFire.get(task);
    if ((queued.get(task) ?? Infinity) > due) queuedLate++;
    if (at === undefined) {
      missing.all++;
      missing[inStart ? 'start' : 'rest']++;
      continue;
    }
    groups.all.push(at - due);
    groups[inStart ? 'start' : 'rest'].push(at - due);
    const bucket = Math.floor((due - spawnedAt) / 10_000) * 10;
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), at - due]);
  }
  const startCount = groups.start.length + missing.start;
  // timers due before the worker ran at all: late by its start-up whatever it does once it runs
  const beforeReady = readyAt ? [...deadlines].filter(([, due]) => due < readyAt).map(([task, due]) => (firstFire.get(task) ?? Infinity) - due) : [];
  say(
    `timers: worker ready ${readyAt ? `${((readyAt - spawnedAt) / 1000).toFixed(1)} s` : 'never'} after spawn; ${firstFire.size} of ${deadlines.size} fired, ${doubled} fired twice, ${missing.all} not fired ${SETTLE_MS / 1000} s after the last deadline; ${queuedLate} queued after their deadline`,
  );
  const ratio = floor.length > 0 && missing.all === 0 ? `; p99 ${(pct(groups.all, 99) / pct(floor, 99)).toFixed(1)}x the floor's` : '';
  say(`timers: late by ${lateness(groups.all, missing.all)}${ratio} (target p99 < 1000 ms, every timer fires)`);
  say(
    `timers due in the worker's first ${START_WINDOW_MS / 1000} s (${startCount}): late by ${lateness(groups.start, missing.start)}; later (${groups.rest.length + missing.rest}): ${lateness(groups.rest, missing.rest)}`,
  );
  say(
    `timers due before the worker was ready (${beforeReady.length}): late by ${lateness(beforeReady.filter(Number.isFinite), beforeReady.filter((x) => !Number.isFinite(x)).length)}`,
  );
  say(
    `timers p99 by deadline, s after spawn: ${[...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([b, xs]) => `${b}-${b + 10}: ${pct(xs, 99).toFixed(0)} ms`)
      .join('; ')}; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

async function main(): Promise<void> {
  await freshDatabase(DATABASE);
  const orm = await openOrm({ databaseUrl: DATABASE, poolMax: 10 });
  await migrateUp(orm);
  const receiver = fork(new URL('./servers/webhook-receiver.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const receiverPort = await new Promise<number>((resolve) => receiver.once('message', (m: { port: number }) => resolve(m.port)));
  const assets = fork(new URL('./servers/asset-server.ts', import.meta.url), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...env, BENCH_ASSET_BYTES: String(ASSET_BYTES) },
  });
  const assetHost = `127.0.0.1:${await new Promise<number>((resolve) => assets.once('message', (m: { port: number }) => resolve(m.port)))}`;
  const allow = `127.0.0.1:${receiverPort},${assetHost}`;
  const config = loadConfig({
    DATABASE_URL: DATABASE,
    REDIS_URL,
    OUTBOUND_ALLOW_HOSTS: allow,
    QUEUE_PREFIX: PREFIX,
    LINK_SIGNING_SECRET: SECRET,
    STORAGE_DIR: STORAGE,
    APPROVAL_MAX_ASSET_BYTES: String(50 * 1024 * 1024),
  });
  const core = createCore(orm, config, publicUrls(config.publicBaseUrl));
  const op = core.operatorCtx();
  const { teamId } = await core.access.createTeam(op, { name: 'Bench' });
  const { key } = await core.access.createKey(op, { teamId, role: 'manage' });
  const ctx = core.ctxFor(await core.access.authenticate(op, `Bearer ${key}`), 'bench');
  const approver = (await core.access.addMember(op, { teamId, name: 'approver' })).userId;
  const submitter = (await core.access.addMember(op, { teamId, name: 'submitter' })).userId;
  const transferee = (await core.access.addMember(op, { teamId, name: 'transferee' })).userId;
  await core.events.subscriptions.changeApprovalSubscription(ctx, { operation: 'ADD', callbackUrl: `http://127.0.0.1:${receiverPort}/approvals` });
  const template = await core.approvals.templates.create(
    { em: orm.em.fork(), teamId },
    {
      name: 'Bench',
      workflow: { nodes: [{ name: 'Review', signMode: 'or', approvers: [approver], timeout: { hours: 1, transferTo: transferee } }] },
    },
  );
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  say(
    `# approvals benchmark ${new Date().toISOString()} load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  if (DOWNLOADS > 0) {
    const limits = { timeoutMs: config.approvalDownloadTimeoutMs, maxBytes: config.approvalMaxAssetBytes };
    await createApprovalRounds(say, core, ctx, {
      templateId: template.id,
      createdBy: String(submitter),
      assetHost,
      storageDir: STORAGE,
      rounds: DOWNLOADS,
      warmup: WARMUP_DOWNLOADS,
      limits,
      load,
    });
  }

  const floor = TIMERS > 0 && FLOOR ? await timerFloor(say) : [];

  // timers: tasks written as createApproval leaves them, each node due within the next minute
  const db = (sql: string, params: unknown[] = []) => orm.em.fork().execute(sql, params);
  const t0 = Date.now();
  await db(
    `insert into approval_tasks (id, team_id, template_id, workflow, status, created_by_id, node_index, node_role, node_status, timeout_at, reason)
     select gen_random_uuid(), ?, ?::uuid, t.workflow, 'PENDING', ?, 0, 'normal', 'processing', now() + (random() * ? + 5) * interval '1 second', 'bench-timer'
       from generate_series(1, ?) g, approval_templates t where t.id = ?::uuid`,
    [teamId, template.id, submitter, SPREAD_S, TIMERS, template.id],
  );
  await db(
    `insert into approval_decisions (team_id, task_id, node_key, member_id) select team_id, id, 'node-1#1', ? from approval_tasks where reason = 'bench-timer'`,
    [approver],
  );
  const deadlines = new Map<string, number>(
    (
      (await db(`select id, (extract(epoch from timeout_at) * 1000)::float8 as at from approval_tasks where reason = 'bench-timer'`)) as {
        id: string;
        at: number;
      }[]
    ).map((r) => [r.id, r.at]),
  );
  say(
    `timers: ${deadlines.size} pending tasks written in ${((Date.now() - t0) / 1000).toFixed(1)} s, due over the next ${SPREAD_S} s; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const spawnedAt = Date.now();
  // BENCH_WORKER_ARGS: node options for the worker process only (say --cpu-prof --cpu-prof-dir=/tmp/prof)
  const workerArgs = (env.BENCH_WORKER_ARGS ?? '').split(' ').filter(Boolean);
  // without timers there are no tasks to decide on either: no worker (BENCH_TIMERS=0 measures createApproval alone)
  const worker =
    TIMERS > 0
      ? spawn(process.execPath, [...workerArgs, 'src/main.mjs'], {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: {
            ...env,
            ROLE: 'worker',
            DATABASE_URL: DATABASE,
            REDIS_URL,
            QUEUE_PREFIX: PREFIX,
            OUTBOUND_ALLOW_HOSTS: allow,
            LINK_SIGNING_SECRET: SECRET,
            STORAGE_DIR: STORAGE,
            LOG_LEVEL: 'info',
          },
        })
      : null;
  // the worker logs (pino, one JSON line each) on stdout: note when its workers and relay run
  let readyAt = 0;
  let pending = '';
  worker?.stdout?.on('data', (chunk: Buffer) => {
    if (readyAt) return;
    pending = (pending + chunk.toString()).slice(-4096);
    if (pending.includes('shelf workers running')) readyAt = Date.now();
  });
  if (TIMERS > 0) {
    const lastDeadline = Math.max(...deadlines.values());
    await sleep(Math.max(0, lastDeadline + SETTLE_MS - Date.now()));
    await reportTimers(say, db, deadlines, spawnedAt, readyAt, floor);
  }
  // decision-to-callback: the transferee decides on tasks; latency until the receiver has its APPROVER_SUBMITTED
  receiver.send('reset');
  const taskIds = [...deadlines.keys()].slice(0, DECISIONS);
  const decidedAt = new Map<string, number>();
  const member = core.ctxFor({ kind: 'member', userId: transferee, teamId, viaKey: null }, 'bench');
  const started = Date.now();
  for (const [i, taskId] of taskIds.entries()) {
    await core.approvals.engine.decide(member, { taskId, decision: 'approved' });
    decidedAt.set(taskId, Date.now());
    const wait = started + ((i + 1) * 1000) / DECISION_RATE - Date.now();
    if (wait > 0) await sleep(wait);
  }
  const eventIds = new Map(
    (
      (await db(
        `select event_id::text as id, body->'payload'->>'taskId' as task from outbox_events where event_type = 'APPROVAL' and body->'payload'->>'eventName' = 'APPROVER_SUBMITTED'`,
      )) as { id: string; task: string }[]
    ).map((r) => [r.id, r.task]),
  );
  await sleep(3000);
  const { arrivals } = await ask<{ arrivals: [string, number][] }>(receiver, 'report', 'report');
  const latencies = arrivals
    .filter(([id]) => eventIds.has(id))
    .map(([id, at]) => at - decidedAt.get(eventIds.get(id)!)!)
    .filter((x) => Number.isFinite(x));
  if (taskIds.length > 0)
    say(
      `decision-to-callback at ${DECISION_RATE} decisions/s: ${latencies.length} of ${taskIds.length} received; p50 ${median(latencies)} ms, p99 ${pct(latencies, 99)} ms (target p99 < 1000 ms)`,
    );

  if (worker) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
  receiver.send('stop');
  assets.send('stop');
  await core.platform.outbound.close();
  await orm.close();
  await rm(STORAGE, { recursive: true, force: true });
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}

await main();
