import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorMay, requirePermission } from '../../src/core/access/roles.ts';
import { type Actor, actorLabel, type KeyActor, keyOf, linkExpiryOf, memberIdOf, requireKey } from '../../src/core/platform/ctx.ts';
import { DomainError } from '../../src/core/platform/errors.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';

let env: TestEnv;
let team: GivenTeam;
let other: GivenTeam;
let editable: GivenKey;
let usable: GivenKey;
let member: number;
let outsider: number;

beforeAll(async () => {
  env = await createTestEnv();
  team = await given(env).team('A');
  other = await given(env).team('B');
  editable = await given(env).key(team, 'editable', '2999-01-01T00:00:00Z');
  usable = await given(env).key(team, 'usable');
  member = (await given(env).member(team, 'Ann')).userId;
  outsider = (await given(env).member(other, 'Zed')).userId;
});
afterAll(() => env.close());

const op = () => env.core.operatorCtx();
const keyActor = (key: GivenKey): Promise<KeyActor> => env.core.access.authenticate(op(), `Bearer ${key.key}`);

describe('callers: keys, members and the system', () => {
  it('authenticates a Bearer key as a key actor with its current role and expiry', async () => {
    const actor = await keyActor(editable);
    expect(actor).toEqual({ kind: 'key', keyId: editable.keyId, teamId: team.teamId, role: 'editable', expiresAt: Date.parse('2999-01-01T00:00:00Z') });
    expect(actorLabel(actor)).toBe(`key:${editable.keyId}`);
  });

  it('lets a key of editable role or higher act for a member of its own team, bounded by the key', async () => {
    const actor = await env.core.access.actForMember(op(), await keyActor(editable), String(member));
    expect(actor).toMatchObject({ kind: 'member', userId: member, teamId: team.teamId });
    expect(keyOf(actor)?.keyId).toBe(editable.keyId);
    expect(memberIdOf(actor)).toBe(member);
    expect(linkExpiryOf(actor)).toBe(Date.parse('2999-01-01T00:00:00Z'));
    expect(actorLabel(actor)).toBe(`member:${member}`);
  });

  it('refuses a usable key acting for a member with 403 forbidden', async () => {
    await expect(env.core.access.actForMember(op(), await keyActor(usable), member)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it("refuses another team's member with 404 not_found (subject member), revealing nothing", async () => {
    const refused = await env.core.access.actForMember(op(), await keyActor(editable), outsider).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'not_found', subject: 'member' });
  });

  it('refuses a member id that is not a positive integer with validation_failed', async () => {
    await expect(env.core.access.actForMember(op(), await keyActor(editable), 'ann')).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it("scopes an operator acting as a member (CLI --user) to the member's own team", async () => {
    const actor = await env.core.access.memberAsOperator(op(), outsider);
    expect(actor).toEqual({ kind: 'member', userId: outsider, teamId: other.teamId, viaKey: null });
    await expect(env.core.access.memberAsOperator(op(), 999_999)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('requirePermission for each kind of caller', () => {
  const key = (role: KeyActor['role']): KeyActor => ({ kind: 'key', keyId: 1, teamId: 1, role, expiresAt: null });
  const cliMember: Actor = { kind: 'member', userId: 1, teamId: 1, viaKey: null };
  const system: Actor = { kind: 'system', teamId: 1, job: 'test' };

  it('gives a key exactly what its role holds', () => {
    expect(actorMay(key('editable'), 'library:edit')).toBe(true);
    expect(actorMay(key('usable'), 'library:edit')).toBe(false);
    expect(actorMay(key('manage'), 'brands:create')).toBe(true);
  });

  it('lets a member edit the library but never administer the catalogue', () => {
    expect(actorMay(cliMember, 'library:edit')).toBe(true);
    expect(actorMay(cliMember, 'brands:create')).toBe(false);
    expect(actorMay(cliMember, 'library:manage_access')).toBe(false);
    expect(() => requirePermission({ actor: cliMember }, 'templates:create')).toThrow(DomainError);
  });

  it("bounds a member acting through a frontend by the frontend key's role as well", () => {
    const throughUsable: Actor = { kind: 'member', userId: 1, teamId: 1, viaKey: key('usable') };
    const throughManage: Actor = { kind: 'member', userId: 1, teamId: 1, viaKey: key('manage') };
    expect(actorMay(throughUsable, 'library:edit')).toBe(false);
    expect(actorMay(throughManage, 'library:edit')).toBe(true);
    expect(actorMay(throughManage, 'brands:create')).toBe(false);
  });

  it('lets the system act on everything of its team, and names its job', () => {
    expect(actorMay(system, 'brands:delete')).toBe(true);
    expect(actorLabel(system)).toBe('system:test');
    expect(memberIdOf(system)).toBeNull();
  });

  it('refuses key-only operations (sync cursors, Idempotency-Key scopes) to callers without a key', () => {
    expect(() => requireKey(cliMember)).toThrow(/needs an API key/);
    expect(() => requireKey(system)).toThrow(DomainError);
    expect(requireKey(key('view_only')).keyId).toBe(1);
  });
});
