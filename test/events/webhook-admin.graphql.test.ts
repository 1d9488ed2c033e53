import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/core/outbox/outbox.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { SPAWNING_TEST_TIMEOUT_MS, until } from '../support/wait.ts';

let world: EventWorld;
let usableKey: GivenKey;
let otherTeamKey: GivenKey;
let endpointId: number;

const ENDPOINTS = '{ webhookEndpoints { id url apiKeyId state disabledReason secret previousSecretExpiresAt subscriptions { kind eventType folderId } } }';

async function emit(materialId: number, key: GivenKey = world.key): Promise<void> {
  const ctx = await given(world.env).ctx(key);
  await inTransaction(ctx, (tx) =>
    recordEvent(tx, {
      eventType: 'MATERIAL_DELETED',
      audience: { kind: 'material' },
      orderingKey: `material:${materialId}`,
      fields: { payload: { materialIds: [materialId] } },
    }),
  );
}

beforeAll(async () => {
  world = await createEventWorld();
  await world.startWorkers();
  usableKey = await given(world.env).key(world.team, 'usable');
  const other = await given(world.env).team('Other');
  otherTeamKey = await given(world.env).key(other, 'manage');
  for (const key of [world.key, usableKey]) {
    const res = await send(world.env, {
      method: 'POST',
      url: '/open/material-automation-subscribe',
      key: key.key,
      body: { callbackUrl: `${world.receiver.url}/k${key.keyId}`, eventTypes: ['MATERIAL_DELETED'] },
    });
    expect(res.body.code).toBe('0');
  }
  endpointId = (await graphql(world.env, usableKey.key, ENDPOINTS)).body.data.webhookEndpoints[0].id;
});
afterAll(() => world.close());

describe('webhookEndpoints', () => {
  it("shows a key its own endpoints with secret, state and subscriptions, and a manage key the team's", async () => {
    const mine = await graphql(world.env, usableKey.key, ENDPOINTS);
    expect(mine.body.data.webhookEndpoints).toEqual([
      {
        id: endpointId,
        url: `${world.receiver.url}/k${usableKey.keyId}`,
        apiKeyId: usableKey.keyId,
        state: 'ACTIVE',
        disabledReason: null,
        secret: expect.stringMatching(/^whsec_/),
        previousSecretExpiresAt: null,
        subscriptions: [{ kind: 'MATERIAL', eventType: 'MATERIAL_DELETED', folderId: null }],
      },
    ]);
    const all = await graphql(world.env, world.key.key, ENDPOINTS);
    expect(all.body.data.webhookEndpoints.map((e: { apiKeyId: number }) => e.apiKeyId).sort()).toEqual([world.key.keyId, usableKey.keyId].sort());
  });

  it("never shows another team's endpoints, and answers their ids with not_found", async () => {
    expect((await graphql(world.env, otherTeamKey.key, ENDPOINTS)).body.data.webhookEndpoints).toEqual([]);
    const res = await graphql(world.env, otherTeamKey.key, 'mutation($id: Int!) { rotateWebhookSecret(endpointId: $id) { id } }', { id: endpointId });
    expect(res.body.errors[0].extensions.code).toBe('not_found');
  });
});

describe('deliveries, attempts and replays', () => {
  it("lists an endpoint's deliveries with their attempts, filtered by status", async () => {
    world.receiver.answer(`/k${usableKey.keyId}`, 500, 200);
    await emit(11);
    const page = await until(
      async () =>
        (
          await graphql(
            world.env,
            usableKey.key,
            'query($id: Int!) { webhookDeliveries(endpointId: $id, status: SUCCEEDED) { items { id eventId eventType sequence status attempts lastStatus } pagination { totalCount } } }',
            { id: endpointId },
          )
        ).body.data.webhookDeliveries,
      (p) => p.items.length === 1,
    );
    expect(page.items[0]).toMatchObject({ eventType: 'MATERIAL_DELETED', sequence: 1, status: 'SUCCEEDED', attempts: 2, lastStatus: 200 });
    const attempts = await graphql(
      world.env,
      usableKey.key,
      'query($id: String!) { webhookAttempts(deliveryId: $id) { attempt statusCode error responseExcerpt } }',
      { id: page.items[0].id },
    );
    expect(attempts.body.data.webhookAttempts).toEqual([
      { attempt: 1, statusCode: 500, error: 'HTTP 500', responseExcerpt: 'ok' },
      { attempt: 2, statusCode: 200, error: null, responseExcerpt: 'ok' },
    ]);
    const failed = await graphql(world.env, usableKey.key, 'query($id: Int!) { webhookDeliveries(endpointId: $id, status: FAILED) { items { id } } }', {
      id: endpointId,
    });
    expect(failed.body.data.webhookDeliveries.items).toEqual([]);
  });

  it('replays one event as it was first sent, its own sequence included, and the next new event follows without a gap', async () => {
    const received = () => world.receiver.received.filter((r) => r.path === `/k${usableKey.keyId}`);
    const original = received().at(-1)!;
    expect(original.body.sequence).toBe(1);
    const res = await graphql(world.env, usableKey.key, 'mutation($id: Int!, $e: String) { replayWebhookEvents(endpointId: $id, eventId: $e) { replayed } }', {
      id: endpointId,
      e: original.body.eventId,
    });
    expect(res.body.data.replayWebhookEvents).toEqual({ replayed: 1 });
    const again = await until(received, (r) => r.length >= 3);
    expect(again.at(-1)!.raw).toBe(original.raw);
    const replays = await graphql(world.env, usableKey.key, 'query($id: Int!) { webhookDeliveries(endpointId: $id) { items { eventId sequence } } }', {
      id: endpointId,
    });
    expect(
      replays.body.data.webhookDeliveries.items
        .filter((d: { eventId: string }) => d.eventId === original.body.eventId)
        .map((d: { sequence: number }) => d.sequence),
    ).toEqual([1, 1]);
    await emit(11);
    const next = await until(received, (r) => r.length >= 4);
    expect(next.at(-1)!.body).toMatchObject({ sequence: 2 });
    expect(next.at(-1)!.body.eventId).not.toBe(original.body.eventId);
  });

  it('refuses a replay range older than 30 days or without eventId or from, and replays nothing', async () => {
    const old = await graphql(world.env, usableKey.key, 'mutation($id: Int!, $f: String) { replayWebhookEvents(endpointId: $id, from: $f) { replayed } }', {
      id: endpointId,
      f: '2020-01-01T00:00:00Z',
    });
    expect(old.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'from' }] });
    const neither = await graphql(world.env, usableKey.key, 'mutation($id: Int!) { replayWebhookEvents(endpointId: $id) { replayed } }', { id: endpointId });
    expect(neither.body.errors[0].extensions.code).toBe('validation_failed');
  });
});

describe('secret rotation and re-enabling', () => {
  it('rotates a secret so that both the new and the previous one verify deliveries for 24 hours', async () => {
    const before = (await graphql(world.env, usableKey.key, ENDPOINTS)).body.data.webhookEndpoints[0].secret;
    const res = await graphql(world.env, usableKey.key, 'mutation($id: Int!) { rotateWebhookSecret(endpointId: $id) { secret previousSecretExpiresAt } }', {
      id: endpointId,
    });
    const { secret, previousSecretExpiresAt } = res.body.data.rotateWebhookSecret;
    expect(secret).not.toBe(before);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const count = world.receiver.received.length;
    await emit(12);
    // other endpoints receive the event too, possibly first: wait for this endpoint's copy
    const [request] = await until(
      () => world.receiver.received.slice(count).filter((r) => r.path === `/k${usableKey.keyId}`),
      (r) => r.length >= 1,
    );
    const headers = request!.headers as Record<string, string>;
    expect(new Webhook(secret).verify(request!.raw, headers)).toEqual(request!.body);
    expect(new Webhook(before).verify(request!.raw, headers)).toEqual(request!.body);
  });

  it('re-enables a disabled endpoint through the CLI, and its pending deliveries resume', async () => {
    const mine = () => world.receiver.received.filter((r) => r.path === `/k${usableKey.keyId}`);
    const count = mine().length;
    // an event committed together with the endpoint's disabling: a pending delivery of a disabled endpoint
    const ctx = await given(world.env).ctx(usableKey);
    await inTransaction(ctx, async (tx) => {
      await recordEvent(tx, {
        eventType: 'MATERIAL_DELETED',
        audience: { kind: 'material' },
        orderingKey: 'material:13',
        fields: { payload: { materialIds: [13] } },
      });
      await tx.em.execute(`update webhook_endpoints set state = 'disabled', disabled_reason = 'test' where id = ?`, [endpointId]);
    });
    expect(mine().length).toBe(count);
    const cli = await runCli(['webhook', 'enable', '--team', String(world.team.teamId), '--endpoint', String(endpointId)], {
      DATABASE_URL: world.env.config.databaseUrl,
      OUTBOUND_ALLOW_HOSTS: world.receiver.hostPort,
    });
    expect(cli.code).toBe(0);
    expect(cli.json).toMatchObject({ id: endpointId, state: 'active', disabledReason: null });
    await until(
      () => mine().length,
      (n) => n > count,
    );
    expect(mine().at(-1)!.body.payload.materialIds).toEqual([13]);
  });

  it(
    "lists a team's endpoints through the CLI (a process of its own), and refuses an unknown team with not_found",
    async () => {
      const env = { DATABASE_URL: world.env.config.databaseUrl };
      const listed = await spawnCli(['webhook', 'list', '--team', String(world.team.teamId)], env);
      expect(listed.json.endpoints).toHaveLength(2);
      const unknown = await runCli(['webhook', 'list', '--team', '999999'], env);
      expect(unknown.code).not.toBe(0);
      expect(unknown.json).toMatchObject({ error: { code: 'not_found' } });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it("sends a test event through the CLI as the operator: one delivery queued on the endpoint's test line", async () => {
    const env = { DATABASE_URL: world.env.config.databaseUrl };
    const sent = await runCli(['webhook', 'test', '--team', String(world.team.teamId), '--endpoint', String(endpointId)], env);
    expect(sent.code, JSON.stringify(sent.json)).toBe(0);
    expect(sent.json).toEqual({ eventId: expect.any(String), deliveryId: expect.any(String) });
    const [row] = await world.env.orm.em
      .fork()
      .execute<{ ordering_key: string; event_type: string; actor: string }[]>(
        'select d.ordering_key, o.event_type, o.actor from webhook_deliveries d join outbox_events o on o.id = d.event_id where d.id = ?',
        [sent.json.deliveryId],
      );
    expect(row).toEqual({ ordering_key: `test:${endpointId}`, event_type: 'WEBHOOK_TEST', actor: 'system:operator-cli' });
  });
});
