/**
 * Webhook delivery benchmark (events issue): deliveries per second to a loopback receiver (1 KB
 * payloads, 50 subscriptions, attempts recorded) against two floors in the same run: the
 * transport floor, a plain undici loop POSTing the same signed bodies to the same receiver (what
 * the HTTP transport alone costs), and a bare BullMQ worker posting one job per delivery (no
 * outbox, no record, no signature); commit-to-receipt latency at a steady 1,000 events/s; the
 * worker process's RSS with a backlog of undelivered events.
 *
 *   node_modules/node/bin/node bench/webhooks.bench.ts
 *
 * BENCH_EVENTS (400) events x 50 endpoints per throughput round, BENCH_ROUNDS (3) rounds, each
 * running Shelf and both floors in turn (the order turns each round), BENCH_FLOOR_CONCURRENCY (50)
 * requests in flight in the transport floor, BENCH_RATE (1000) events/s for
 * BENCH_LATENCY_SECONDS (10), BENCH_BACKLOG (1,000,000) undelivered events for
 * BENCH_BACKLOG_SECONDS (60); BENCH_PARTS=throughput,latency,backlog picks parts. Shelf's worker
 * is a real `ROLE=worker` process (BENCH_WORKER_LOG=file keeps its log); the floors are child
 * processes too. Every line gives the load average. Only 127.0.0.1 is contacted.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.ts';
import { type Core, createCore } from '../src/core/core.ts';
import { recordEvent } from '../src/core/outbox/outbox.ts';
import { inTransaction } from '../src/core/platform/tx.ts';
import { migrateUp, openOrm } from '../src/db/orm.ts';
import { publicUrls } from '../src/public-urls.ts';
import { databaseUrlNamed, freshDatabase } from './support/brand-seed.ts';
import { ask, sleep } from './support/child-messages.ts';
import { cpuMeter, processCpuMs } from './support/cpu-time.ts';

const env = process.env;
const EVENTS = Number(env.BENCH_EVENTS ?? 400);
const ENDPOINTS = 50;
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const RATE = Number(env.BENCH_RATE ?? 1000);
const LATENCY_SECONDS = Number(env.BENCH_LATENCY_SECONDS ?? 10);
const BACKLOG = Number(env.BENCH_BACKLOG ?? 1_000_000);
const BACKLOG_SECONDS = Number(env.BENCH_BACKLOG_SECONDS ?? 60);
const PARTS = (env.BENCH_PARTS ?? 'throughput,latency,backlog').split(',');
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = databaseUrlNamed(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shelf', 'shelf_bench_webhooks');
const PREFIX = `shelf-bench-webhooks-${process.pid}`;
/** Requests the transport floor keeps in flight. */
const FLOOR_CONCURRENCY = Number(env.BENCH_FLOOR_CONCURRENCY ?? 50);
type Side = 'shelf' | 'transport' | 'bullmq';
const SIDES: Side[] = ['shelf', 'transport', 'bullmq'];
/** Event transactions the latency driver has open at most (its pool's connections). */
const MAX_COMMITTING = 20;
const NOTE = 'x'.repeat(880); // with the envelope fields, a body of about 1 KB

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function startReceiver(): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(new URL('./servers/webhook-receiver.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  return { child, port };
}

/** Waits until the receiver has `target` requests; returns how many it has and the connections they came on. */
async function waitForCount(receiver: ChildProcess, target: number, timeoutMs = 300_000): Promise<{ count: number; connections: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await ask<{ count: number; connections: number }>(receiver, 'count', 'count');
    if (answer.count >= target || Date.now() > deadline) return answer;
    await sleep(20);
  }
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

function shelfWorker(allowHost: string, extra: Record<string, string> = {}): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...(env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${env.BENCH_CPU_PROF}`] : []),
      '--max-semi-space-size=16',
      '--max-old-space-size=256',
      'src/main.mjs',
    ],
    {
      stdio: ['ignore', env.BENCH_WORKER_LOG ? openSync(env.BENCH_WORKER_LOG, 'w') : 'ignore', 'inherit'],
      env: {
        ...env,
        ROLE: 'worker',
        DATABASE_URL: DATABASE,
        REDIS_URL,
        QUEUE_PREFIX: PREFIX,
        OUTBOUND_ALLOW_HOSTS: allowHost,
        LOG_LEVEL: 'info',
        ...(env.BENCH_PGOPTIONS ? { PGOPTIONS: env.BENCH_PGOPTIONS } : {}),
        LINK_SIGNING_SECRET: 'bench-webhooks-secret-bench-webhooks-secret',
        ...extra,
      },
    },
  );
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, sleep(15_000).then(() => child.kill('SIGKILL'))]);
}

async function main(): Promise<void> {
  await freshDatabase(DATABASE);
  const orm = await openOrm({ databaseUrl: DATABASE, poolMax: 20 });
  await migrateUp(orm);
  if (env.BENCH_EXPERIMENT_SQL) await orm.em.fork().execute(env.BENCH_EXPERIMENT_SQL);
  const receiver = await startReceiver();
  const allowHost = `127.0.0.1:${receiver.port}`;
  const config = loadConfig({
    DATABASE_URL: DATABASE,
    REDIS_URL,
    OUTBOUND_ALLOW_HOSTS: allowHost,
    QUEUE_PREFIX: PREFIX,
    LINK_SIGNING_SECRET: 'bench-webhooks-secret-bench-webhooks-secret',
  });
  const core: Core = createCore(orm, config, publicUrls(config.publicBaseUrl));
  const op = core.operatorCtx();
  const { teamId } = await core.access.createTeam(op, { name: 'Bench' });
  await core.access.enableSubscriptions(op, { teamId });
  const { key } = await core.access.createKey(op, { teamId, role: 'manage' });
  const ctx = core.ctxFor(await core.access.authenticate(op, `Bearer ${key}`), 'bench');
  for (let i = 0; i < ENDPOINTS; i++) {
    await core.events.subscriptions.changeMaterialSubscription(ctx, { callbackUrl: `http://${allowHost}/e${i}`, eventTypes: ['MATERIAL_DELETED'] });
  }
  await core.events.subscriptions.changeMaterialSubscription(ctx, { callbackUrl: `http://${allowHost}/latency`, eventTypes: ['MATERIAL_INBOUND_COMPLETED'] });
  const db = (sql: string, params: unknown[] = []) => orm.em.fork().execute(sql, params);
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  say(
    `# webhooks benchmark ${new Date().toISOString()} load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  // BENCH_PGSTATS=1: what PostgreSQL did for Shelf's side of a round (transactions, rows, scans)
  const tableStats = async () => {
    await sleep(1500); // backends report their counters when idle, at most once a second
    return (await db(
      `select relname as t, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot, seq_scan as seq, seq_tup_read as seqread, idx_scan as idx, idx_tup_fetch as idxfetch
         from pg_stat_user_tables where relname like 'webhook%' or relname = 'outbox_events'
       union all select 'xacts', xact_commit, xact_rollback, 0, 0, 0, 0, 0 from pg_stat_database where datname = current_database()`,
    )) as Record<string, string | number>[];
  };
  const printTableStats = async (before: Record<string, string | number>[] | null) => {
    const after = await tableStats();
    for (const row of after) {
      const b = before?.find((x) => x.t === row.t);
      say(
        `  pgstats ${row.t}: ${Object.keys(row)
          .filter((k) => k !== 't')
          .map((k) => `${k} ${Number(row[k]) - Number(b?.[k] ?? 0)}`)
          .join(', ')}`,
      );
    }
  };

  /*
   * The shared server runs with autovacuum off: without this, the webhook tables are never analyzed
   * (PostgreSQL then guesses one active endpoint and claims a batch by walking every endpoint's
   * pending line, 10x the work) and their dead rows are never cleared. A deployment's autovacuum
   * does both; this does it before each timed part, outside the clock, in the state a deployment
   * is in between bursts (endpoints active, nothing pending), so the statistics do not know of the
   * burst that follows, as they would not in a deployment either.
   */
  const vacuumAnalyze = () => db('vacuum (analyze) webhook_endpoints, webhook_deliveries, webhook_delivery_lines, webhook_attempts, outbox_events');

  let eventCounter = 0;
  const emit = async (eventType: string) => {
    const id = ++eventCounter;
    return inTransaction(ctx, (tx) =>
      recordEvent(tx, { eventType, audience: { kind: 'material' }, orderingKey: `material:${id}`, fields: { payload: { materialIds: [id], note: NOTE } } }),
    );
  };
  /** Waits until a worker process just started delivers (its start-up takes seconds, many on a loaded machine). */
  const untilDelivering = async () => {
    receiver.child.send('reset');
    await emit('MATERIAL_INBOUND_COMPLETED');
    await waitForCount(receiver.child, 1, 120_000);
    receiver.child.send('reset');
  };

  if (PARTS.includes('throughput')) {
    const total = EVENTS * ENDPOINTS;
    const rates: Record<Side, number[]> = { shelf: [], transport: [], bullmq: [] };
    const ratios: number[] = [];
    /** CPU per delivery of a side: its worker (or client), its database's backends and the receiver. */
    const cpuUs: Record<Side, number[]> = { shelf: [], transport: [], bullmq: [] };
    const shelf = shelfWorker(allowHost);
    await untilDelivering();
    const floorQueue = new Queue('bare-delivery', { connection: { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) }, prefix: PREFIX });
    const transport = fork(new URL('./servers/undici-loop.ts', import.meta.url), {
      env: { ...env, CONCURRENCY: String(FLOOR_CONCURRENCY) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise((r) => transport.once('message', r));
    const LABELS: Record<Side, string> = { shelf: 'shelf', transport: 'transport floor (undici loop)', bullmq: 'bare BullMQ floor' };
    const timed = async (side: Side, start: () => Promise<unknown>, expected: number, cpuPid?: number) => {
      receiver.child.send('reset');
      const load = loadavg()[0]!.toFixed(1);
      const meter = cpuPid === undefined ? null : cpuMeter(cpuPid, 'shelf_bench_webhooks');
      const receiverCpu0 = processCpuMs(receiver.child.pid!);
      const stats0 = env.BENCH_PGSTATS && side === 'shelf' ? await tableStats() : null;
      const started = Date.now();
      await start();
      const { count: got, connections } = await waitForCount(receiver.child, expected);
      const seconds = (Date.now() - started) / 1000;
      const cpu = meter?.stop();
      const receiverUs = ((processCpuMs(receiver.child.pid!) - receiverCpu0) * 1000) / got;
      if (env.BENCH_PGSTATS && side === 'shelf') await printTableStats(stats0);
      rates[side].push(got / seconds);
      if (cpu) cpuUs[side].push(((cpu.serverMs + cpu.postgresMs) * 1000) / got + receiverUs);
      const cpuNote = cpu
        ? `; worker CPU ${((cpu.serverMs / 1000 / seconds) * 100).toFixed(0)} % of a core, ${((cpu.serverMs * 1000) / got).toFixed(0)} us/delivery; its database's PostgreSQL backends ${((cpu.postgresMs / 1000 / seconds) * 100).toFixed(0)} %, ${((cpu.postgresMs * 1000) / got).toFixed(0)} us/delivery; receiver ${receiverUs.toFixed(0)} us/delivery`
        : '';
      return `${LABELS[side]}: ${got} in ${seconds.toFixed(2)} s = ${(got / seconds).toFixed(0)}/s (load ${load}; ${connections} new connections${cpuNote})`;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      // statistics as a deployment's autovacuum leaves them between bursts: endpoints active, nothing pending
      await vacuumAnalyze();
      // Shelf: the round's events commit in one transaction that also disables their endpoints, so
      // nothing is sent until every endpoint is enabled at once (the clock starts there)
      await inTransaction(ctx, async (tx) => {
        for (let i = 0; i < EVENTS; i++) {
          const id = ++eventCounter;
          await recordEvent(tx, {
            eventType: 'MATERIAL_DELETED',
            audience: { kind: 'material' },
            orderingKey: `material:${id}`,
            fields: { payload: { materialIds: [id], note: NOTE } },
          });
        }
        await tx.em.execute(`update webhook_endpoints set state = 'disabled' where url like '%/e%'`);
      });
      const pending = Number((await db(`select count(*)::int as n from webhook_deliveries where status = 'pending'`))[0]!.n);
      // the transport floor gets the same deliveries, built and signed the reference way (parse, add
      // the sequence, serialise; the standardwebhooks package) before its clock starts
      const rows = (await db(
        `select e.url, e.secret, o.event_id, o.body::text as body, coalesce(d.body_sequence, d.sequence)::int as sequence
           from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id join outbox_events o on o.id = d.event_id
          where d.status = 'pending' and e.url like '%/e%' order by d.id`,
      )) as { url: string; secret: string; event_id: string; body: string; sequence: number }[];
      const at = new Date();
      const requests = rows.map((r) => {
        const body = JSON.stringify({ ...(JSON.parse(r.body) as object), sequence: r.sequence });
        return {
          url: r.url,
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Shelf-Webhooks/1.0',
            'webhook-id': r.event_id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(r.secret).sign(r.event_id, at, body),
          },
        };
      });
      transport.send({ type: 'load', requests });
      await new Promise((r) => transport.once('message', r));

      const sides: Record<Side, () => Promise<string>> = {
        shelf: () => timed('shelf', () => db(`update webhook_endpoints set state = 'active' where url like '%/e%'`), pending, shelf.pid),
        transport: () => timed('transport', () => (transport.send('go'), Promise.resolve()), requests.length, transport.pid),
        bullmq: async () => {
          const floor = fork(new URL('./servers/bare-delivery-worker.ts', import.meta.url), {
            env: { ...env, REDIS_URL, QUEUE_PREFIX: PREFIX, CONCURRENCY: String(config.webhookConcurrency) },
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          });
          await new Promise((r) => floor.once('message', r));
          const body = JSON.stringify({
            eventId: 'x',
            eventType: 'MATERIAL_DELETED',
            eventTime: String(Date.now()),
            actor: { kind: 'key', id: 1 },
            payload: { materialIds: [1], note: NOTE },
            sequence: 1,
          });
          const line = await timed(
            'bullmq',
            async () => {
              for (let i = 0; i < total; i += 1000) {
                await floorQueue.addBulk(
                  Array.from({ length: Math.min(1000, total - i) }, (_x, j) => ({
                    name: 'post',
                    data: { target: `http://${allowHost}/e${(i + j) % ENDPOINTS}`, body, id: String(i + j) },
                    opts: { removeOnComplete: true },
                  })),
                );
              }
            },
            total,
            floor.pid,
          );
          floor.send('stop');
          await new Promise((r) => floor.once('exit', r));
          return line;
        },
      };
      // the order turns each round, so neither side always runs on a machine the other just warmed or loaded
      const order = SIDES.map((_s, i) => SIDES[(i + round - 1) % SIDES.length]!);
      for (const side of order) say(`round ${round} ${await sides[side]()}`);
      const last = (side: Side) => rates[side][rates[side].length - 1]!;
      ratios.push(last('shelf') / last('transport'));
      say(`round ${round} shelf / transport floor ${ratios.at(-1)!.toFixed(2)}, shelf / bare BullMQ floor ${(last('shelf') / last('bullmq')).toFixed(2)}`);
    }
    transport.send('stop');
    await floorQueue.obliterate({ force: true });
    await floorQueue.close();
    await stopChild(shelf);
    const s = median(rates.shelf);
    const t = median(rates.transport);
    const b = median(rates.bullmq);
    const r = median(ratios);
    say(
      `throughput median of ${ROUNDS}: shelf ${s.toFixed(0)}/s (target >= 5,000/s: ${s >= 5000 ? 'met' : 'missed'}), transport floor ${t.toFixed(0)}/s, bare BullMQ floor ${b.toFixed(0)}/s; ` +
        `median of the rounds' shelf / transport floor ${r.toFixed(2)} (target >= 0.35: ${r >= 0.35 ? 'met' : 'missed'}); load after ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    // on a busy machine the scheduler gives Shelf's several processes more CPU than the floor's one
    // client, which flatters the ratio above; CPU per delivery does not depend on who else runs
    const [sc, tc, bc] = [median(cpuUs.shelf), median(cpuUs.transport), median(cpuUs.bullmq)];
    say(
      `CPU per delivery (worker or client + its PostgreSQL backends + receiver), median: shelf ${sc.toFixed(0)} us, transport floor ${tc.toFixed(0)} us (${(tc / sc).toFixed(2)} of shelf's), bare BullMQ floor ${bc.toFixed(0)} us`,
    );
  }

  if (PARTS.includes('latency')) {
    await vacuumAnalyze();
    const shelf = shelfWorker(allowHost);
    await untilDelivering();
    receiver.child.send('reset');
    const committed = new Map<string, number>();
    // open loop: every 10 ms a tick's events start, whether or not earlier ones have committed
    // (up to MAX_COMMITTING at once), so a slow commit does not lower the rate asked for
    const perTick = Math.max(1, Math.round(RATE / 100));
    const committing = new Set<Promise<void>>();
    const started = Date.now();
    let next = started;
    let lastCommit = started;
    while (Date.now() - started < LATENCY_SECONDS * 1000) {
      for (let i = 0; i < perTick; i++) {
        if (committing.size >= MAX_COMMITTING) await Promise.race(committing);
        const commit: Promise<void> = emit('MATERIAL_INBOUND_COMPLETED').then((id) => {
          lastCommit = Date.now();
          if (id) committed.set(id, lastCommit);
          committing.delete(commit);
        });
        committing.add(commit);
      }
      next += 10;
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(committing);
    const achieved = committed.size / ((lastCommit - started) / 1000);
    await waitForCount(receiver.child, committed.size, 60_000);
    const { arrivals } = await ask<{ arrivals: [string, number][] }>(receiver.child, 'report', 'report');
    const latencies = arrivals.filter(([id]) => committed.has(id)).map(([id, at]) => at - committed.get(id)!);
    say(
      `latency: the driver committed ${achieved.toFixed(0)} events/s of the ${RATE} asked (${achieved >= 0.98 * RATE ? 'reached' : 'NOT reached'}; ${committed.size} events, ${latencies.length} received; load ${loadavg()[0]!.toFixed(1)}): ` +
        `p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${Math.max(...latencies)} ms (target p99 < 1000 ms: ${percentile(latencies, 99) < 1000 ? 'met' : 'missed'})`,
    );
    await stopChild(shelf);
  }

  if (PARTS.includes('backlog')) {
    // a receiver that is down: an allowlisted port nothing listens on
    const downHost = '127.0.0.1:9';
    await core.events.subscriptions
      .changeMaterialSubscription(ctx, { callbackUrl: `http://${downHost}/down`, eventTypes: ['MATERIAL_VERSION_CHANGED'] })
      .catch(() => undefined);
    const coreConfig = loadConfig({ DATABASE_URL: DATABASE, REDIS_URL, OUTBOUND_ALLOW_HOSTS: `${allowHost},${downHost}`, QUEUE_PREFIX: PREFIX });
    const config2 = createCore(orm, coreConfig, publicUrls(coreConfig.publicBaseUrl));
    await config2.events.subscriptions.changeMaterialSubscription(ctx, { callbackUrl: `http://${downHost}/down`, eventTypes: ['MATERIAL_VERSION_CHANGED'] });
    const [endpoint] = (await db(`select id from webhook_endpoints where url = ?`, [`http://${downHost}/down`])) as [{ id: number }];
    const t0 = Date.now();
    await db(
      `insert into outbox_events (team_id, event_id, event_type, ordering_key, body, actor)
       select ?, gen_random_uuid(), 'MATERIAL_VERSION_CHANGED', 'backlog:' || g, json_build_object('eventType', 'MATERIAL_VERSION_CHANGED', 'payload', json_build_object('note', ?::text)), 'key:1'
         from generate_series(1, ?) g`,
      [teamId, NOTE, BACKLOG],
    );
    await db(
      `insert into webhook_deliveries (team_id, endpoint_id, event_id, ordering_key, sequence, ready)
       select team_id, ?, id, ordering_key, 1, true from outbox_events where event_type = 'MATERIAL_VERSION_CHANGED'`,
      [endpoint.id],
    );
    await db(
      `insert into webhook_delivery_lines (endpoint_id, ordering_key, team_id, last_sequence, unfinished) select ?, ordering_key, team_id, 1, 1 from outbox_events where event_type = 'MATERIAL_VERSION_CHANGED'`,
      [endpoint.id],
    );
    say(`backlog: ${BACKLOG} undelivered events written in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    const shelf = shelfWorker(`${allowHost},${downHost}`);
    let peak = 0;
    const samples: number[] = [];
    const until = Date.now() + BACKLOG_SECONDS * 1000;
    while (Date.now() < until) {
      await sleep(1000);
      const rss = rssMb(shelf.pid!);
      samples.push(rss);
      peak = Math.max(peak, rss);
    }
    const [attempted] = (await db(
      `select count(*)::int as n from webhook_attempts where delivery_id in (select id from webhook_deliveries where endpoint_id = ?)`,
      [endpoint.id],
    )) as [{ n: number }];
    say(
      `backlog: worker RSS over ${BACKLOG_SECONDS} s: median ${median(samples).toFixed(0)} MB, peak ${peak.toFixed(0)} MB (target < 300 MB); ${attempted.n} attempts made meanwhile (receiver down)`,
    );
    await stopChild(shelf);
  }

  receiver.child.send('stop');
  await orm.close();
  const queueCleanup = new Queue('webhook-delivery', { connection: { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) }, prefix: PREFIX });
  await queueCleanup.obliterate({ force: true }).catch(() => undefined);
  await queueCleanup.close();
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}

await main();
