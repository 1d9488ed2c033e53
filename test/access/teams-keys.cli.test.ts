import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/core/access/access.service.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { send } from '../support/http.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

let env: TestEnv;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.databaseUrl };
});
afterAll(async () => env.close());

const cli = (...args: string[]) => runCli(args, cliEnv);

describe('operator CLI: teams, members and keys (CONTRACT.md)', () => {
  it(
    'team create prints {"teamId"} as one JSON object and exits 0 (a process of its own)',
    async () => {
      const res = await spawnCli(['team', 'create', '--name', 'Acme'], cliEnv);
      expect(res.code).toBe(0);
      expect(res.stdout.trim().split('\n')).toHaveLength(1);
      expect(Object.keys(res.json)).toEqual(['teamId']);
      expect(res.json.teamId).toBeGreaterThan(0);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it('team enable-subscriptions prints {"teamId","subscriptions":true} and sets the capability', async () => {
    const { json: team } = await cli('team', 'create', '--name', 'Subs');
    const res = await cli('team', 'enable-subscriptions', '--team', String(team.teamId));
    expect(res.json).toEqual({ teamId: team.teamId, subscriptions: true });
    const rows = await env.orm.em.fork().execute<{ subscriptions_enabled: boolean }[]>('select subscriptions_enabled from teams where id = ?', [team.teamId]);
    expect(rows[0]!.subscriptions_enabled).toBe(true);
  });

  it('member add prints {"userId"} of a member of that team', async () => {
    const { json: team } = await cli('team', 'create', '--name', 'Members');
    const res = await cli('member', 'add', '--team', String(team.teamId), '--name', 'Ada');
    expect(res.code).toBe(0);
    const rows = await env.orm.em.fork().execute<{ team_id: number; name: string }[]>('select team_id, name from members where id = ?', [res.json.userId]);
    expect(rows[0]).toEqual({ team_id: team.teamId, name: 'Ada' });
  });

  it('key create defaults to view_only, shows the key once and stores only its hash; the key works', async () => {
    const { json: team } = await cli('team', 'create', '--name', 'Keys');
    const res = await cli('key', 'create', '--team', String(team.teamId));
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ keyId: expect.any(Number), key: expect.stringMatching(/^shelf_/), role: 'view_only' });
    const rows = await env.orm.em.fork().execute<Record<string, unknown>[]>('select * from api_keys where id = ?', [res.json.keyId]);
    expect(JSON.stringify(rows[0])).not.toContain(res.json.key);
    expect(rows[0]!.key_hash).toBe(hashApiKey(res.json.key));
    expect((await send(env, { url: '/v1/brands', key: res.json.key })).status).toBe(200);
    expect((await send(env, { method: 'POST', url: '/v1/brands', key: res.json.key, body: { name: 'x' } })).status).toBe(403);
  });

  it('key create with --role and --expires-at stores both', async () => {
    const { json: team } = await cli('team', 'create', '--name', 'Expiring');
    const res = await cli('key', 'create', '--team', String(team.teamId), '--role', 'manage', '--expires-at', '2999-06-01T12:00:00Z');
    expect(res.json).toMatchObject({ role: 'manage', expiresAt: '2999-06-01T12:00:00.000Z' });
  });

  it('key set-role and key revoke take effect on the next request', async () => {
    const { json: team } = await cli('team', 'create', '--name', 'Roles');
    const { json: key } = await cli('key', 'create', '--team', String(team.teamId));
    expect((await cli('key', 'set-role', '--key-id', String(key.keyId), '--role', 'manage')).json).toEqual({ keyId: key.keyId, role: 'manage' });
    expect((await send(env, { method: 'POST', url: '/v1/brands', key: key.key, body: { name: 'x' } })).status).toBe(201);
    expect((await cli('key', 'revoke', '--key-id', String(key.keyId))).json).toEqual({ keyId: key.keyId, active: false });
    const res = await send(env, { url: '/v1/brands', key: key.key });
    expect(res.body.code).toBe('key_inactive');
  });

  it('key create refuses an --expires-at in the past with validation_failed naming expiresAt and writes no key', async () => {
    const { json: team } = await cli('team', 'create', '--name', 'Dead keys');
    const keys = () => env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from api_keys where team_id = ?', [team.teamId]);
    const res = await cli('key', 'create', '--team', String(team.teamId), '--expires-at', '2020-01-01T00:00:00Z');
    expect(res.code).toBe(1);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'expiresAt', message: 'must be in the future' }] });
    expect((await keys())[0]!.n).toBe('0');
  });

  it('createKey (the core rule) refuses an expiry at or before the database clock, and issues one a minute ahead', async () => {
    const { teamId } = await env.core.access.createTeam(env.core.operatorCtx(), { name: 'Clock' });
    const [clock] = await env.orm.em.fork().execute<{ ms: string }[]>('select (extract(epoch from now()) * 1000)::bigint as ms');
    const past = new Date(Number(clock!.ms) - 1000).toISOString();
    await expect(env.core.access.createKey(env.core.operatorCtx(), { teamId, expiresAt: past })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'expiresAt' }],
    });
    const ahead = new Date(Date.now() + 60_000).toISOString();
    const created = await env.core.access.createKey(env.core.operatorCtx(), { teamId, expiresAt: ahead });
    expect(created.expiresAt).toBe(ahead);
    expect((await send(env, { url: '/v1/brands', key: created.key })).status).toBe(200);
    const rows = await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from api_keys where team_id = ?', [teamId]);
    expect(rows[0]!.n).toBe('1');
  });

  const failures: Array<[string, string[], string]> = [
    ['an unknown command', ['frobnicate'], 'usage'],
    ['an unknown flag', ['team', 'create', '--name', 'x', '--colour', 'red'], 'usage'],
    ['a missing team name', ['team', 'create'], 'validation_failed'],
    ['a non-numeric team id', ['member', 'add', '--team', 'abc', '--name', 'x'], 'validation_failed'],
    ['a team that does not exist', ['key', 'create', '--team', '999999'], 'not_found'],
    ['an unknown role', ['key', 'set-role', '--key-id', '1', '--role', 'admin'], 'validation_failed'],
    ['an invalid expiry', ['key', 'create', '--team', '1', '--expires-at', 'tomorrow'], 'validation_failed'],
    ['a key that does not exist', ['key', 'revoke', '--key-id', '999999'], 'not_found'],
  ];
  for (const [label, args, code] of failures) {
    it(`answers ${label} with {"error":{"code":"${code}",...}} on stdout and a non-zero exit`, async () => {
      const before = await env.orm.em.fork().execute<{ n: string }[]>('select (select count(*) from teams) + (select count(*) from api_keys) as n');
      const res = await cli(...args);
      expect(res.code).not.toBe(0);
      expect(res.json.error.code).toBe(code);
      expect(typeof res.json.error.message).toBe('string');
      const after = await env.orm.em.fork().execute<{ n: string }[]>('select (select count(*) from teams) + (select count(*) from api_keys) as n');
      expect(after[0]!.n).toBe(before[0]!.n);
    });
  }
});
