import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';

let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
let templateId: string;
let disabledId: string;
let otherTemplateId: string;
let otherKey: string;

beforeAll(async () => {
  storage = await tempDir('approval-storage');
  world = await createApprovalWorld({ STORAGE_DIR: storage.path });
  const { ann, bob, cat } = world.members;
  const scope = { em: world.env.orm.em.fork(), teamId: world.team.teamId };
  templateId = (
    await world.env.core.approvals.templates.create(scope, {
      name: 'Brand review',
      description: 'two steps',
      workflow: {
        nodes: [
          { name: 'Design', signMode: 'and', approvers: [String(ann), bob] },
          { name: 'Legal', signMode: 'or', approvers: [cat] },
        ],
      },
    })
  ).id;
  disabledId = (
    await world.env.core.approvals.templates.create(scope, {
      name: 'Off',
      enabled: false,
      workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [ann] }] },
    })
  ).id;
  const other = await given(world.env).team('Other');
  const stranger = (await given(world.env).member(other, 'Zed')).userId;
  otherTemplateId = (
    await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: other.teamId },
      { name: 'Theirs', workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [stranger] }] } },
    )
  ).id;
  otherKey = (await given(world.env).key(other, 'manage')).key;
});
afterAll(async () => {
  await world.close();
  await storage.remove();
});

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);
/** Every file in storage: the objects, and any download not placed under its key (none may stay). */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(storage.path, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(storage.path.length + 1))
    .sort();
}
/** Tasks, reviewed assets, usage counts and stored files: what a refused request must leave as it was. */
async function snapshot(): Promise<string> {
  const [row] = await db<{ s: string }>(
    `select (select count(*) from approval_tasks) || '/' || (select count(*) from approval_assets) || '/' || (select string_agg(usage_count::text, ',' order by id) from approval_templates) as s`,
  );
  return `${row!.s}/${(await storedFiles()).join(',')}`;
}
const create = (assets: unknown[], extra: Record<string, unknown> = {}) =>
  world.approval({ service: 'createApproval', templateId, createdBy: String(world.members.ann), assets, ...extra });

describe('POST /approval (spec 4.8)', () => {
  it("lists the team's templates with their workflow, usageCount and settings", async () => {
    const res = await world.approval({ service: 'listTemplates' });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe('0');
    expect(res.body.result.map((t: { id: string }) => t.id).sort()).toEqual([templateId, disabledId].sort());
    expect(res.body.result.find((t: { id: string }) => t.id === templateId)).toMatchObject({
      name: 'Brand review',
      description: 'two steps',
      enabled: true,
      usageCount: 0,
      autoImportEnabled: false,
      targetFolder: '',
      workflow: {
        nodes: [
          { nodeId: 'node-1', name: 'Design', signMode: 'and', approvers: [world.members.ann, world.members.bob], copyTo: [], timeout: null },
          { nodeId: 'node-2', signMode: 'or' },
        ],
      },
    });
  });

  it('creates a task from a public asset URL: records the sha256, counts the use, starts the first node', async () => {
    const res = await create([{ name: 'logo.png', url: `${world.assets.url}/bytes/logo` }], { reason: 'launch', sourceContext: { sku: 'A-1' } });
    expect(res.status).toBe(200);
    const { taskId } = res.body.result;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const [asset] = await db<{ sha256: string; name: string; version: number }>('select sha256, name, version from approval_assets where task_id = ?', [
      taskId,
    ]);
    expect(asset).toMatchObject({ name: 'logo.png', version: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const status = await world.approval({ service: 'taskStatusQuery', taskId });
    expect(status.body.result).toEqual({
      taskId,
      status: 'PENDING',
      statusLabel: expect.any(String),
      progressPercent: 0,
      currentNodeName: 'Design',
      currentNodeSignMode: 'and',
      currentNodeProgress: { approved: 0, rejected: 0, pending: 2 },
      currentNodeApprovers: [
        { id: String(world.members.ann), name: 'ann', state: 'pending' },
        { id: String(world.members.bob), name: 'bob', state: 'pending' },
      ],
      operator: null,
      updatedAt: expect.any(String),
      round: 1,
      currentNodeId: 'node-1',
      currentNodeRole: 'normal',
    });
    const listed = (await world.approval({ service: 'listTemplates' })).body.result.find((t: { id: string }) => t.id === templateId);
    expect(listed.usageCount).toBe(1);
  });

  it.each([
    ['a body that is not JSON', { rawBody: '{nope', headers: { 'content-type': 'application/json' } }, 400, 'invalid_payload:invalid_json'],
    ['no service', { body: { templateId: 'x' } }, 400, 'invalid_payload:unknown_service'],
    ['an unknown service', { body: { service: 'deleteEverything' } }, 400, 'invalid_payload:unknown_service'],
    ['createApproval without templateId', { body: { service: 'createApproval', createdBy: '1', assets: [] } }, 400, 'invalid_payload:invalid_parameter'],
    ['taskStatusQuery without taskId', { body: { service: 'taskStatusQuery' } }, 400, 'invalid_payload:missing_task_id'],
    ['an unknown task', { body: { service: 'taskStatusQuery', taskId: '00000000-0000-4000-8000-000000000000' } }, 404, 'task_not_found'],
    ['a task id that is no uuid', { body: { service: 'taskStatusQuery', taskId: 'abc' } }, 404, 'task_not_found'],
  ])('answers %s with %i %s', async (_what, sent, status, code) => {
    const res = await send(world.env, { method: 'POST', url: '/approval', key: world.key.key, ...sent });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code, result: null, traceId: expect.any(String) });
  });

  it('refuses a request without a key with 401', async () => {
    const res = await send(world.env, { method: 'POST', url: '/approval', body: { service: 'listTemplates' } });
    expect(res).toMatchObject({ status: 401, body: { code: 'invalid_credentials' } });
  });

  it.each([
    ['no assets', 'invalid_payload:assets_empty', () => create([])],
    ['an empty url', 'invalid_payload:asset_url_empty', () => create([{ url: '' }])],
    [
      'the same url twice',
      'invalid_payload:asset_url_duplicate',
      () => create([{ url: `${world.assets.url}/bytes/a` }, { url: `${world.assets.url}/bytes/a` }]),
    ],
    ['a non-http url', 'invalid_payload:asset_url_invalid', () => create([{ url: 'ftp://example.com/a.png' }])],
    ['a private address', 'invalid_payload:asset_url_not_public', () => create([{ url: 'http://10.0.0.5/a.png' }])],
    ['the metadata address', 'invalid_payload:asset_url_not_public', () => create([{ url: 'http://169.254.169.254/latest' }])],
    ['loopback not in the allowlist', 'invalid_payload:asset_url_not_public', () => create([{ url: 'http://127.0.0.1:9/a.png' }])],
    [
      'the asset server through IPv4-compatible IPv6 ::127.0.0.1',
      'invalid_payload:asset_url_not_public',
      () => create([{ url: `http://[::127.0.0.1]:${new URL(world.assets.url).port}/bytes/d` }]),
    ],
    [
      'the asset server through 6to4 over loopback',
      'invalid_payload:asset_url_not_public',
      () => create([{ url: `http://[2002:7f00:1::1]:${new URL(world.assets.url).port}/bytes/e` }]),
    ],
    [
      'a createdBy who is no member of the team',
      'invalid_payload:not_a_team_member',
      () => create([{ url: `${world.assets.url}/bytes/b` }], { createdBy: '999999' }),
    ],
    [
      'a disabled template',
      'invalid_payload:template_disabled',
      () =>
        world.approval({
          service: 'createApproval',
          templateId: disabledId,
          createdBy: String(world.members.ann),
          assets: [{ url: `${world.assets.url}/bytes/c` }],
        }),
    ],
    ['an oversize asset (Content-Length)', 'invalid_payload:asset_too_large', () => create([{ url: `${world.assets.url}/big-declared` }])],
    ['an oversize asset without Content-Length', 'invalid_payload:asset_too_large', () => create([{ url: `${world.assets.url}/big-chunked` }])],
    ['a server that trickles past the timeout', 'invalid_payload:asset_download_timeout', () => create([{ url: `${world.assets.url}/trickle` }])],
    ['a server that never answers', 'invalid_payload:asset_download_timeout', () => create([{ url: `${world.assets.url}/silent` }])],
    ['a redirect to a private address', 'invalid_payload:asset_download_failed', () => create([{ url: `${world.assets.url}/to-private` }])],
    [
      'a second asset that fails after a first that downloaded',
      'invalid_payload:asset_too_large',
      () => create([{ url: `${world.assets.url}/bytes/ok-first` }, { url: `${world.assets.url}/big-declared` }]),
    ],
  ])('refuses %s with 400 %s and creates nothing (no task, no bytes, usageCount unchanged)', async (_what, code, request) => {
    const before = await snapshot();
    const res = await request();
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, result: null });
    expect(await snapshot()).toBe(before);
  });

  it('refuses a download that breaks midway with 400 asset_download_failed and keeps none of its bytes', async () => {
    const before = await storedFiles();
    const res = await create([{ url: `${world.assets.url}/cut` }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_payload:asset_download_failed', result: null });
    expect(world.assets.requestsFor('/cut')).toBe(1);
    // the download was received into storage (its directory exists) and dropped from it
    expect(await readdir(join(storage.path, 'incoming'))).toEqual([]);
    expect(await storedFiles()).toEqual(before);
  });

  it('stores the bytes of a task where they were downloaded: one object under their sha256, no other file', async () => {
    const before = await storedFiles();
    const res = await create([{ url: `${world.assets.url}/bytes/placed-once` }]);
    expect(res.status).toBe(200);
    const [asset] = await db<{ sha256: string; storage_key: string }>('select sha256, storage_key from approval_assets where task_id = ?', [
      res.body.result.taskId,
    ]);
    expect(asset!.storage_key).toBe(`objects/${asset!.sha256.slice(0, 2)}/${asset!.sha256}`);
    expect(await storedFiles()).toEqual([...before, asset!.storage_key].sort());
  });

  it("answers another team's template as template_not_found and creates nothing", async () => {
    const before = await snapshot();
    const res = await world.approval({
      service: 'createApproval',
      templateId: otherTemplateId,
      createdBy: String(world.members.ann),
      assets: [{ url: `${world.assets.url}/bytes/x` }],
    });
    expect(res).toMatchObject({ status: 404, body: { code: 'template_not_found' } });
    expect(await snapshot()).toBe(before);
  });

  it("answers another team's task as task_not_found", async () => {
    const { taskId } = (await create([{ url: `${world.assets.url}/bytes/mine` }])).body.result;
    const res = await send(world.env, { method: 'POST', url: '/approval', key: otherKey, body: { service: 'taskStatusQuery', taskId } });
    expect(res).toMatchObject({ status: 404, body: { code: 'task_not_found' } });
  });

  it("subscribes, shows and removes the key's approval callbacks (subscriptionChange, subscriptionQuery)", async () => {
    expect((await world.approval({ service: 'subscriptionQuery' })).body.result).toEqual({
      subscribed: false,
      callbackUrl: null,
      state: null,
      disabledReason: null,
      createdAt: null,
    });
    const added = await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` });
    expect(added.body.result).toMatchObject({ subscribed: true, callbackUrl: `${world.receiver.url}/approvals`, state: 'active' });
    expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD' })).body.code).toBe('invalid_payload:missing_callback_url');
    expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: 'http://192.168.0.1/x' })).body.code).toBe(
      'invalid_payload:callback_url_not_allowed',
    );
    const removed = await world.approval({ service: 'subscriptionChange', operation: 'DELETE' });
    expect(removed.body.result.subscribed).toBe(false);
  });
});
