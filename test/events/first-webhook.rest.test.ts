import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorkers, startWorkers } from '../../workers/index.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { type Received, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * docs/events.md "First webhook in five minutes", followed step by step. The request bodies and
 * GraphQL documents are read from the page's tagged code blocks (```graphql first-webhook:<step>),
 * so the page cannot drift from what works.
 */
let blocks: Map<string, string>;
let env: TestEnv;
let receiver: WebhookReceiver;
let workers: RunningWorkers;
let team: GivenTeam;
let key: GivenKey;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  const page = await readFile(new URL('../../docs/events.md', import.meta.url), 'utf8');
  blocks = new Map([...page.matchAll(/```(?:json|graphql) first-webhook:(\w+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!.trim()]));
  receiver = await startReceiver();
  files = await tempDir('first-webhook-files');
  storage = await tempDir('first-webhook-storage');
  env = await createTestEnv({ OUTBOUND_ALLOW_HOSTS: receiver.hostPort, RELAY_INTERVAL_MS: '50', STORAGE_DIR: storage.path });
  workers = await startWorkers({ core: env.core, config: env.config, queues: env.queues, metrics: env.metrics, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await workers.close();
  await env.close();
  await receiver.close();
  await files.remove();
  await storage.remove();
});

/** The page's step, with its example callback URL pointed at this test's receiver. */
function step(name: string): string {
  const text = blocks.get(name);
  expect(text, `docs/events.md has no block first-webhook:${name}`).toBeDefined();
  return text!.replaceAll('http://127.0.0.1:4000', receiver.url);
}

async function arrivals(count: number): Promise<Received[]> {
  await expect.poll(() => receiver.received.filter((r) => r.path === '/shelf').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  return receiver.received.filter((r) => r.path === '/shelf');
}

describe('docs/events.md: first webhook in five minutes', () => {
  it('subscribes, reads the secret, verifies a test event and a real one with standardwebhooks, and replays it with the same sequence', async () => {
    // 1. the operator's part
    team = await given(env).team('First webhook');
    await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: team.teamId });
    key = await given(env).key(team, 'editable');
    const image = join(files.path, 'first.png');
    await writeImage(image, { width: 8, height: 8, colour: '#336699', format: 'png' });
    const file = await given(env).libraryFile(team, { file: image, folder: '/docs', name: 'first.png' });

    // 3. subscribe
    const subscribed = await send(env, { method: 'POST', url: '/open/material-automation-subscribe', key: key.key, body: JSON.parse(step('subscribe')) });
    expect(subscribed.body).toMatchObject({ code: '0', result: true });

    // 4. the secret
    const endpoints = await graphql(env, key.key, step('endpoints'));
    expect(endpoints.body.errors).toBeUndefined();
    const [endpoint] = endpoints.body.data.webhookEndpoints;
    expect(endpoint).toMatchObject({ url: `${receiver.url}/shelf`, state: 'ACTIVE', secret: expect.stringMatching(/^whsec_/) });
    const webhook = new Webhook(endpoint.secret);

    // 5. a test event, verified as the receiver of step 2 verifies it
    const test = await graphql(env, key.key, step('test'), { endpointId: endpoint.id });
    expect(test.body.errors).toBeUndefined();
    const [testArrival] = await arrivals(1);
    const testEvent = webhook.verify(testArrival!.raw, testArrival!.headers as Record<string, string>) as Record<string, any>;
    expect(testEvent).toMatchObject({
      eventId: test.body.data.sendTestWebhookEvent.eventId,
      eventType: 'WEBHOOK_TEST',
      test: true,
      sequence: 1,
      payload: { endpointId: endpoint.id },
    });

    // 6. a real event
    const renamed = await graphql(env, key.key, step('rename'), { id: file.id });
    expect(renamed.body.errors).toBeUndefined();
    const [, realArrival] = await arrivals(2);
    const realEvent = webhook.verify(realArrival!.raw, realArrival!.headers as Record<string, string>) as Record<string, any>;
    expect(realEvent).toMatchObject({ eventType: 'MATERIAL_METADATA_UPDATED', sequence: 1, payload: { changeType: 'BASIC', materialIds: [file.id] } });

    // 7. the log, and a replay
    await expect
      .poll(async () => {
        const log = await graphql(env, key.key, step('log'), { endpointId: endpoint.id });
        return log.body.data.webhookDeliveries.items.map((d: { eventType: string; status: string; attempts: number }) => [d.eventType, d.status, d.attempts]);
      })
      .toEqual([
        ['MATERIAL_METADATA_UPDATED', 'SUCCEEDED', 1],
        ['WEBHOOK_TEST', 'SUCCEEDED', 1],
      ]);
    const replay = await graphql(env, key.key, step('replay'), { endpointId: endpoint.id, eventId: realEvent.eventId });
    expect(replay.body.data.replayWebhookEvents).toEqual({ replayed: 1 });
    const [, , replayed] = await arrivals(3);
    expect(webhook.verify(replayed!.raw, replayed!.headers as Record<string, string>)).toEqual(realEvent);
  });
});

describe('test events and endpoint states', () => {
  it("refuses a test event for a disabled endpoint, and another team's endpoint is not_found; nothing is queued", async () => {
    const endpoints = await graphql(env, key.key, step('endpoints'));
    const endpointId = endpoints.body.data.webhookEndpoints[0].id;
    const deliveries = async () => (await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from webhook_deliveries'))[0]!.n;
    const before = await deliveries();
    const stranger = await given(env).key(await given(env).team('Stranger'), 'manage');
    const foreign = await graphql(env, stranger.key, step('test'), { endpointId });
    expect(foreign.body.errors[0].extensions.code).toBe('not_found');
    await env.orm.em.fork().execute(`update webhook_endpoints set state = 'disabled', disabled_reason = 'test' where id = ?`, [endpointId]);
    const refused = await graphql(env, key.key, step('test'), { endpointId });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'endpointId' }] });
    expect(await deliveries()).toBe(before);
    await env.orm.em.fork().execute(`update webhook_endpoints set state = 'active', disabled_reason = null where id = ?`, [endpointId]);
  });

  it('calls an endpoint whose last subscription was removed `unsubscribed`, and `active` again once it is subscribed', async () => {
    const body = JSON.parse(step('subscribe'));
    const state = async () => (await graphql(env, key.key, step('endpoints'))).body.data.webhookEndpoints[0].state;
    await send(env, { method: 'POST', url: '/open/material-automation-subscribe', key: key.key, body: { ...body, operation: 'DELETE' } });
    expect(await state()).toBe('UNSUBSCRIBED');
    await send(env, { method: 'POST', url: '/open/material-automation-subscribe', key: key.key, body });
    expect(await state()).toBe('ACTIVE');
  });
});
