import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { tempDir } from '../support/media-files.ts';
import { until } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  storage = await tempDir('timer-storage');
  // createApproval downloads the task's asset from this process's asset server; the world's 500 ms
  // limit (for the download-timeout tests) is too short here while worker processes start beside it
  world = await createApprovalWorld({ STORAGE_DIR: storage.path, RELAY_INTERVAL_MS: '50', APPROVAL_DOWNLOAD_TIMEOUT_MS: '10000' });
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
});
// two worker processes, both running before any test sets a timer
beforeAll(async () => {
  await Promise.all([workerProcess(), workerProcess()]);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await world.close();
  await storage.remove();
});

async function template(timeout: { hours: number; transferTo?: number | null }): Promise<string> {
  const { ann, bob } = world.members;
  return (
    await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: world.team.teamId },
      {
        name: `Timed ${Math.random()}`,
        workflow: {
          nodes: [
            { name: 'Quick', signMode: 'and', approvers: [ann], timeout },
            { name: 'Next', signMode: 'or', approvers: [bob] },
          ],
        },
      },
    )
  ).id;
}

async function task(templateId: string): Promise<string> {
  const res = await world.approval({
    service: 'createApproval',
    templateId,
    createdBy: String(world.members.sub),
    assets: [{ url: `${world.assets.url}/bytes/${Math.random()}` }],
  });
  expect(res.body.code).toBe('0');
  return res.body.result.taskId;
}

/**
 * Starts a worker process (ROLE=worker: the BullMQ workers and the outbox relay) and resolves once
 * it logs that they run. A fresh process needs seconds to start (Node, imports, PostgreSQL, Redis),
 * many more when CI runs three test files at once, so the tests start their clocks only after this.
 */
async function workerProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['src/main.mjs'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ROLE: 'worker',
      DATABASE_URL: world.env.config.databaseUrl,
      REDIS_URL: world.env.config.redisUrl,
      QUEUE_PREFIX: world.env.config.queuePrefix,
      OUTBOUND_ALLOW_HOSTS: world.env.config.outboundAllowHosts.join(','),
      RELAY_INTERVAL_MS: '50',
      LINK_SIGNING_SECRET: world.env.config.linkSigningSecret!,
      LOG_LEVEL: 'info',
      STORAGE_DIR: storage.path,
    },
  });
  children.push(child);
  // what it wrote last, for the error if it never gets ready; both pipes are drained for its whole life
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000));
  child.stderr!.on('data', keep);
  child.stdout!.on('data', keep);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process not ready after 100 s:\n${output}`)), 100_000);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited (${code ?? signal}) before it was ready:\n${output}`));
    };
    const onData = () => {
      if (!output.includes('shelf workers running')) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout!.off('data', onData);
      resolve();
    };
    child.once('exit', onExit);
    child.stdout!.on('data', onData);
  });
  return child;
}

/** SIGKILLs these worker processes and waits until they are gone. */
async function kill(which: ChildProcess[]): Promise<void> {
  await Promise.all(
    which.map((child) => {
      if (children.includes(child)) children.splice(children.indexOf(child), 1);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      return exited;
    }),
  );
}

/** The BullMQ states of a task's timer jobs. */
async function timerJobStates(taskId: string): Promise<string[]> {
  const queue = world.env.queues.get('approval-timeout');
  const jobs = await queue.getJobs(['active', 'wait', 'delayed', 'completed', 'failed']);
  return Promise.all(jobs.filter((job) => job?.data?.taskId === taskId).map((job) => job.getState()));
}

/**
 * Waits until no timer job of the task waits, is delayed or runs: a fired timer leaves the task no
 * deadline, so the relay queues none again, and the callbacks written by then are all it will get.
 */
async function timerJobsFinished(taskId: string): Promise<void> {
  await until(
    () => timerJobStates(taskId),
    (states) => states.every((state) => state === 'completed' || state === 'failed'),
  );
}

describe('approval timers (BullMQ delayed jobs keyed by task, node and round)', () => {
  it('fires exactly once with two worker processes: NODE_TIMEOUT then NODE_TRANSFERRED, and the transferee becomes the approver', async () => {
    // both worker processes run (second beforeAll) before the timer is set, so either can take its job
    expect(children).toHaveLength(2);
    const taskId = await task(await template({ hours: 0.0004, transferTo: world.members.dan }));
    const callbacks = await until(
      () => world.callbacks(taskId),
      (c) => c.some((x) => x.eventName === 'NODE_TRANSFERRED'),
    );
    await timerJobsFinished(taskId);
    const all = await world.callbacks(taskId);
    expect(all.map((c) => c.eventName)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
    expect(callbacks[1]).toEqual({
      eventName: 'NODE_TIMEOUT',
      orgId: world.team.teamId,
      taskId,
      taskStatus: 'TIMEOUT',
      round: 1,
      node: { nodeId: 'node-1', nodeStatus: 'timeout_transferred', timeoutHours: 0.0004 },
      timeout: { transferTo: { id: String(world.members.dan), name: 'dan' } },
    });
    expect(callbacks[2]).toMatchObject({
      taskStatus: 'PROCESSING',
      transferReason: 'TIMEOUT_TRANSFER',
      timeout: { transferTo: { id: String(world.members.dan) } },
    });
    expect(callbacks[2]).not.toHaveProperty('fromNode');
    // the transferee decides; the original approver no longer can
    await expect(world.env.core.approvals.engine.decide(await world.as(world.members.ann), { taskId, decision: 'approved' })).rejects.toMatchObject({
      reason: 'not_a_pending_approver',
    });
    await world.env.core.approvals.engine.decide(await world.as(world.members.dan), { taskId, decision: 'approved' });
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result.currentNodeName).toBe('Next');
  });

  it('survives a worker restart between scheduling and the deadline', async () => {
    // one worker process is left, running, so its relay queues the delayed job at once, well before
    // the deadline (about 7 s away)
    await kill(children.slice(1));
    const taskId = await task(await template({ hours: 0.002, transferTo: world.members.dan }));
    const queued = await until(
      async () =>
        (await world.env.orm.em.fork().execute<{ q: boolean }[]>('select timer_queued_at is not null as q from approval_tasks where id = ?', [taskId]))[0]!.q,
      (q) => q,
    );
    expect(queued).toBe(true);
    await kill(children.slice());
    // the restart falls between scheduling and the deadline: the job waits in Redis, delayed, held by
    // no one (a worker killed while running it would keep its lock until BullMQ's stalled-job check)
    expect(await timerJobStates(taskId)).toEqual(['delayed']);
    expect((await world.callbacks(taskId)).map((c) => c.eventName)).toEqual(['NODE_STARTED']);
    // the new process's start-up (tens of seconds under load) is the only long wait; once it runs, it fires the timer
    await workerProcess();
    const callbacks = await until(
      () => world.callbacks(taskId),
      (c) => c.some((x) => x.eventName === 'NODE_TRANSFERRED'),
    );
    expect(callbacks.map((c) => c.eventName)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT', 'NODE_TRANSFERRED']);
  }, 150_000);

  it('fires one NODE_TIMEOUT (re_assigned, transferTo null) without a transfer target, and the task waits', async () => {
    const taskId = await task(await template({ hours: 0.0003 }));
    await until(
      () => world.callbacks(taskId),
      (c) => c.some((x) => x.eventName === 'NODE_TIMEOUT'),
    );
    await timerJobsFinished(taskId);
    const all = await world.callbacks(taskId);
    expect(all.map((c) => c.eventName)).toEqual(['NODE_STARTED', 'NODE_TIMEOUT']);
    expect(all[1]).toMatchObject({ taskStatus: 'TIMEOUT', node: { nodeStatus: 're_assigned' }, timeout: { transferTo: null } });
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result).toMatchObject({ status: 'PENDING', currentNodeName: 'Quick' });
  });

  it('lets a decision that lands before the deadline win: the timer then does nothing', async () => {
    // a deadline far enough away that the decision lands first however busy the machine is; the
    // relay queues its delayed job at once (it looks a minute ahead), which is then run early
    const taskId = await task(await template({ hours: 0.01, transferTo: world.members.dan }));
    await until(
      () => timerJobStates(taskId),
      (states) => states.includes('delayed'),
    );
    await world.env.core.approvals.engine.decide(await world.as(world.members.ann), { taskId, decision: 'approved' });
    const [job] = (await world.env.queues.get('approval-timeout').getJobs(['delayed'])).filter((j) => j?.data?.taskId === taskId);
    await job!.promote();
    // the job has run (a finished timer job is removed) and found nothing to fire
    await until(
      () => timerJobStates(taskId),
      (states) => states.length === 0,
    );
    expect((await world.callbacks(taskId)).map((c) => c.eventName)).not.toContain('NODE_TIMEOUT');
  });

  it("delivers a task's callbacks to the subscribed URL in order, signed", async () => {
    const taskId = await task(await template({ hours: 1 }));
    await world.env.core.approvals.engine.decide(await world.as(world.members.ann), { taskId, decision: 'approved' });
    const expected = (await world.callbacks(taskId)).length;
    const received = await until(
      async () => world.receiver.received.filter((r) => r.body?.payload?.taskId === taskId),
      (r) => r.length >= expected,
    );
    expect(received.map((r) => r.body.payload.eventName)).toEqual((await world.callbacks(taskId)).map((c) => c.eventName));
    expect(received.map((r) => r.body.sequence)).toEqual(received.map((_r, i) => i + 1));
    expect(received[0]!.body).toMatchObject({ eventType: 'APPROVAL', eventTime: expect.stringMatching(/^\d{13}$/) });
    const [endpoint] = await world.env.orm.em.fork().execute<{ secret: string }[]>(`select secret from webhook_endpoints where url like '%/approvals'`);
    expect(new Webhook(endpoint!.secret).verify(received[0]!.raw, received[0]!.headers as Record<string, string>)).toEqual(received[0]!.body);
  });
});
