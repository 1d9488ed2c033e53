import type { TestEnv } from './env.ts';

/** One event written for one endpoint: the path of the endpoint's callback URL and the event's body. */
export interface WrittenDelivery {
  path: string;
  body: any;
}

/**
 * Every event written for delivery to an endpoint, oldest first, of one team's endpoints or (without
 * `teamId`) of every team in the test file's database: the outbox rows and their deliveries, which
 * are written in the transaction of the change that caused them (src/core/outbox/outbox.ts). Once a
 * call has returned, these are all the webhooks it will ever cause, so "nothing was sent" is
 * checked here at once, with no wait for the relay that a slow machine could outlast.
 */
export async function writtenDeliveries(env: TestEnv, teamId?: number): Promise<WrittenDelivery[]> {
  const rows = await env.orm.em.fork().execute<{ url: string; body: unknown }[]>(
    `select e.url, o.body from webhook_deliveries d
       join outbox_events o on o.id = d.event_id
       join webhook_endpoints e on e.id = d.endpoint_id
      where ?::int is null or e.team_id = ? order by d.id`,
    [teamId ?? null, teamId ?? null],
  );
  return rows.map((row) => ({ path: new URL(row.url).pathname, body: typeof row.body === 'string' ? JSON.parse(row.body) : row.body }));
}
