import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
let files: Awaited<ReturnType<typeof tempDir>>;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  storage = await tempDir('approval-gql-storage');
  files = await tempDir('approval-gql-files');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path });
  cliEnv = {
    DATABASE_URL: world.env.config.databaseUrl,
    STORAGE_DIR: storage.path,
    REDIS_URL: world.env.config.redisUrl,
    QUEUE_PREFIX: world.env.config.queuePrefix,
  };
});
afterAll(async () => {
  await world.close();
  await storage.remove();
  await files.remove();
});

/** The typed workflow as a selection. */
const WORKFLOW = 'workflow { nodes { nodeId name signMode approvers copyTo timeout { hours transferTo } } }';

const asMember = (member: number, query: string, variables: Record<string, unknown>) =>
  send(world.env, { method: 'POST', url: '/graphql', key: world.key.key, headers: { 'x-shelf-member': String(member) }, body: { query, variables } });

describe('approval templates through the CLI and GraphQL', () => {
  it(
    'creates a template from the workflow file of CONTRACT.md with `approval-template create` (a process of its own)',
    async () => {
      const { ann, bob, cat } = world.members;
      const file = join(files.path, 'workflow.json');
      await writeFile(
        file,
        JSON.stringify({
          name: 'Brand review',
          description: 'two steps',
          enabled: true,
          autoImportEnabled: false,
          targetFolder: '',
          workflow: {
            nodes: [
              { name: 'Design', signMode: 'and', approvers: [String(ann), String(bob)], copyTo: [String(cat)], timeout: { hours: 24, transferTo: null } },
              { name: 'Legal', signMode: 'or', approvers: [String(cat)] },
            ],
          },
        }),
      );
      const res = await spawnCli(['approval-template', 'create', '--team', String(world.team.teamId), '--file', file], cliEnv);
      expect(res.code).toBe(0);
      expect(res.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it("refuses a workflow naming another team's member, naming the field, and stores nothing", async () => {
    const other = await given(world.env).team('Other');
    const stranger = (await given(world.env).member(other, 'Zed')).userId;
    const file = join(files.path, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'Bad',
        workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [world.members.ann], timeout: { hours: 1, transferTo: stranger } }] },
      }),
    );
    const before = (await world.approval({ service: 'listTemplates' })).body.result.length;
    const res = await runCli(['approval-template', 'create', '--team', String(world.team.teamId), '--file', file], cliEnv);
    expect(res.code).not.toBe(0);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'workflow.nodes[0].timeout.transferTo' }] });
    expect((await world.approval({ service: 'listTemplates' })).body.result.length).toBe(before);
  });

  it('creates, disables and updates a template through GraphQL with a manage key, and refuses a usable key', async () => {
    const { ann, bob } = world.members;
    const input = { name: 'GQL', workflow: { nodes: [{ name: 'Only', signMode: 'OR', approvers: [ann], timeout: { hours: 2, transferTo: bob } }] } };
    const created = await graphql(
      world.env,
      world.key.key,
      `mutation($i: ApprovalTemplateInput!) { createApprovalTemplate(input: $i) { id name enabled usageCount ${WORKFLOW} } }`,
      { i: input },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createApprovalTemplate).toMatchObject({
      name: 'GQL',
      enabled: true,
      usageCount: 0,
      workflow: { nodes: [{ nodeId: 'node-1', name: 'Only', signMode: 'OR', approvers: [ann], copyTo: [], timeout: { hours: 2, transferTo: bob } }] },
    });
    const id = created.body.data.createApprovalTemplate.id;
    const disabled = await graphql(
      world.env,
      world.key.key,
      'mutation($id: String!) { setApprovalTemplateEnabled(templateId: $id, enabled: false) { enabled } }',
      { id },
    );
    expect(disabled.body.data.setApprovalTemplateEnabled.enabled).toBe(false);
    const updated = await graphql(
      world.env,
      world.key.key,
      `mutation($id: String!) { updateApprovalTemplate(templateId: $id, input: { name: "GQL 2", workflow: { nodes: [{ name: "A", signMode: AND, approvers: [${ann}, ${bob}], copyTo: null, timeout: null }] } }) { name enabled ${WORKFLOW} } }`,
      { id },
    );
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateApprovalTemplate).toEqual({
      name: 'GQL 2',
      enabled: true,
      workflow: { nodes: [{ nodeId: 'node-1', name: 'A', signMode: 'AND', approvers: [ann, bob], copyTo: [], timeout: null }] },
    });
    const usable = await given(world.env).key(world.team, 'usable');
    const refused = await graphql(world.env, usable.key, 'mutation($i: ApprovalTemplateInput!) { createApprovalTemplate(input: $i) { id } }', { i: input });
    expect(refused.body.errors[0].extensions.code).toBe('forbidden');
  });

  it("refuses a typed template input with a wrong node field through the core's rules: validation_failed naming the path, nothing stored", async () => {
    const { ann } = world.members;
    const before = (await world.approval({ service: 'listTemplates' })).body.result.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Fine', signMode: 'OR', approvers: [ann] }, ''],
      [{ name: 'x'.repeat(65), signMode: 'OR', approvers: [ann] }, 'workflow.nodes[1].name'],
      [{ name: 'No one', signMode: 'AND', approvers: [] }, 'workflow.nodes[1].approvers'],
      [{ name: 'Late', signMode: 'OR', approvers: [ann], timeout: { hours: 0 } }, 'workflow.nodes[1].timeout.hours'],
      [{ name: 'Stranger', signMode: 'OR', approvers: [ann], copyTo: [2147483647] }, 'workflow.nodes[1].copyTo'],
    ];
    for (const [node, field] of cases.slice(1)) {
      const input = { name: 'Bad', workflow: { nodes: [cases[0]![0], node] } };
      const res = await graphql(world.env, world.key.key, 'mutation($i: ApprovalTemplateInput!) { createApprovalTemplate(input: $i) { id } }', { i: input });
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: expect.arrayContaining([expect.objectContaining({ field })]) });
    }
    expect((await world.approval({ service: 'listTemplates' })).body.result.length).toBe(before);
    const kept = await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: world.team.teamId },
      { name: 'Kept', workflow: { nodes: [{ name: 'Fine', signMode: 'or', approvers: [ann] }] } },
    );
    const update = await graphql(
      world.env,
      world.key.key,
      'mutation($id: String!, $i: ApprovalTemplateInput!) { updateApprovalTemplate(templateId: $id, input: $i) { id } }',
      { id: kept.id, i: { name: 'Changed', workflow: { nodes: [cases[0]![0], cases[2]![0]] } } },
    );
    expect(update.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'workflow.nodes[1].approvers' }] });
    expect((await world.approval({ service: 'listTemplates' })).body.result.find((tpl: { id: string }) => tpl.id === kept.id)).toMatchObject({
      name: 'Kept',
      updatedAt: kept.updatedAt,
    });
  });
});

describe('decisions through the CLI and GraphQL', () => {
  it('decides as a member with `approval decide`, resubmits with `approval resubmit`, and answers through GraphQL', async () => {
    const { ann, bob, sub } = world.members;
    const templateId = (
      await world.env.core.approvals.templates.create(
        { em: world.env.orm.em.fork(), teamId: world.team.teamId },
        { name: 'CLI', workflow: { nodes: [{ name: 'One', signMode: 'or', approvers: [ann, bob] }] } },
      )
    ).id;
    const { taskId } = (
      await world.approval({ service: 'createApproval', templateId, createdBy: String(sub), assets: [{ url: `${world.assets.url}/bytes/cli` }] })
    ).body.result;
    const rejected = await runCli(['approval', 'decide', '--task', taskId, '--user', String(ann), '--decision', 'rejected', '--comment', 'no'], cliEnv);
    expect(rejected.json).toEqual({ taskId, status: 'REJECTED' });
    const refused = await runCli(['approval', 'decide', '--task', taskId, '--user', String(bob), '--decision', 'approved'], cliEnv);
    expect(refused.code).not.toBe(0);
    expect(refused.json.error.code).toBe('forbidden');
    const file = join(files.path, 'v2.bin');
    await writeFile(file, 'second version');
    const resubmitted = await runCli(['approval', 'resubmit', '--task', taskId, '--user', String(sub), '--file', file, '--comment', 'again'], cliEnv);
    expect(resubmitted.json).toEqual({ taskId, status: 'PROCESSING' });
    const decided = await asMember(bob, 'mutation($t: String!) { decideApproval(taskId: $t, decision: APPROVED) { taskId status } }', { t: taskId });
    expect(decided.body.data.decideApproval).toEqual({ taskId, status: 'APPROVED' });
    const task = await graphql(
      world.env,
      world.key.key,
      'query($t: String!) { approvalTask(taskId: $t) { status round progressPercent operator { id name } currentNodeSignMode currentNodeRole } }',
      { t: taskId },
    );
    expect(task.body.data.approvalTask).toEqual({
      status: 'APPROVED',
      round: 2,
      progressPercent: 100,
      operator: { id: String(bob), name: 'bob' },
      currentNodeSignMode: null,
      currentNodeRole: null,
    });
  });

  it('refuses an unknown enum value, written in the document or sent as a variable, with validation_failed in extensions, and changes nothing', async () => {
    const { ann, sub } = world.members;
    const templateId = (
      await world.env.core.approvals.templates.create(
        { em: world.env.orm.em.fork(), teamId: world.team.teamId },
        { name: 'Enum', workflow: { nodes: [{ name: 'One', signMode: 'and', approvers: [ann] }] } },
      )
    ).id;
    const { taskId } = (
      await world.approval({ service: 'createApproval', templateId, createdBy: String(sub), assets: [{ url: `${world.assets.url}/bytes/enum` }] })
    ).body.result;
    const inDocument = await asMember(ann, 'mutation($t: String!) { decideApproval(taskId: $t, decision: MAYBE) { status } }', { t: taskId });
    expect(inDocument.body.data).toBeUndefined();
    expect(inDocument.body.errors[0].extensions.code).toBe('validation_failed');
    expect(inDocument.body.errors[0].message).toMatch(/ApprovalDecision/);
    // a quoted string is no enum value either: GraphQL enum values are written bare
    const quoted = await asMember(ann, 'mutation($t: String!) { decideApproval(taskId: $t, decision: "approved") { status } }', { t: taskId });
    expect(quoted.body.errors[0].extensions.code).toBe('validation_failed');
    const asVariable = await asMember(ann, 'mutation($t: String!, $d: ApprovalDecision!) { decideApproval(taskId: $t, decision: $d) { status } }', {
      t: taskId,
      d: 'approved',
    });
    expect(asVariable.body.errors[0].extensions.code).toBe('validation_failed');
    expect(asVariable.body.errors[0].message).toMatch(/ApprovalDecision/);
    const task = await graphql(
      world.env,
      world.key.key,
      'query($t: String!) { approvalTask(taskId: $t) { status currentNodeSignMode currentNodeRole currentNodeApprovers { id state } } }',
      { t: taskId },
    );
    expect(task.body.data.approvalTask).toEqual({
      status: 'PENDING',
      currentNodeSignMode: 'AND',
      currentNodeRole: 'NORMAL',
      currentNodeApprovers: [{ id: String(ann), state: 'PENDING' }],
    });
    const canceled = await asMember(sub, 'mutation($t: String!) { cancelApproval(taskId: $t) { taskId status } }', { t: taskId });
    expect(canceled.body.data.cancelApproval).toEqual({ taskId, status: 'CANCELED' });
  });

  it('rejects, resubmits from a URL and approves through GraphQL, one entry point for each action, with enum values in and out', async () => {
    const { ann, sub } = world.members;
    const templateId = (
      await world.env.core.approvals.templates.create(
        { em: world.env.orm.em.fork(), teamId: world.team.teamId },
        { name: 'Round trip', workflow: { nodes: [{ name: 'One', signMode: 'or', approvers: [ann] }] } },
      )
    ).id;
    const { taskId } = (
      await world.approval({ service: 'createApproval', templateId, createdBy: String(sub), assets: [{ url: `${world.assets.url}/bytes/round-1` }] })
    ).body.result;
    const decide = 'mutation($t: String!, $d: ApprovalDecision!) { decideApproval(taskId: $t, decision: $d) { taskId status } }';
    expect((await asMember(ann, decide, { t: taskId, d: 'REJECTED' })).body.data.decideApproval).toEqual({ taskId, status: 'REJECTED' });
    const state = async () =>
      (await graphql(world.env, world.key.key, 'query($t: String!) { approvalTask(taskId: $t) { status round currentNodeRole } }', { t: taskId })).body.data
        .approvalTask;
    expect(await state()).toEqual({ status: 'REJECTED', round: 2, currentNodeRole: 'RESUBMIT_SUBMITTER' });
    const resubmit = 'mutation($t: String!, $a: [ApprovalResubmitAssetInput!]!) { resubmitApproval(taskId: $t, assets: $a, comment: "v2") { taskId status } }';
    expect((await asMember(sub, resubmit, { t: taskId, a: [{ url: `${world.assets.url}/bytes/round-2` }] })).body.data.resubmitApproval).toEqual({
      taskId,
      status: 'PROCESSING',
    });
    expect(await state()).toEqual({ status: 'PROCESSING', round: 2, currentNodeRole: 'RESUBMIT_APPROVER' });
    expect((await asMember(ann, decide, { t: taskId, d: 'APPROVED' })).body.data.decideApproval).toEqual({ taskId, status: 'APPROVED' });
  });

  it('refuses a GraphQL decision without a named member (a key is no member)', async () => {
    const res = await graphql(
      world.env,
      world.key.key,
      'mutation { decideApproval(taskId: "00000000-0000-4000-8000-000000000000", decision: APPROVED) { status } }',
    );
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'forbidden', reason: 'member_required' });
  });
});
