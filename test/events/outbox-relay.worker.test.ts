import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/core/outbox/outbox.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { OutboxRelay } from '../../workers/outbox-relay.ts';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';

let world: EventWorld;

// no workers run: the queue keeps what the relay puts in it
beforeAll(async () => {
  world = await createEventWorld({ WEBHOOK_CONCURRENCY: '2' });
});
afterAll(() => world.close());

const db = <T>(sql: string, params: unknown[] = []) => world.env.orm.em.fork().execute<T[]>(sql, params);

describe('the outbox relay (docs/events.md "Delivery")', () => {
  it('takes no deliveries while WEBHOOK_CONCURRENCY jobs wait in the queue, and takes them once fewer wait', async () => {
    const res = await send(world.env, {
      method: 'POST',
      url: '/open/material-automation-subscribe',
      key: world.key.key,
      body: { callbackUrl: `${world.receiver.url}/relay`, eventTypes: ['MATERIAL_DELETED'] },
    });
    expect(res.body.code).toBe('0');
    const ctx = await given(world.env).ctx(world.key);
    await inTransaction(ctx, (tx) =>
      recordEvent(tx, { eventType: 'MATERIAL_DELETED', audience: { kind: 'material' }, orderingKey: 'material:1', fields: { payload: { materialIds: [1] } } }),
    );
    const queue = world.env.queues.get('webhook-delivery');
    await queue.addBulk([1, 2].map((i) => ({ name: 'deliver', data: { deliveryIds: [] }, opts: { jobId: `waiting-${i}` } })));
    const relay = new OutboxRelay({
      core: world.env.core,
      queues: world.env.queues,
      logger: pino({ level: 'silent' }),
      intervalMs: 50,
      maxWaitingJobs: world.env.config.webhookConcurrency,
    });
    const queued = async () => (await db<{ queued: boolean }>(`select queued_at is not null as queued from webhook_deliveries`)).map((r) => r.queued);

    expect(await relay.step()).toBe(0);
    expect(await queued()).toEqual([false]);
    expect(await queue.getWaitingCount()).toBe(2);

    await queue.remove('waiting-1');
    expect(await relay.step()).toBe(1);
    expect(await queued()).toEqual([true]);
    const [delivery] = await db<{ id: string }>(`select id::text from webhook_deliveries`);
    expect((await queue.getWaiting()).map((j) => j.data)).toContainEqual({ deliveryIds: [delivery!.id] });
  });
});
