import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHash } from '../../src/core/platform/idempotency.ts';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { given } from '../support/given.ts';
import { type Received, send } from '../support/http.ts';
import { tempDir } from '../support/media-files.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';

let world: ApprovalWorld;
let storage: Awaited<ReturnType<typeof tempDir>>;
let templateId: string;

beforeAll(async () => {
  storage = await tempDir('approval-idem-storage');
  // a held download must outlast the test's looks at the waiting requests
  world = await createApprovalWorld({ STORAGE_DIR: storage.path, APPROVAL_DOWNLOAD_TIMEOUT_MS: '30000' });
  const scope = { em: world.env.orm.em.fork(), teamId: world.team.teamId };
  templateId = (
    await world.env.core.approvals.templates.create(scope, {
      name: 'Idem review',
      workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [world.members.ann] }] },
    })
  ).id;
});
afterAll(async () => {
  await world.close();
  await storage.remove();
});

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);
/** Tasks, reviewed assets, usage counts and stored objects: what a refused request must leave as it was. */
async function snapshot(): Promise<string> {
  const [row] = await db<{ s: string }>(
    `select (select count(*) from approval_tasks) || '/' || (select count(*) from approval_assets) || '/' || (select string_agg(usage_count::text, ',' order by id) from approval_templates) as s`,
  );
  const files = await readdir(`${storage.path}/objects`, { recursive: true }).catch(() => []);
  return `${row!.s}/${files.length}`;
}
const tasksNamed = async (reason: string) => (await db<{ n: number }>('select count(*)::int as n from approval_tasks where reason = ?', [reason]))[0]!.n;
const createBody = (path: string, reason: string) => ({
  service: 'createApproval',
  templateId,
  createdBy: String(world.members.ann),
  assets: [{ name: 'a.png', url: `${world.assets.url}${path}` }],
  reason,
});
const createWithKey = (idem: string, body: unknown, app = world.env.app) =>
  send({ ...world.env, app }, { method: 'POST', url: '/approval', key: world.key.key, body, headers: { 'idempotency-key': idem } });
const replayedCount = (answers: Received[]) => answers.filter((a) => a.headers['idempotent-replayed'] === 'true').length;

describe('Idempotency-Key on createApproval (docs/approvals.md "Idempotency-Key")', () => {
  it('makes 50 concurrent createApproval with one key create one task with one download, every answer naming it', async () => {
    const body = createBody('/bytes/race-50', 'race-50');
    const answers = await Promise.all(Array.from({ length: 50 }, () => createWithKey('race-50', body)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(answers.map((a) => a.body.code)).toEqual(Array(50).fill('0'));
    const taskIds = new Set(answers.map((a) => a.body.result.taskId));
    expect(taskIds.size).toBe(1);
    expect(replayedCount(answers)).toBe(49);
    expect(await tasksNamed('race-50')).toBe(1);
    expect(world.assets.requestsFor('/bytes/race-50')).toBe(1);
    const [task] = await db<{ id: string }>('select id from approval_tasks where reason = ?', ['race-50']);
    expect(taskIds).toEqual(new Set([task!.id]));
  });

  it('makes a repeat that arrives while the first is still downloading wait and replay, without a second download', async () => {
    // a second app whose ORM counts its SQL, so the test can see the repeats looking at the held claim
    const counting: CountingApp = await countingApp(world.env);
    try {
      const body = createBody('/held/wait', 'held');
      const first = createWithKey('held-1', body, counting.app);
      await expect.poll(() => world.assets.requestsFor('/held/wait')).toBe(1);
      const [claim] = await db<{ pending: boolean }>(`select pending_until is not null as pending from idempotency_records where idempotency_key = 'held-1'`);
      expect(claim!.pending).toBe(true);
      const settled: Received[] = [];
      const repeats = Array.from({ length: 5 }, () => createWithKey('held-1', body, counting.app).then((r) => (settled.push(r), r)));
      const looks = () => counting.statements.filter((sql) => sql.includes('pending_until is not null as pending')).length;
      await expect.poll(looks).toBeGreaterThanOrEqual(5);
      expect(settled).toEqual([]);
      expect(world.assets.requestsFor('/held/wait')).toBe(1);
      world.assets.release();
      const answers = [await first, ...(await Promise.all(repeats))];
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      expect(new Set(answers.map((a) => a.body.result.taskId)).size).toBe(1);
      expect(answers[0]!.headers['idempotent-replayed']).toBeUndefined();
      expect(replayedCount(answers)).toBe(5);
      expect(world.assets.requestsFor('/held/wait')).toBe(1);
      expect(await tasksNamed('held')).toBe(1);
    } finally {
      await counting.close();
    }
  });

  it('replays a later repeat with Idempotent-Replayed: true and the first taskId, even after the template was disabled', async () => {
    const scope = { em: world.env.orm.em.fork(), teamId: world.team.teamId };
    const own = (
      await world.env.core.approvals.templates.create(scope, {
        name: 'Soon off',
        workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [world.members.ann] }] },
      })
    ).id;
    const body = { ...createBody('/bytes/later', 'later'), templateId: own };
    const first = await createWithKey('later-1', body);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await db('update approval_templates set enabled = false where id = ?', [own]);
    const again = await createWithKey('later-1', body);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.result).toEqual(first.body.result);
    expect(again.body.traceId).not.toBe(first.body.traceId);
    expect(world.assets.requestsFor('/bytes/later')).toBe(1);
    expect(await tasksNamed('later')).toBe(1);
  });

  it('refuses the same key with another body with 400 invalid_payload:idempotency_key_reused, downloading and creating nothing', async () => {
    await createWithKey('reuse-1', createBody('/bytes/reuse-a', 'reuse'));
    const before = await snapshot();
    const res = await createWithKey('reuse-1', createBody('/bytes/reuse-b', 'reuse'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_payload:idempotency_key_reused', result: null, traceId: expect.any(String) });
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await snapshot()).toBe(before);
    expect(world.assets.requestsFor('/bytes/reuse-b')).toBe(0);
  });

  it('scopes a key per API key: another key of the team with the same Idempotency-Key creates its own task', async () => {
    const second = await given(world.env).key(world.team, 'manage');
    const body = createBody('/bytes/scoped', 'scoped');
    const a = await createWithKey('scope-1', body);
    const b = await send(world.env, { method: 'POST', url: '/approval', key: second.key, body, headers: { 'idempotency-key': 'scope-1' } });
    expect(b.status).toBe(200);
    expect(b.body.result.taskId).not.toBe(a.body.result.taskId);
    expect(await tasksNamed('scoped')).toBe(2);
  });

  it.each([
    ['a blank key', '   '],
    ['a 256-character key', 'k'.repeat(256)],
    ['a key with a control character', 'abc\u0001def'],
  ])('refuses %s with 400 invalid_payload:invalid_parameter naming Idempotency-Key, downloading and creating nothing', async (_label, idem) => {
    const before = await snapshot();
    const downloads = world.assets.requests;
    const res = await createWithKey(idem, createBody('/bytes/bad-key', 'bad-key'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'invalid_payload:invalid_parameter',
      result: null,
      details: [{ field: 'Idempotency-Key', message: expect.any(String) }],
    });
    expect(await snapshot()).toBe(before);
    expect(world.assets.requests).toBe(downloads);
  });

  it('accepts a 255-character key', async () => {
    const res = await createWithKey('k'.repeat(255), createBody('/bytes/long-key', 'long-key'));
    expect(res.status).toBe(200);
    expect(await tasksNamed('long-key')).toBe(1);
  });

  it('does not use up a key when the create fails: after a failed download the same key and body create the task', async () => {
    const body = createBody('/fail-once/asset', 'fail-once');
    const failed = await createWithKey('fail-1', body);
    expect(failed.status).toBe(400);
    expect(failed.body.code).toBe('invalid_payload:asset_download_failed');
    expect(await db('select 1 from idempotency_records where idempotency_key = ?', ['fail-1'])).toEqual([]);
    const retried = await createWithKey('fail-1', body);
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(world.assets.requestsFor('/fail-once/asset')).toBe(2);
    expect(await tasksNamed('fail-once')).toBe(1);
  });

  it('takes over a claim whose holder died: a claim past its lease no longer blocks the key', async () => {
    const body = createBody('/bytes/orphan', 'orphan');
    // what a process that crashed mid-download leaves: a committed claim without an outcome, lapsed
    const { service: _service, ...fields } = body;
    await db(
      `insert into idempotency_records (team_id, api_key_id, operation, idempotency_key, request_hash, response_body, pending_until)
       values (?, ?, 'approvals.create', 'orphan-1', ?, 'null'::jsonb, now() - interval '1 second')`,
      [world.team.teamId, world.key.keyId, requestHash(fields)],
    );
    const res = await createWithKey('orphan-1', body);
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await tasksNamed('orphan')).toBe(1);
    const again = await createWithKey('orphan-1', body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.result).toEqual(res.body.result);
  });

  it('ignores the key on the read services', async () => {
    const res = await send(world.env, {
      method: 'POST',
      url: '/approval',
      key: world.key.key,
      body: { service: 'listTemplates' },
      headers: { 'idempotency-key': '   ' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});
