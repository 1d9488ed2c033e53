import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';
import { type Collected, collect as collectOne, listen, openStreams, sseClient } from './live-support.ts';

/*
 * The bounds of live updates (docs/graphql.md "Live updates"): caps per key and per process,
 * revoked keys, slow clients, heartbeats, the query limits, authentication and tokens.
 */

let env: TestEnv;
let origin: string;
let team: GivenTeam;
let manager: GivenKey;

const PRODUCTS = 'subscription($after: String) { productChanges(after: $after) { position productId action name } }';
const CREATE_PRODUCT = 'mutation($input: ProductCreateInput!) { createProduct(input: $input) { product { id } } }';

beforeAll(async () => {
  env = await createTestEnv({
    LIVE_STREAMS_PER_KEY: '2',
    LIVE_STREAMS_PER_PROCESS: '3',
    LIVE_BUFFER: '200',
    // no periodic re-check runs during this file's tests: a revocation must end streams by itself
    LIVE_RECHECK_MS: '600000',
    LIVE_RELAY_INTERVAL_MS: '20',
    LIVE_HEARTBEAT_MS: '200',
  });
  origin = await listen(env);
  team = await given(env).team('Bounds');
  manager = await given(env).key(team, 'manage');
});
afterAll(async () => {
  await env?.close();
});

const opened: Collected[] = [];
function collect(...args: Parameters<typeof collectOne>): Collected {
  const one = collectOne(...args);
  opened.push(one);
  return one;
}
afterEach(async () => {
  for (const one of opened.splice(0)) one.dispose();
  await expect.poll(() => openStreams(env)).toBe(0);
});

/** A stream request; a refusal's body read as JSON. */
async function rawStream(
  body: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${manager.key}` },
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text, headers: res.headers };
}

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const values = (await env.metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  return values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))?.value ?? 0;
}

describe('stream caps', () => {
  it('refuses a third stream of one key with 429 stream_limit_reached (LIVE_STREAMS_PER_KEY=2), and opens one again once another closes', async () => {
    const a = collect(sseClient(origin, manager.key), PRODUCTS);
    collect(sseClient(origin, manager.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(2);
    const refused = await rawStream({ query: PRODUCTS });
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'stream_limit_reached', reason: 'key_cap' });
    expect(await openStreams(env)).toBe(2);
    a.dispose();
    await expect.poll(() => openStreams(env)).toBe(1);
    collect(sseClient(origin, manager.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(2);
  });

  it('refuses a stream past the process cap (LIVE_STREAMS_PER_PROCESS=3) with 429 stream_limit_reached and Retry-After', async () => {
    const second = await given(env).key(team, 'view_only');
    collect(sseClient(origin, manager.key), PRODUCTS);
    collect(sseClient(origin, manager.key), PRODUCTS);
    collect(sseClient(origin, second.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(3);
    const refused = await rawStream({ query: PRODUCTS }, { authorization: `Bearer ${second.key}` });
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'stream_limit_reached', reason: 'process_cap' });
    expect(refused.headers.get('retry-after')).toBe('5');
  });
});

describe('access', () => {
  it("ends a revoked key's streams at once with key_revoked, then complete, without waiting for a re-check period", async () => {
    const doomed = await given(env).key(team, 'manage');
    const stream = collect(sseClient(origin, doomed.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(1);
    await env.core.access.revokeKey(env.core.operatorCtx(), { keyId: doomed.keyId });
    await expect.poll(() => stream.completed).toBe(true);
    expect(stream.results.at(-1)!.errors![0].extensions).toEqual({ code: 'key_revoked', reconnect: false });
    expect(await metric('shelf_live_streams_ended_total', { reason: 'key_revoked' })).toBe(1);
    const again = await rawStream({ query: PRODUCTS }, { authorization: `Bearer ${doomed.key}` });
    expect(again.status).toBe(401);
    expect(again.body.errors[0].extensions.code).toBe('key_inactive');
  });

  it('refuses a stream without a key, or with a forged token, with 401 invalid_credentials and opens nothing', async () => {
    const none = await rawStream({ query: PRODUCTS }, {});
    expect(none.status).toBe(401);
    expect(none.body.errors[0].extensions.code).toBe('invalid_credentials');
    const forged = await fetch(`${origin}/graphql?query=${encodeURIComponent(PRODUCTS)}&token=st1.${manager.keyId}.99999999999999.${'A'.repeat(43)}`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(forged.status).toBe(401);
    expect((await forged.json()).errors[0].extensions.code).toBe('invalid_credentials');
    expect(await openStreams(env)).toBe(0);
  });

  it('opens a GET stream with a token from createStreamToken, as EventSource does, and refuses it once the key is revoked', async () => {
    const holder = await given(env).key(team, 'view_only');
    const issued = await graphql(env, holder.key, 'mutation { createStreamToken { token expiresAt } }');
    const { token, expiresAt } = issued.body.data.createStreamToken;
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    const url = `${origin}/graphql?query=${encodeURIComponent(PRODUCTS)}&token=${token}`;
    const controller = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect(res.status).toBe(200);
    await expect.poll(() => openStreams(env)).toBe(1);
    controller.abort();
    await expect.poll(() => openStreams(env)).toBe(0);
    await env.core.access.revokeKey(env.core.operatorCtx(), { keyId: holder.keyId });
    const after = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(after.status).toBe(401);
    expect((await after.json()).errors[0].extensions.code).toBe('key_inactive');
  });

  it('answers a subscription sent as application/json with validation_failed naming text/event-stream', async () => {
    const res = await graphql(env, manager.key, PRODUCTS);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].message).toContain('text/event-stream');
  });
});

describe('the query limits on subscription documents', () => {
  it('refuses 31 aliases with 400 query_too_many_aliases before any stream opens', async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `a${i}: position`).join(' ');
    const res = await rawStream({ query: `subscription { productChanges { ${fields} } }` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'query_too_many_aliases', measured: 31, limit: 30 });
    expect(await openStreams(env)).toBe(0);
  });

  it('refuses a query sent as an event stream with 400 validation_failed', async () => {
    const res = await rawStream({ query: '{ brands { items { id } } }' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
  });
});

/** An SSE request whose answer is not read until the test says so. */
function pausedStream(query: string): Promise<{ res: IncomingMessage; readAll: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${origin}/graphql`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: '/graphql',
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${manager.key}` },
      },
      (res) => {
        res.pause();
        resolve({
          res,
          readAll: () =>
            new Promise((done) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (text += chunk));
              res.on('end', () => done(text));
              res.resume();
            }),
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

describe('slow clients and heartbeats', () => {
  it('drops a client that does not read with slow_consumer once LIVE_BUFFER updates wait behind its full connection, while a reading client gets every update', async () => {
    const reader = collect(sseClient(origin, manager.key), PRODUCTS);
    // the client that does not read asks for each update's name 30 times: 30 KB an update
    const slow = await pausedStream(`subscription { productChanges { position ${Array.from({ length: 30 }, (_, i) => `n${i}: name`).join(' ')} } }`);
    await expect.poll(() => openStreams(env)).toBe(2);
    // 3,000 committed product changes of about 1 KB each (90 MB for the client that does not read),
    // committed 100 at a time so that each relay step hands on 100 (a burst below the buffer)
    for (let i = 0; i < 30; i++) {
      await env.orm.em.fork().execute(
        `insert into live_events (team_id, stream, event_type, subject_id, body)
         select ?, 'product', 'updated', g::text, json_build_object('productId', g, 'action', 'updated', 'status', 'draft', 'name', repeat('n', 1000), 'changedFields', '[]'::json, 'actor', 'key:1')
           from generate_series(?::int, ?::int) g`,
        [team.teamId, i * 100 + 1, i * 100 + 100],
      );
      await expect
        .poll(async () => (await env.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from live_events where position is null'))[0]!.n)
        .toBe('0');
    }
    await expect.poll(() => metric('shelf_live_streams_ended_total', { reason: 'slow_consumer' })).toBe(1);
    await expect.poll(() => reader.data('productChanges').length, { timeout: 60_000 }).toBe(3000);
    expect(reader.error).toBeNull();
    const text = await slow.readAll();
    const last = text.trimEnd().split('\n\n').at(-1)!;
    expect(last.startsWith('event: next\ndata: ')).toBe(true);
    expect(JSON.parse(last.slice('event: next\ndata: '.length)).errors[0].extensions).toEqual({ code: 'slow_consumer', reconnect: true });
  });

  it('sends a comment line as heartbeat on an idle stream every LIVE_HEARTBEAT_MS', async () => {
    const controller = new AbortController();
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${manager.key}` },
      body: JSON.stringify({ query: PRODUCTS }),
      signal: controller.signal,
    });
    let beats = 0;
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      beats += decoder.decode(chunk).split(':\n\n').length - 1;
      if (beats >= 2) break;
    }
    controller.abort();
    expect(beats).toBeGreaterThanOrEqual(2);
  });
});

describe('creating products while streams are open', () => {
  it('sends each stream the new product once (a sanity check of the fixtures above)', async () => {
    const stream = collect(sseClient(origin, manager.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(1);
    const res = await graphql(env, manager.key, CREATE_PRODUCT, { input: { name: 'Once' } });
    const id = res.body.data.createProduct.product.id;
    await expect.poll(() => stream.data('productChanges').filter((c) => c.productId === id).length).toBe(1);
  });
});
