import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { tempDir } from '../support/media-files.ts';
import { collect, listen, openStreams, sseClient } from './live-support.ts';

/* approvalProgress: an approval task's callbacks as live updates, in the order they are sent. */

let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
let origin: string;
let templateId: string;

const PROGRESS =
  'subscription($task: String, $after: String) { approvalProgress(taskId: $task, after: $after) { position taskId eventName taskStatus round payload } }';

beforeAll(async () => {
  storage = await tempDir('live-approval-storage');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path, LIVE_RELAY_INTERVAL_MS: '20' });
  origin = await listen(world.env);
  const m = world.members;
  templateId = (
    await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: world.team.teamId },
      {
        name: 'Two steps',
        workflow: {
          nodes: [
            { name: 'First look', signMode: 'or', approvers: [m.cat] },
            { name: 'Sign-off', signMode: 'and', approvers: [m.ann, m.bob] },
          ],
        },
      },
    )
  ).id;
});
afterAll(async () => {
  await world?.close();
  await storage?.remove();
});

async function newTask(): Promise<string> {
  const res = await world.approval({
    service: 'createApproval',
    templateId,
    createdBy: String(world.members.sub),
    assets: [{ name: 'a.png', url: `${world.assets.url}/bytes/${Math.random()}` }],
  });
  expect(res.body.code).toBe('0');
  return res.body.result.taskId;
}

const decide = async (member: number, taskId: string, decision: string) =>
  world.env.core.approvals.actions.decide(await world.as(member), { taskId, decision });

describe('approvalProgress', () => {
  it("sends a task's callbacks (spec 6.3) in the order they are sent, with status and node, and only that task's", async () => {
    const teamWide = collect(sseClient(origin, world.key.key), PROGRESS);
    await expect.poll(() => openStreams(world.env)).toBe(1);
    const taskId = await newTask();
    const otherTask = await newTask();
    // a frontend that opens the task page after it was created resumes from the start of the window
    const onePage = collect(sseClient(origin, world.key.key), PROGRESS, { task: taskId, after: '0' });
    await decide(world.members.cat, taskId, 'approved');
    await decide(world.members.ann, taskId, 'approved');
    await decide(world.members.bob, taskId, 'approved');
    const expected = [
      'NODE_STARTED',
      'APPROVER_SUBMITTED',
      'NODE_COMPLETED',
      'NODE_TRANSFERRED',
      'NODE_STARTED',
      'APPROVER_SUBMITTED',
      'APPROVER_SUBMITTED',
      'NODE_COMPLETED',
      'TASK_APPROVED',
    ];
    await expect.poll(() => onePage.data('approvalProgress').map((u) => u.eventName)).toEqual(expected);
    const updates = onePage.data('approvalProgress');
    expect(updates.every((u) => u.taskId === taskId)).toBe(true);
    expect(updates.at(-1)).toMatchObject({ taskStatus: 'APPROVED', round: 1, payload: { operator: { id: String(world.members.bob) } } });
    expect(updates[0].payload.node).toMatchObject({ nodeId: 'node-1', nodeStatus: 'processing', signMode: 'or' });
    await expect
      .poll(() =>
        teamWide
          .data('approvalProgress')
          .filter((u) => u.taskId === taskId)
          .map((u) => u.eventName),
      )
      .toEqual(expected);
    expect(
      teamWide
        .data('approvalProgress')
        .filter((u) => u.taskId === otherTask)
        .map((u) => u.eventName),
    ).toEqual(['NODE_STARTED']);
    teamWide.dispose();
    onePage.dispose();
    await expect.poll(() => openStreams(world.env)).toBe(0);
  });
});
