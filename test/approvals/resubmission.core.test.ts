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
  storage = await tempDir('resubmission-storage');
  files = await tempDir('resubmission-files');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path });
  m = world.members;
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
  templateId = (
    await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: world.team.teamId },
      {
        name: 'One step',
        workflow: { nodes: [{ name: 'Review', signMode: 'or', approvers: [m.ann] }] },
      },
    )
  ).id;
});
afterAll(async () => {
  await world.close();
  await storage.remove();
  await files.remove();
});

/** A two-asset task, rejected: it waits at the resubmit step. */
async function rejectedTwoAssetTask(template = templateId): Promise<string> {
  const res = await world.approval({
    service: 'createApproval',
    templateId: template,
    createdBy: String(m.sub),
    assets: [
      { name: 'front.png', url: `${world.assets.url}/bytes/front-${Math.random()}` },
      { name: 'back.png', url: `${world.assets.url}/bytes/back-${Math.random()}` },
    ],
  });
  expect(res.body.code).toBe('0');
  const taskId = res.body.result.taskId as string;
  await world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId, decision: 'rejected' });
  return taskId;
}

async function versions(taskId: string): Promise<{ position: number; version: number; name: string }[]> {
  return world.env.orm.em.fork().execute('select position, version, name from approval_assets where task_id = ? order by position, version', [taskId]);
}

async function localFile(name: string): Promise<string> {
  const path = join(files.path, name);
  await writeFile(path, `bytes of ${name} ${Math.random()}`);
  return path;
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: { code: string; reason?: string; details?: { field: string }[] }) => ({ code: e.code, reason: e.reason, field: e.details?.[0]?.field }),
  );

describe('resubmission: all assets in order, or the named positions', () => {
  it('refuses one unnamed file for a two-asset task with resubmit_count_mismatch, changing and sending nothing', async () => {
    const taskId = await rejectedTwoAssetTask();
    const before = { versions: await versions(taskId), callbacks: await world.callbacks(taskId) };
    const file = await localFile('only.png');
    expect(await refusal(world.env.core.approvals.tasks.resubmitFiles(await world.as(m.sub), { taskId, files: [file] }))).toEqual({
      code: 'validation_failed',
      reason: 'resubmit_count_mismatch',
      field: 'assets',
    });
    expect(await versions(taskId)).toEqual(before.versions);
    expect(await world.callbacks(taskId)).toEqual(before.callbacks);
    expect((await world.approval({ service: 'taskStatusQuery', taskId })).body.result.status).toBe('REJECTED');
  });

  it('refuses an ambiguous resubmission over GraphQL-style URLs before downloading anything', async () => {
    const taskId = await rejectedTwoAssetTask();
    const requestsBefore = world.assets.requests;
    const ctx = await world.as(m.sub);
    const url = (n: string) => `${world.assets.url}/bytes/${n}-${Math.random()}`;
    expect(await refusal(world.env.core.approvals.tasks.resubmitUrls(ctx, { taskId, assets: [{ url: url('a') }] }))).toMatchObject({
      reason: 'resubmit_count_mismatch',
    });
    expect(await refusal(world.env.core.approvals.tasks.resubmitUrls(ctx, { taskId, assets: [{ url: url('a'), position: 1 }, { url: url('b') }] }))).toEqual({
      code: 'validation_failed',
      reason: 'resubmit_positions_mixed',
      field: 'assets[1].position',
    });
    expect(
      await refusal(
        world.env.core.approvals.tasks.resubmitUrls(ctx, {
          taskId,
          assets: [
            { url: url('a'), position: 1 },
            { url: url('b'), position: 1 },
          ],
        }),
      ),
    ).toEqual({ code: 'validation_failed', reason: 'resubmit_position_duplicate', field: 'assets[1].position' });
    expect(await refusal(world.env.core.approvals.tasks.resubmitUrls(ctx, { taskId, assets: [{ url: url('a'), position: 2 }] }))).toEqual({
      code: 'validation_failed',
      reason: 'resubmit_position_out_of_range',
      field: 'assets[0].position',
    });
    expect(await refusal(world.env.core.approvals.tasks.resubmitUrls(ctx, { taskId, assets: [{ url: url('a'), position: -1 }] }))).toMatchObject({
      reason: 'resubmit_position_out_of_range',
    });
    expect(world.assets.requests).toBe(requestsBefore);
    expect((await versions(taskId)).every((v) => v.version === 1)).toBe(true);
  });

  it('replaces only the named position; the other asset keeps its version and latestAssets lists the replaced one', async () => {
    const taskId = await rejectedTwoAssetTask();
    const file = await localFile('back-v2.png');
    await world.env.core.approvals.tasks.resubmitFiles(await world.as(m.sub), { taskId, files: [file], positions: [1] });
    expect(await versions(taskId)).toEqual([
      { position: 0, version: 1, name: 'front.png' },
      { position: 1, version: 1, name: 'back.png' },
      { position: 1, version: 2, name: 'back-v2.png' },
    ]);
    const resubmitted = (await world.callbacks(taskId)).find((c) => c.eventName === 'SUBMITTER_RESUBMITTED')!;
    expect(resubmitted.latestAssetCount).toBe(1);
    expect(resubmitted.latestAssets).toEqual([expect.objectContaining({ version: 2 })]);
  });

  it("takes every asset in the task's order when none is named", async () => {
    const taskId = await rejectedTwoAssetTask();
    const front = await localFile('front-v2.png');
    const back = await localFile('back-v2.png');
    expect(await world.env.core.approvals.tasks.resubmitFiles(await world.as(m.sub), { taskId, files: [front, back] })).toEqual({
      taskId,
      status: 'PROCESSING',
    });
    expect((await versions(taskId)).filter((v) => v.version === 2)).toEqual([
      { position: 0, version: 2, name: 'front-v2.png' },
      { position: 1, version: 2, name: 'back-v2.png' },
    ]);
  });

  it('refuses as many positions as there are not files with resubmit_positions_mixed naming the flag', async () => {
    const taskId = await rejectedTwoAssetTask();
    const file = await localFile('x.png');
    expect(await refusal(world.env.core.approvals.tasks.resubmitFiles(await world.as(m.sub), { taskId, files: [file], positions: [0, 1] }))).toEqual({
      code: 'validation_failed',
      reason: 'resubmit_positions_mixed',
      field: 'position',
    });
  });
});

describe('auto-import of approved assets', () => {
  it("gives the imported files to the task's submitter, not to the approver who finished the task", async () => {
    const autoImport = (
      await world.env.core.approvals.templates.create(
        { em: world.env.orm.em.fork(), teamId: world.team.teamId },
        {
          name: 'Auto import',
          autoImportEnabled: true,
          targetFolder: '/approved',
          workflow: { nodes: [{ name: 'Review', signMode: 'or', approvers: [m.ann] }] },
        },
      )
    ).id;
    const res = await world.approval({
      service: 'createApproval',
      templateId: autoImport,
      createdBy: String(m.sub),
      assets: [{ name: `approved-${Math.random()}.png`, url: `${world.assets.url}/bytes/approved-${Math.random()}` }],
    });
    const taskId = res.body.result.taskId as string;
    await world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId, decision: 'approved' });
    const imported = await world.env.orm.em.fork().execute<{ owner_id: number; create_user_id: number }[]>(
      `select f.owner_id, f.create_user_id from library_files f join library_folders d on d.id = f.folder_id
        where f.team_id = ? and d.name = 'approved' and f.deleted_at is null`,
      [world.team.teamId],
    );
    expect(imported).toEqual([{ owner_id: m.sub, create_user_id: m.sub }]);
  });
});
