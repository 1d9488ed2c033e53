import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createApprovalWorld, type ApprovalWorld } from '../support/approval-world.ts';
import { tempDir } from '../support/media-files.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  storage = await tempDir('timer-storage');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path, RELAY_INTERVAL_MS: '50' });
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await world.close();
  await storage.remove();
});

async function template(timeout: { hours: number; transferTo?: number | null }): Promise<string> {
  const { ann, bob } = world.members;
  return (await world.env.core.approvals.templates.create({ em: world.env.orm.em.fork(), teamId: world.team.teamId }, {
    name: `Timed ${Math.random()}`,
    workflow: { nodes: [{ name: 'Quick', signMode: 'and', approvers: [ann], timeout }, { name: 'Next', signMode: 'or', approvers: [bob] }] },
  })).id;
}

async function task(templateId: string): Promise<string> {
  const res = await world.approval({ service: 'createApproval', templateId, createdBy: String(world.members.sub), assets: [{ url: `${world.assets.url}/bytes/${Math.random()}` }] });
  expect(res.body.code).toBe('0');
  return res.body.result.taskId;
}

async function until<T>(read: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function workerProcess(): void {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      ...process.env, ROLE: 'worker', DATABASE_URL: world.env.config.databaseUrl, REDIS_URL: world.env.config.redisUrl, QUEUE_PREFIX: world.env.config.queuePrefix,
      OUTBOUND_ALLOW_HOSTS: world.env.config.outboundAllowHosts.join(','), RELAY_INTERVAL_MS: '50', LINK_SIGNING_SECRET: world.env.config.linkSigningSecret!, LOG_LEVEL: 'silent',
      STORAGE_DIR: storage.path,
    },
  });
  children.push(child);
}

describe('approval timers (BullMQ delayed jobs keyed by task, node and round)', () => {
  it('fires exactly once with two worker processes: NODE_TIMEOUT then NODE_TRANSFERRED, and the transferee becomes the approver', async () => {
    workerProcess();
    workerProcess();
    const taskId = await task(await template({ hours: 0.0004, transferTo: world.members.dan }));
    const callbacks = await until(() => world.callbacks(taskId), (c) => c.some((x) => x.eventName === 'NODE_TRANSFERRED'));
    await new Promise((r) => setTimeout(r, 1500));
    const all = await world.callbacks(taskId);
    expect(all.map((c) => c.eventName)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    expect(callbacks[1]).toEqual({
      eventName: 'NODE_TIMEOUT', orgId: world.team.teamId, taskId, taskStatus: 'TIMEOUT', round: 1,
      node: { nodeId: 'node-1', nodeStatus: 'timeout_transferred', timeoutHours: 0.0004 },
      timeout: { transferTo: { id: String(world.members.dan), name: 'dan' } },
    });
    expect(callbacks[2]).toMatchObject({ taskStatus: 'PROCESSING', transferReason: 'TIMEOUT_TRANSFER', timeout: { transferTo: { id: String(world.members.dan) } } });
    expect(callbacks[2]).not.toHaveProperty('fromNode');
    // the transferee decides; the original approver no longer can
    await expect(world.env.core.approvals.engine.decide(await world.as(world.members.ann), { taskId, decision: 'approved' })).rejects.toMatchObject({ reason: 'not_a_pending_approver' });
    await world.env.core.approvals.engine.decide(await world.as(world.members.dan), { taskId, decision: 'approved' });
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result.currentNodeName).toBe('Next');
  }, 30_000);

  it('survives a worker restart between scheduling and the deadline', async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    workerProcess();
    // the deadline (about 7 s away) must come after the kill: a worker killed while running the
    // timer's job holds its lock until BullMQ's stalled-job check (30 s) gives the job to another
    const taskId = await task(await template({ hours: 0.002, transferTo: world.members.dan }));
    // the relay queues the delayed job well before its deadline
    await until(async () => (await world.env.orm.em.fork().execute<{ q: boolean }[]>('select timer_queued_at is not null as q from approval_tasks where id = ?', [taskId]))[0]!.q, (q) => q);
    for (const child of children.splice(0)) child.kill('SIGKILL');
    workerProcess();
    // a fresh worker process starts (Node, imports, Redis, PostgreSQL) before it can fire the timer:
    // several seconds when CI runs three test files at once, so this wait is longer than the others
    const callbacks = await until(() => world.callbacks(taskId), (c) => c.some((x) => x.eventName === 'NODE_TRANSFERRED'), 30_000);
    expect(callbacks.map((c) => c.eventName)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
  }, 50_000);

  it('fires one NODE_TIMEOUT (re_assigned, transferTo null) without a transfer target, and the task waits', async () => {
    const taskId = await task(await template({ hours: 0.0003 }));
    await until(() => world.callbacks(taskId), (c) => c.some((x) => x.eventName === 'NODE_TIMEOUT'));
    await new Promise((r) => setTimeout(r, 1000));
    const all = await world.callbacks(taskId);
    expect(all.map((c) => c.eventName)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT']);
    expect(all[1]).toMatchObject({ taskStatus: 'TIMEOUT', node: { nodeStatus: 're_assigned' }, timeout: { transferTo: null } });
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result).toMatchObject({ status: 'PENDING', currentNodeName: 'Quick' });
  }, 30_000);

  it('lets a decision that lands before the deadline win: the timer then does nothing', async () => {
    const taskId = await task(await template({ hours: 0.0006, transferTo: world.members.dan }));
    await world.env.core.approvals.engine.decide(await world.as(world.members.ann), { taskId, decision: 'approved' });
    await new Promise((r) => setTimeout(r, 3500));
    expect((await world.callbacks(taskId)).map((c) => c.eventName)).not.toContain('NODE_TIMEOUT');
  }, 30_000);

  it('delivers a task\'s callbacks to the subscribed URL in order, signed', async () => {
    const taskId = await task(await template({ hours: 1 }));
    await world.env.core.approvals.engine.decide(await world.as(world.members.ann), { taskId, decision: 'approved' });
    const expected = (await world.callbacks(taskId)).length;
    const received = await until(async () => world.receiver.received.filter((r) => r.body?.payload?.taskId === taskId), (r) => r.length >= expected);
    expect(received.map((r) => r.body.payload.eventName)).toEqual((await world.callbacks(taskId)).map((c) => c.eventName));
    expect(received.map((r) => r.body.sequence)).toEqual(received.map((_r, i) => i + 1));
    expect(received[0]!.body).toMatchObject({ eventType: 'APPROVAL', eventTime: expect.stringMatching(/^\d{13}$/) });
    const [endpoint] = await world.env.orm.em.fork().execute<{ secret: string }[]>(`select secret from webhook_endpoints where url like '%/approvals'`);
    expect(new Webhook(endpoint!.secret).verify(received[0]!.raw, received[0]!.headers as Record<string, string>)).toEqual(received[0]!.body);
  }, 30_000);
});
