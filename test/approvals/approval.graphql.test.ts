import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalWorld, type ApprovalWorld } from '../support/approval-world.ts';
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
  cliEnv = { DATABASE_URL: world.env.config.databaseUrl, STORAGE_DIR: storage.path, REDIS_URL: world.env.config.redisUrl, QUEUE_PREFIX: world.env.config.queuePrefix };
});
afterAll(async () => {
  await world.close();
  await storage.remove();
  await files.remove();
});

const asMember = (member: number, query: string, variables: Record<string, unknown>) =>
  send(world.env, { method: 'POST', url: '/graphql', key: world.key.key, headers: { 'x-shelf-member': String(member) }, body: { query, variables } });

describe('approval templates through the CLI and GraphQL', () => {
  it('creates a template from the workflow file of CONTRACT.md with `approval-template create` (a process of its own)', async () => {
    const { ann, bob, cat } = world.members;
    const file = join(files.path, 'workflow.json');
    await writeFile(file, JSON.stringify({
      name: 'Brand review', description: 'two steps', enabled: true, autoImportEnabled: false, targetFolder: '',
      workflow: { nodes: [{ name: 'Design', signMode: 'and', approvers: [String(ann), String(bob)], copyTo: [String(cat)], timeout: { hours: 24, transferTo: null } }, { name: 'Legal', signMode: 'or', approvers: [String(cat)] }] },
    }));
    const res = await spawnCli(['approval-template', 'create', '--team', String(world.team.teamId), '--file', file], cliEnv);
    expect(res.code).toBe(0);
    expect(res.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  }, SPAWNING_TEST_TIMEOUT_MS);

  it("refuses a workflow naming another team's member, naming the field, and stores nothing", async () => {
    const other = await given(world.env).team('Other');
    const stranger = (await given(world.env).member(other, 'Zed')).userId;
    const file = join(files.path, 'bad.json');
    await writeFile(file, JSON.stringify({ name: 'Bad', workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [world.members.ann], timeout: { hours: 1, transferTo: stranger } }] } }));
    const before = (await world.approval({ service: 'listTemplates' })).body.result.length;
    const res = await runCli(['approval-template', 'create', '--team', String(world.team.teamId), '--file', file], cliEnv);
    expect(res.code).not.toBe(0);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'workflow.nodes[0].timeout.transferTo' }] });
    expect((await world.approval({ service: 'listTemplates' })).body.result.length).toBe(before);
  });

  it('creates, disables and updates a template through GraphQL with a manage key, and refuses a usable key', async () => {
    const input = { name: 'GQL', workflow: { nodes: [{ name: 'Only', signMode: 'or', approvers: [world.members.ann] }] } };
    const created = await graphql(world.env, world.key.key, 'mutation($i: JSONObject!) { createApprovalTemplate(input: $i) { id name enabled usageCount workflow } }', { i: input });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createApprovalTemplate.id;
    const disabled = await graphql(world.env, world.key.key, 'mutation($id: String!) { setApprovalTemplateEnabled(templateId: $id, enabled: false) { enabled } }', { id });
    expect(disabled.body.data.setApprovalTemplateEnabled.enabled).toBe(false);
    const usable = await given(world.env).key(world.team, 'usable');
    const refused = await graphql(world.env, usable.key, 'mutation($i: JSONObject!) { createApprovalTemplate(input: $i) { id } }', { i: input });
    expect(refused.body.errors[0].extensions.code).toBe('forbidden');
  });
});

describe('decisions through the CLI and GraphQL', () => {
  it('decides as a member with `approval decide`, resubmits with `approval resubmit`, and answers through GraphQL', async () => {
    const { ann, bob, sub } = world.members;
    const templateId = (await world.env.core.approvals.templates.create({ em: world.env.orm.em.fork(), teamId: world.team.teamId }, { name: 'CLI', workflow: { nodes: [{ name: 'One', signMode: 'or', approvers: [ann, bob] }] } })).id;
    const { taskId } = (await world.approval({ service: 'createApproval', templateId, createdBy: String(sub), assets: [{ url: `${world.assets.url}/bytes/cli` }] })).body.result;
    const rejected = await runCli(['approval', 'decide', '--task', taskId, '--user', String(ann), '--decision', 'rejected', '--comment', 'no'], cliEnv);
    expect(rejected.json).toEqual({ taskId, status: 'REJECTED' });
    const refused = await runCli(['approval', 'decide', '--task', taskId, '--user', String(bob), '--decision', 'approved'], cliEnv);
    expect(refused.code).not.toBe(0);
    expect(refused.json.error.code).toBe('forbidden');
    const file = join(files.path, 'v2.bin');
    await writeFile(file, 'second version');
    const resubmitted = await runCli(['approval', 'resubmit', '--task', taskId, '--user', String(sub), '--file', file, '--comment', 'again'], cliEnv);
    expect(resubmitted.json).toEqual({ taskId, status: 'PROCESSING' });
    const decided = await asMember(bob, 'mutation($t: String!) { decideApproval(taskId: $t, decision: "approved") { taskId status } }', { t: taskId });
    expect(decided.body.data.decideApproval).toEqual({ taskId, status: 'APPROVED' });
    const task = await graphql(world.env, world.key.key, 'query($t: String!) { approvalTask(taskId: $t) { status round progressPercent operator { id name } } }', { t: taskId });
    expect(task.body.data.approvalTask).toEqual({ status: 'APPROVED', round: 2, progressPercent: 100, operator: { id: String(bob), name: 'bob' } });
  });

  it('refuses a GraphQL decision without a named member (a key is no member)', async () => {
    const res = await graphql(world.env, world.key.key, 'mutation { decideApproval(taskId: "00000000-0000-4000-8000-000000000000", decision: "approved") { status } }');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'forbidden', reason: 'member_required' });
  });
});
