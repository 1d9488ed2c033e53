import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { tempDir } from '../support/media-files.ts';

let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
let files: Awaited<ReturnType<typeof tempDir>>;
let templateId: string;
let m: ApprovalWorld['members'];

beforeAll(async () => {
  storage = await tempDir('engine-storage');
  files = await tempDir('engine-files');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path });
  m = world.members;
  // callbacks are written only for teams that subscribe
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
  templateId = (
    await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: world.team.teamId },
      {
        name: 'Two steps',
        workflow: {
          nodes: [
            { name: 'First look', signMode: 'or', approvers: [m.cat, m.dan] },
            { name: 'Sign-off', signMode: 'and', approvers: [m.ann, m.bob], copyTo: [m.dan] },
          ],
        },
      },
    )
  ).id;
});
afterAll(async () => {
  await world.close();
  await storage.remove();
  await files.remove();
});

async function newTask(): Promise<string> {
  const res = await world.approval({
    service: 'createApproval',
    templateId,
    createdBy: String(m.sub),
    assets: [{ name: 'a.png', url: `${world.assets.url}/bytes/${Math.random()}` }],
  });
  expect(res.body.code).toBe('0');
  return res.body.result.taskId;
}
const decide = async (member: number, taskId: string, decision: string, comment?: string) =>
  world.env.core.approvals.actions.decide(await world.as(member), { taskId, decision, comment });
const names = async (taskId: string) => (await world.callbacks(taskId)).map((c) => c.eventName);
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: { code: string; reason?: string }) => ({ code: e.code, reason: e.reason }),
  );

describe('the node engine: normal pass (spec 6.3)', () => {
  it('runs or then and to TASK_APPROVED with the exact callback order', async () => {
    const taskId = await newTask();
    await decide(m.cat, taskId, 'approved', 'looks good');
    await decide(m.ann, taskId, 'approved');
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result).toMatchObject({
      status: 'PROCESSING',
      currentNodeName: 'Sign-off',
      currentNodeProgress: { approved: 1, rejected: 0, pending: 1 },
      progressPercent: 50,
    });
    const result = await decide(m.bob, taskId, 'approved');
    expect(result).toEqual({ taskId, status: 'APPROVED' });
    expect(await names(taskId)).toEqual([
      'NODE_STARTED',
      'APPROVER_SUBMITTED',
      'NODE_COMPLETED',
      'NODE_TRANSFERRED',
      'NODE_STARTED',
      'APPROVER_SUBMITTED',
      'APPROVER_SUBMITTED',
      'NODE_COMPLETED',
      'TASK_APPROVED',
    ]);
    const callbacks = await world.callbacks(taskId);
    expect(callbacks[0]).toEqual({
      eventName: 'NODE_STARTED',
      orgId: world.team.teamId,
      taskId,
      taskStatus: 'PROCESSING',
      round: 1,
      node: { nodeId: 'node-1', nodeOrder: 1, nodeRole: 'normal', nodeStatus: 'processing', signMode: 'or', approverCount: 2, startedAt: expect.any(String) },
    });
    expect(callbacks[1]).toMatchObject({
      eventName: 'APPROVER_SUBMITTED',
      node: { nodeId: 'node-1', nodeOrder: 1, nodeStatus: 'processing', signMode: 'or' },
      approver: { id: String(m.cat), name: 'cat', decision: 'approved', comment: 'looks good', submittedAt: expect.any(String) },
      approverCount: 2,
    });
    expect(callbacks[2]).toMatchObject({
      eventName: 'NODE_COMPLETED',
      node: { nodeId: 'node-1', nodeStatus: 'approved', approvers: [{ id: String(m.cat), name: 'cat', status: 'approved' }], completedAt: expect.any(String) },
    });
    expect(callbacks[3]).toMatchObject({
      eventName: 'NODE_TRANSFERRED',
      transferReason: 'NEXT_NODE',
      fromNode: { nodeId: 'node-1', nodeOrder: 1, nodeStatus: 'approved' },
      node: { nodeId: 'node-2', nodeOrder: 2, signMode: 'and', approverCount: 2 },
    });
    expect(callbacks[8]).toEqual({
      eventName: 'TASK_APPROVED',
      orgId: world.team.teamId,
      taskId,
      taskStatus: 'APPROVED',
      round: 1,
      operator: { id: String(m.bob), name: 'bob' },
      finishedAt: expect.any(String),
    });
  });

  it("lets the first decision decide an or node, and refuses the node's other approver afterwards with no callback", async () => {
    const taskId = await newTask();
    await decide(m.dan, taskId, 'approved');
    const before = await names(taskId);
    expect(await refusal(decide(m.cat, taskId, 'approved'))).toEqual({ code: 'forbidden', reason: 'not_a_pending_approver' });
    expect(await names(taskId)).toEqual(before);
  });

  it('refuses a non-approver, an approver of a later node and the submitter, changing and sending nothing', async () => {
    const taskId = await newTask();
    const before = await names(taskId);
    expect(await refusal(decide(m.ann, taskId, 'approved'))).toEqual({ code: 'forbidden', reason: 'not_a_pending_approver' });
    expect(await refusal(decide(m.sub, taskId, 'rejected'))).toEqual({ code: 'forbidden', reason: 'not_a_pending_approver' });
    expect(await refusal(decide(m.cat, taskId, 'maybe'))).toEqual({ code: 'validation_failed', reason: 'invalid_decision' });
    expect(await names(taskId)).toEqual(before);
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result.status).toBe('PENDING');
  });

  it('refuses a decision by a key (not a member) with forbidden member_required', async () => {
    const taskId = await newTask();
    const keyCtx = world.env.core.ctxFor(await world.env.core.access.authenticate(world.env.core.operatorCtx(), `Bearer ${world.key.key}`), 't');
    expect(await refusal(world.env.core.approvals.engine.decide(keyCtx, { taskId, decision: 'approved' }))).toEqual({
      code: 'forbidden',
      reason: 'member_required',
    });
  });
});

describe('the node engine: rejection and resubmission (spec 6.3)', () => {
  it('rejects an and node even after an approval, then resubmits new bytes to a re-review, over two rounds', async () => {
    const taskId = await newTask();
    await decide(m.cat, taskId, 'approved');
    await decide(m.ann, taskId, 'approved');
    await decide(m.bob, taskId, 'rejected', 'wrong colour');
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result).toMatchObject({
      status: 'REJECTED',
      round: 2,
      currentNodeRole: 'resubmit_submitter',
      currentNodeId: 'node-2-resubmit-2',
    });
    const rejectedAt = (await names(taskId)).length;
    const afterReject = (await world.callbacks(taskId)).slice(-4);
    expect(afterReject.map((c) => c.eventName)).toEqual(['APPROVER_SUBMITTED', 'NODE_COMPLETED', 'NODE_TRANSFERRED', 'NODE_STARTED']);
    expect(afterReject[1]).toMatchObject({
      node: {
        nodeId: 'node-2',
        nodeStatus: 'rejected',
        approvers: [
          { id: String(m.ann), status: 'approved' },
          { id: String(m.bob), status: 'rejected' },
        ],
      },
    });
    expect(afterReject[2]).toMatchObject({ transferReason: 'RESUBMIT_SUBMITTER', fromNode: { nodeId: 'node-2', nodeStatus: 'rejected' }, round: 2 });
    expect(afterReject[3]).toMatchObject({ node: { nodeId: 'node-2-resubmit-2', nodeRole: 'resubmit_submitter', approverCount: 1 } });

    // approvers cannot decide at the resubmit step; only the submitter resubmits
    expect(await refusal(decide(m.ann, taskId, 'approved'))).toEqual({ code: 'forbidden', reason: 'not_a_pending_approver' });
    const file = join(files.path, 'v2.png');
    await writeFile(file, 'new bytes v2');
    expect(await refusal(world.env.core.approvals.actions.resubmit(await world.as(m.ann), { taskId, files: [file] }))).toEqual({
      code: 'forbidden',
      reason: 'not_the_resubmitter',
    });
    await world.env.core.approvals.actions.resubmit(await world.as(m.sub), { taskId, files: [file], comment: 'fixed' });
    const resubmitted = (await world.callbacks(taskId)).slice(rejectedAt);
    expect(resubmitted.map((c) => c.eventName)).toEqual(['SUBMITTER_RESUBMITTED', 'NODE_COMPLETED', 'NODE_TRANSFERRED', 'NODE_STARTED']);
    expect(resubmitted[0]).toMatchObject({
      submitter: { id: String(m.sub), name: 'sub', comment: 'fixed' },
      latestAssetCount: 1,
      latestAssets: [
        { version: 2, oldStorePath: expect.stringMatching(/^objects\//), newStorePath: expect.stringMatching(/^objects\//), updatedAt: expect.any(String) },
      ],
    });
    expect(resubmitted[0]!.latestAssets[0].oldStorePath).not.toBe(resubmitted[0]!.latestAssets[0].newStorePath);
    expect(resubmitted[2]).toMatchObject({ transferReason: 'RESUBMIT_APPROVER', fromNode: { nodeId: 'node-2-resubmit-2' } });
    expect(resubmitted[3]).toMatchObject({ node: { nodeId: 'node-2-rereview-2', nodeRole: 'resubmit_approver', signMode: 'and', approverCount: 2 }, round: 2 });

    // a second rejection opens round 3
    await decide(m.ann, taskId, 'rejected');
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result).toMatchObject({
      status: 'REJECTED',
      round: 3,
      currentNodeId: 'node-2-resubmit-3',
    });
    await writeFile(file, 'new bytes v3');
    await world.env.core.approvals.actions.resubmit(await world.as(m.sub), { taskId, files: [file] });
    await decide(m.ann, taskId, 'approved');
    await decide(m.bob, taskId, 'approved');
    const last = await world.callbacks(taskId);
    expect(last.at(-1)).toMatchObject({ eventName: 'TASK_APPROVED', round: 3 });
    const versions = await world.env.orm.em
      .fork()
      .execute<{ version: number }[]>('select version from approval_assets where task_id = ? order by version', [taskId]);
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
  });

  it('refuses any decision on a finished task, and a cancel by anyone but the submitter', async () => {
    const taskId = await newTask();
    expect(await refusal(world.env.core.approvals.actions.cancel(await world.as(m.cat), taskId))).toEqual({ code: 'forbidden', reason: 'not_the_submitter' });
    expect(await world.env.core.approvals.actions.cancel(await world.as(m.sub), taskId)).toEqual({ taskId, status: 'CANCELED' });
    const before = await names(taskId);
    expect(await refusal(decide(m.cat, taskId, 'approved'))).toEqual({ code: 'forbidden', reason: 'task_finished' });
    expect(await names(taskId)).toEqual(before);
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result).toMatchObject({ status: 'CANCELED', currentNodeName: null });
  });
});
