import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, recordEvents, type ScopedEvent } from '../../src/core/outbox/outbox.ts';
import type { SystemActor } from '../../src/core/platform/ctx.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { OutboxRelay } from '../../workers/outbox-relay.ts';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { tempDir } from '../support/media-files.ts';

/*
 * Timers fired in batches (docs/approvals.md "Timers"), at the core: a timer's job fires its own
 * timer and the overdue ones of other tasks in one transaction. No worker runs in this file: the
 * tests call the job's operation and the relay's step themselves, and move deadlines with SQL.
 */

let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
let m: ApprovalWorld['members'];
/** Node 1 (`and`: ann, bob) times out to dan; node 2 (cat) has no timeout. */
let transferring: string;
/** Node 1 (`or`: ann) times out to dan. */
let single: string;

beforeAll(async () => {
  storage = await tempDir('timer-batch-storage');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path, APPROVAL_DOWNLOAD_TIMEOUT_MS: '10000' });
  m = world.members;
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
  const create = (name: string, nodes: unknown[]) =>
    world.env.core.approvals.templates.create({ em: world.env.orm.em.fork(), teamId: world.team.teamId }, { name, workflow: { nodes } } as never);
  transferring = (
    await create('Transferring', [
      { name: 'Both', signMode: 'and', approvers: [m.ann, m.bob], timeout: { hours: 1, transferTo: m.dan } },
      { name: 'Last', signMode: 'or', approvers: [m.cat] },
    ])
  ).id;
  single = (
    await create('Single', [
      { name: 'Quick', signMode: 'or', approvers: [m.ann], timeout: { hours: 1, transferTo: m.dan } },
      { name: 'Next', signMode: 'or', approvers: [m.bob] },
    ])
  ).id;
});
afterAll(async () => {
  await world.close();
  await storage.remove();
});

async function task(templateId: string): Promise<string> {
  const res = await world.approval({
    service: 'createApproval',
    templateId,
    createdBy: String(m.sub),
    assets: [{ url: `${world.assets.url}/bytes/${Math.random()}` }],
  });
  expect(res.body.code).toBe('0');
  return res.body.result.taskId;
}
const sql = <T>(text: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(text, params);
/** Moves a task's deadline to `seconds` from now (negative: overdue). */
const dueIn = (taskId: string, seconds: number) =>
  sql(`update approval_tasks set timeout_at = now() + ? * interval '1 second' where id = ?`, [seconds, taskId]);
const fire = (taskId: string, nodeKey = 'node-1#1') => world.env.core.approvals.engine.fireTimeout(world.env.core.operatorCtx(), { taskId, nodeKey });
const names = async (taskId: string) => (await world.callbacks(taskId)).map((c) => c.eventName);
const approvers = async (taskId: string) =>
  (await world.approval({ service: 'taskStatusQuery', taskId })).body.result.currentNodeApprovers.map(
    (a: { name: string; state: string }) => `${a.name}:${a.state}`,
  );

/** Backends of this test's database waiting for a lock. */
async function lockWaiters(): Promise<number> {
  const [row] = await sql<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
  return row!.n;
}
async function until(check: () => Promise<boolean>): Promise<void> {
  await expect.poll(check, { timeout: 10_000, interval: 20 }).toBe(true);
}

describe("a timer's job fires the overdue timers of other tasks with its own, in one transaction", () => {
  it('fires every overdue timer once: NODE_TIMEOUT then NODE_TRANSFERRED each, the transferee pending, decided approvers counted', async () => {
    const [own, other, decided, later] = [await task(transferring), await task(transferring), await task(transferring), await task(transferring)];
    await world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId: decided, decision: 'approved' });
    for (const id of [own, other, decided]) await dueIn(id, -2);
    await dueIn(later, 3600);

    expect(await fire(own)).toBe('fired');

    for (const id of [own, other]) expect(await names(id)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    expect(await names(decided)).toEqual(['NODE_STARTED', 'APPROVER_SUBMITTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    expect(await names(later)).toEqual(['NODE_STARTED']);
    const [, timeout, transferred] = await world.callbacks(other);
    expect(timeout).toEqual({
      eventName: 'NODE_TIMEOUT',
      orgId: world.team.teamId,
      taskId: other,
      taskStatus: 'TIMEOUT',
      round: 1,
      node: { nodeId: 'node-1', nodeStatus: 'timeout_transferred', timeoutHours: 1 },
      timeout: { transferTo: { id: String(m.dan), name: 'dan' } },
    });
    expect(transferred).toEqual({
      eventName: 'NODE_TRANSFERRED',
      orgId: world.team.teamId,
      taskId: other,
      taskStatus: 'PROCESSING',
      round: 1,
      transferReason: 'TIMEOUT_TRANSFER',
      node: { nodeId: 'node-1', nodeOrder: 1, nodeRole: 'normal', nodeStatus: 'processing', signMode: 'and', approverCount: 1, timeoutHours: 1 },
      timeout: { transferTo: { id: String(m.dan), name: 'dan' } },
    });
    // ann's decision stands beside the transferee; bob's pending place is skipped
    expect((await world.callbacks(decided))[3]!.node.approverCount).toBe(2);
    expect(await approvers(decided)).toEqual(['ann:approved', 'dan:pending']);
    expect(await approvers(other)).toEqual(['dan:pending']);
    // the jobs of the timers fired with it find nothing left to do
    expect(await fire(other)).toBe('skipped');
    expect(await fire(decided)).toBe('skipped');
    expect(await names(other)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    // each task's callbacks hold consecutive places in its line, only the first one its head
    const lines = await sql<{ sequence: number; ready: boolean }>(
      `select d.sequence::int, d.ready from webhook_deliveries d where d.ordering_key = ? order by d.id`,
      [`task:${other}`],
    );
    expect(lines).toEqual([
      { sequence: 1, ready: true },
      { sequence: 2, ready: false },
      { sequence: 3, ready: false },
    ]);
  });

  it('leaves alone a task whose node moved on, and the job of a timer not yet due does nothing', async () => {
    const [own, movedOn] = [await task(single), await task(single)];
    await world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId: movedOn, decision: 'approved' });
    await dueIn(own, 30);
    expect(await fire(own)).toBe('skipped');
    expect(await fire(movedOn)).toBe('skipped');
    expect(await names(own)).toEqual(['NODE_STARTED']);
    expect(await names(movedOn)).toEqual(['NODE_STARTED', 'APPROVER_SUBMITTED', 'NODE_COMPLETED', 'NODE_TRANSFERRED', 'NODE_STARTED']);
  });

  it("lets a decision that reaches the task first win: the timer's job waits for it, then does nothing", async () => {
    const taskId = await task(single);
    await dueIn(taskId, -1);
    const holder = new pg.Client({ connectionString: world.env.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from approval_tasks where id = $1 for update', [taskId]);
      const decision = world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId, decision: 'approved' });
      await until(async () => (await lockWaiters()) === 1);
      const job = fire(taskId);
      await until(async () => (await lockWaiters()) === 2);
      await holder.query('commit');
      expect(await decision).toEqual({ taskId, status: 'PROCESSING' });
      expect(await job).toBe('skipped');
    } finally {
      await holder.end();
    }
    expect(await names(taskId)).not.toContain('NODE_TIMEOUT');
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result.currentNodeName).toBe('Next');
  });

  it('fires a timer locked by another transaction once that one lets go, when it is still due', async () => {
    const taskId = await task(single);
    await dueIn(taskId, -1);
    const holder = new pg.Client({ connectionString: world.env.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from approval_tasks where id = $1 for update', [taskId]);
      const job = fire(taskId);
      await until(async () => (await lockWaiters()) === 1);
      // the holder changes nothing (a refused decision, say)
      await holder.query('rollback');
      expect(await job).toBe('fired');
    } finally {
      await holder.end();
    }
    expect(await names(taskId)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
  });

  it('fires each of many overdue timers exactly once when their jobs run at the same moment', async () => {
    const tasks = [];
    for (let i = 0; i < 12; i++) tasks.push(await task(single));
    for (const id of tasks) await dueIn(id, -1);
    const results = await Promise.all(tasks.map((id) => fire(id)));
    expect(results.filter((r) => r === 'fired').length).toBeGreaterThan(0);
    for (const id of tasks) expect(await names(id)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    expect(await Promise.all(tasks.map((id) => fire(id)))).toEqual(tasks.map(() => 'skipped'));
  });
});

describe('the relay and its timers', () => {
  it('queues every timer due within the minute in one step, more than one batch of them, soonest first', async () => {
    const [tpl] = await sql<{ workflow: unknown }>(`select workflow from approval_templates where id = ?`, [single]);
    await sql(
      `insert into approval_tasks (id, team_id, template_id, workflow, status, created_by_id, node_index, node_role, node_status, timeout_at, reason)
       select gen_random_uuid(), ?, ?::uuid, ?::jsonb, 'PENDING', ?, 0, 'normal', 'processing', now() + (10 + g * 0.01) * interval '1 second', 'relay-batch'
         from generate_series(1, 1500) g`,
      [world.team.teamId, single, JSON.stringify(tpl!.workflow), m.sub],
    );
    const relay = new OutboxRelay({
      core: world.env.core,
      queues: world.env.queues,
      logger: pino({ level: 'silent' }),
      intervalMs: 60_000,
      maxWaitingJobs: world.env.config.webhookConcurrency,
    });
    await relay.step();
    const [left] = await sql<{ n: number }>(`select count(*)::int as n from approval_tasks where reason = 'relay-batch' and timer_queued_at is null`);
    expect(left!.n).toBe(0);
    expect(await world.env.queues.get('approval-timeout').getDelayedCount()).toBeGreaterThanOrEqual(1500);
    await sql(`update approval_tasks set timeout_at = null where reason = 'relay-batch'`);
    await world.env.queues.get('approval-timeout').obliterate({ force: true });
  });

  it('queues an overdue timer again (a job lost with Redis) at most once every 30 seconds', async () => {
    const taskId = await task(single);
    await sql(`update approval_tasks set timeout_at = now() - interval '40 seconds', timer_queued_at = now() - interval '50 seconds' where id = ?`, [taskId]);
    const tasks = world.env.core.approvals.tasks;
    const op = world.env.core.operatorCtx();
    const due = (await tasks.dueTimers(op, 60_000, 1000)).filter((t) => t.taskId === taskId);
    expect(due).toEqual([{ taskId, nodeKey: 'node-1#1', delayMs: 0 }]);
    await tasks.markTimersQueued(op, [taskId]);
    expect((await tasks.dueTimers(op, 60_000, 1000)).filter((t) => t.taskId === taskId)).toEqual([]);
    await sql(`update approval_tasks set timeout_at = null where id = ?`, [taskId]);
  });
});

describe('recordEvents: many events in one statement', () => {
  const actor: SystemActor = { kind: 'system', teamId: 0, job: 'test' };
  const event = (orderingKey: string, note: string): ScopedEvent => ({
    teamId: world.team.teamId,
    actor: { ...actor, teamId: world.team.teamId },
    eventType: 'APPROVAL',
    audience: { kind: 'approval' },
    orderingKey,
    fields: { payload: { note } },
  });
  const deliveries = (key: string) =>
    sql<{ sequence: number; body_sequence: number | null; ready: boolean }>(
      `select sequence::int, body_sequence::int, ready from webhook_deliveries where ordering_key = ? order by id`,
      [key],
    );
  const line = async (key: string) =>
    (
      await sql<{ last_sequence: number; unfinished: number }>(`select last_sequence::int, unfinished from webhook_delivery_lines where ordering_key = ?`, [
        key,
      ])
    )[0];

  it('writes the rows recordEvent writes one event at a time: consecutive places per line, one head, body sequences after a replay', async () => {
    const [one, two, three] = [`test:${randomUUID()}`, `test:${randomUUID()}`, `test:${randomUUID()}`];
    const scope = { em: world.env.orm.em.fork(), teamId: world.team.teamId, actor: { ...actor, teamId: world.team.teamId } };
    // one event at a time on `one`; the same events in one statement on `two` (`three` interleaved)
    await inTransaction(scope, async (tx) => {
      for (const note of ['a', 'b', 'c']) await recordEvent(tx, event(one, note));
      await recordEvents(tx, [event(two, 'a'), event(three, 'x'), event(two, 'b'), event(two, 'c')]);
    });
    expect(await deliveries(two)).toEqual(await deliveries(one));
    expect(await deliveries(two)).toEqual([
      { sequence: 1, body_sequence: null, ready: true },
      { sequence: 2, body_sequence: null, ready: false },
      { sequence: 3, body_sequence: null, ready: false },
    ]);
    expect(await line(two)).toEqual(await line(one));
    expect(await deliveries(three)).toEqual([{ sequence: 1, body_sequence: null, ready: true }]);
    // after a replay took a place in each line, a new event's body sequence leaves that place out
    await sql(`update webhook_delivery_lines set replayed = 1, last_sequence = last_sequence + 1, unfinished = unfinished + 1 where ordering_key in (?, ?)`, [
      one,
      two,
    ]);
    await inTransaction(scope, async (tx) => {
      await recordEvent(tx, event(one, 'd'));
      await recordEvents(tx, [event(two, 'd')]);
    });
    expect(await deliveries(two)).toEqual(await deliveries(one));
    expect((await deliveries(two)).at(-1)).toEqual({ sequence: 5, body_sequence: 4, ready: false });
  });

  it('keeps each body as built, quotes and backslashes included, in input order; an event nobody subscribes to writes nothing', async () => {
    const key = `test:${randomUUID()}`;
    const note = `"quoted" back\\slash 'single' {braces} ünïcödé`;
    const unheard: ScopedEvent = { ...event(`test:${randomUUID()}`, 'x'), audience: { kind: 'folder', folderId: 987654 }, eventType: 'FOLDER_CONTENT_UPDATE' };
    const ids = await inTransaction({ em: world.env.orm.em.fork() }, (tx) => recordEvents(tx, [event(key, note), unheard, event(key, 'second')]));
    expect(ids[1]).toBeNull();
    const rows = await sql<{ event_id: string; body: Record<string, any>; actor: string }>(
      `select event_id::text, body, actor from outbox_events where ordering_key = ? order by id`,
      [key],
    );
    expect(rows.map((r) => r.event_id)).toEqual([ids[0], ids[2]]);
    expect(rows[0]!.body).toMatchObject({
      eventId: ids[0],
      eventType: 'APPROVAL',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'system', job: 'test' },
      payload: { note },
    });
    expect(rows[0]!.actor).toBe('system:test');
    expect(await sql(`select 1 from outbox_events where ordering_key = ?`, [unheard.orderingKey])).toEqual([]);
  });
});
