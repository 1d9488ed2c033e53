import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { type Received, send } from '../support/http.ts';

/*
 * Equal subscription writes sent at once (a client retrying, several instances of one integrator
 * starting together) converge on one stored subscription, and every request is answered 200.
 */

const CONCURRENT = 50;

let world: EventWorld;
let folderId: number;

beforeAll(async () => {
  world = await createEventWorld();
  const ctx = await given(world.env).ctx(world.key);
  folderId = (await world.env.core.assets.folderEdit.create(ctx, { name: 'races' })).id;
});
afterAll(async () => {
  await world.close();
});

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);

/** `CONCURRENT` requests through the Fastify app, all in flight together. */
function all(url: string, body: (i: number) => unknown): Promise<Received[]> {
  return Promise.all(Array.from({ length: CONCURRENT }, (_v, i) => send(world.env, { method: 'POST', url, key: world.key.key, body: body(i) })));
}

/** Status and envelope code of each answer, counted: `{ '200 0': 50 }` when all succeeded. */
function tally(answers: Received[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[`${a.status} ${a.body?.code}`] = (counts[`${a.status} ${a.body?.code}`] ?? 0) + 1;
  return counts;
}

async function subscriptionsOf(kind: string): Promise<{ url: string; event_type: string; folder_id: number | null; created_at: string }[]> {
  return db(
    `select e.url, s.event_type, s.folder_id, s.created_at::text from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id
      where e.api_key_id = ? and s.kind = ? order by e.url, s.event_type`,
    [world.key.keyId, kind],
  );
}

describe('POST /approval subscriptionChange ADD sent concurrently (spec 4.8)', () => {
  it('answers all 50 requests with the same URL 200 and stores one subscription at one endpoint', async () => {
    const url = `${world.receiver.url}/approvals`;
    const answers = await all('/approval', () => ({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: url }));
    expect(tally(answers)).toEqual({ '200 0': CONCURRENT });
    expect(answers.every((a) => a.body.result.subscribed === true && a.body.result.callbackUrl === url)).toBe(true);
    expect((await subscriptionsOf('approval')).map((s) => s.url)).toEqual([url]);
    expect(await db('select url from webhook_endpoints where api_key_id = ?', [world.key.keyId])).toEqual([{ url }]);
  });

  it('keeps the subscription as it was when the same URL is added again', async () => {
    const url = `${world.receiver.url}/approvals`;
    const before = await subscriptionsOf('approval');
    const again = await send(world.env, {
      method: 'POST',
      url: '/approval',
      key: world.key.key,
      body: { service: 'subscriptionChange', operation: 'ADD', callbackUrl: url },
    });
    expect(again.body).toMatchObject({ code: '0', result: { subscribed: true, callbackUrl: url, createdAt: expect.any(String) } });
    expect(await subscriptionsOf('approval')).toEqual(before);
  });

  it('keeps one approval URL per key when two URLs are added concurrently: every request 200, the last committed wins', async () => {
    const urls = [`${world.receiver.url}/approvals-a`, `${world.receiver.url}/approvals-b`];
    const answers = await all('/approval', (i) => ({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: urls[i % 2] }));
    expect(tally(answers)).toEqual({ '200 0': CONCURRENT });
    const stored = await subscriptionsOf('approval');
    expect(stored).toHaveLength(1);
    expect(urls).toContain(stored[0]!.url);
    const query = await send(world.env, { method: 'POST', url: '/approval', key: world.key.key, body: { service: 'subscriptionQuery' } });
    expect(query.body.result.callbackUrl).toBe(stored[0]!.url);
  });

  it('answers concurrent ADD and DELETE 200 each and leaves at most the one subscription', async () => {
    const url = `${world.receiver.url}/approvals`;
    const answers = await all('/approval', (i) =>
      i % 2 === 0 ? { service: 'subscriptionChange', operation: 'ADD', callbackUrl: url } : { service: 'subscriptionChange', operation: 'DELETE' },
    );
    expect(tally(answers)).toEqual({ '200 0': CONCURRENT });
    expect((await subscriptionsOf('approval')).length).toBeLessThanOrEqual(1);
  });
});

describe('POST /open subscriptions sent concurrently (spec 4.7)', () => {
  it('answers 50 equal folder-subscribe requests 200 and stores the folder subscription once', async () => {
    const url = `${world.receiver.url}/folders`;
    const answers = await all('/open/folder-subscribe', () => ({ folderIds: [folderId], callbackUrl: url }));
    expect(tally(answers)).toEqual({ '200 0': CONCURRENT });
    expect((await subscriptionsOf('folder')).map((s) => [s.url, s.folder_id])).toEqual([[url, folderId]]);
  });

  it('answers 50 material-automation-subscribe requests for the same types, in any order, 200 and stores each type once', async () => {
    const url = `${world.receiver.url}/materials`;
    const types = ['MATERIAL_DELETED', 'MATERIAL_METADATA_UPDATED', 'MATERIAL_ADDED_TO_FOLDER'];
    const answers = await all('/open/material-automation-subscribe', (i) => ({ eventTypes: i % 2 === 0 ? types : [...types].reverse(), callbackUrl: url }));
    expect(tally(answers)).toEqual({ '200 0': CONCURRENT });
    expect((await subscriptionsOf('material')).map((s) => [s.url, s.event_type])).toEqual([...types].sort().map((t) => [url, t]));
  });
});
