import { type Client, createClient } from 'graphql-sse';
import type { TestEnv } from '../support/env.ts';
import { freePort } from '../support/private-redis.ts';

/** Listens on a free loopback port (real HTTP, not inject) and returns its origin. */
export async function listen(env: TestEnv): Promise<string> {
  const port = await freePort();
  await env.app.listen({ port, host: '127.0.0.1' });
  return `http://127.0.0.1:${port}`;
}

/** A graphql-sse client in distinct connections mode (one SSE request per subscription), no retries: every end is seen. */
export function sseClient(origin: string, key: string, headers: Record<string, string> = {}): Client {
  return createClient({ url: `${origin}/graphql`, singleConnection: false, retryAttempts: 0, headers: { authorization: `Bearer ${key}`, ...headers } });
}

export interface Collected {
  /** Every `next` payload received, in order. */
  results: Array<{ data?: any; errors?: any[] }>;
  /** The data of each update (results without errors). */
  data(field: string): any[];
  /** Set when the subscription completed (the server sent `complete`). */
  completed: boolean;
  /** Set when it failed (a refusal before the stream, a dropped connection). */
  error: unknown;
  dispose(): void;
}

/** Subscribes and collects what arrives. */
export function collect(client: Client, query: string, variables: Record<string, unknown> = {}): Collected {
  const out: Collected = {
    results: [],
    data: (field) => out.results.filter((r) => r.data).map((r) => r.data[field]),
    completed: false,
    error: null,
    dispose: () => {},
  };
  out.dispose = client.subscribe(
    { query, variables },
    {
      next: (value) => {
        out.results.push(value as Collected['results'][number]);
      },
      error: (e) => {
        out.error = e;
      },
      complete: () => {
        out.completed = true;
      },
    },
  );
  return out;
}

/** The live log's counter: the last position given (tests wait for it to pass a change). */
export async function lastPosition(env: TestEnv): Promise<number> {
  const rows = await env.orm.em.fork().execute<{ last: string }[]>('select last from live_positions where id = 1');
  return Number(rows[0]!.last);
}

/** The open streams this process counts (its gauge). */
export async function openStreams(env: TestEnv): Promise<number> {
  const metric = await env.metrics.registry.getSingleMetric('shelf_live_streams')?.get();
  return metric?.values[0]?.value ?? 0;
}
