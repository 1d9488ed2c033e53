import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { freePort } from '../support/private-redis.ts';
import { SPAWNING_TEST_TIMEOUT_MS, until } from '../support/wait.ts';
import { collect, listen, openStreams, sseClient } from './live-support.ts';

/*
 * Two API processes on one database and one Redis: this test's own (in-process, listening on a
 * real port) and a second one started as `ROLE=api node src/main.mjs`, as a deployment runs them.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
vi.setConfig({ testTimeout: SPAWNING_TEST_TIMEOUT_MS, hookTimeout: SPAWNING_TEST_TIMEOUT_MS });

let env: TestEnv;
let first: string;
let second: string;
let child: ChildProcess;
let output = '';
let exited: Promise<number | null>;
let key: GivenKey;

const PRODUCTS = 'subscription($after: String) { productChanges(after: $after) { position productId action name } }';
const CREATE = 'mutation($input: ProductCreateInput!) { createProduct(input: $input) { product { id } } }';

beforeAll(async () => {
  env = await createTestEnv({ LIVE_RELAY_INTERVAL_MS: '20' });
  first = await listen(env);
  const port = await freePort();
  second = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['src/main.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ROLE: 'api',
      PORT: String(port),
      DATABASE_URL: env.config.databaseUrl,
      REDIS_URL: env.config.redisUrl,
      QUEUE_PREFIX: env.config.queuePrefix,
      LINK_SIGNING_SECRET: env.config.linkSigningSecret!,
      LIVE_RELAY_INTERVAL_MS: '20',
      LOG_LEVEL: 'warn',
    },
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  // expect.poll is for tests: the hook polls the process's health itself until it answers (hookTimeout bounds a hang)
  while (
    (await fetch(`${second}/healthz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (child.exitCode !== null) throw new Error(`the second process exited: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  key = await given(env).key(await given(env).team('Two processes'), 'manage');
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await env?.close();
});

async function createProduct(origin: string, name: string): Promise<number> {
  const res = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
    body: JSON.stringify({ query: CREATE, variables: { input: { name } } }),
  });
  const body = await res.json();
  expect(body.errors, output).toBeUndefined();
  return body.data.createProduct.product.id;
}

describe('fan-out across API processes', () => {
  it('a write through a second API process reaches a subscriber of the first, and the other way round', async () => {
    const onFirst = collect(sseClient(first, key.key), PRODUCTS);
    const onSecond = collect(sseClient(second, key.key), PRODUCTS);
    await expect.poll(() => openStreams(env)).toBe(1);
    // the second process's stream is open once it answers with the stream's headers: a write then reaches it
    await until(
      () => fetch(`${second}/metrics`).then((r) => r.text()),
      (text) => /^shelf_live_streams 1$/m.test(text),
    );
    const viaSecond = await createProduct(second, 'Written through the second process');
    const viaFirst = await createProduct(first, 'Written through the first process');
    await expect.poll(() => onFirst.data('productChanges').map((c) => c.productId)).toEqual([viaSecond, viaFirst]);
    await expect.poll(() => onSecond.data('productChanges').map((c) => c.productId)).toEqual([viaSecond, viaFirst]);
    onFirst.dispose();
    onSecond.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
  });

  it('SIGTERM ends every stream with server_draining and a reconnect hint, the process exits 0, and a reconnect elsewhere with the last position loses nothing', async () => {
    const stream = collect(sseClient(second, key.key), PRODUCTS);
    await until(
      () => fetch(`${second}/metrics`).then((r) => r.text()),
      (text) => /^shelf_live_streams 1$/m.test(text),
    );
    const before = await createProduct(first, 'Before the restart');
    await expect.poll(() => stream.data('productChanges').map((c) => c.productId)).toEqual([before]);
    child.kill('SIGTERM');
    await expect.poll(() => stream.results.at(-1)?.errors?.[0]?.extensions).toEqual({ code: 'server_draining', reconnect: true });
    expect(await exited, output).toBe(0);
    expect(stream.completed).toBe(false);
    // written while the client reconnects
    const during = await createProduct(first, 'During the restart');
    const resumed = collect(sseClient(first, key.key), PRODUCTS, { after: stream.data('productChanges')[0].position });
    await expect.poll(() => resumed.data('productChanges').map((c) => c.productId)).toEqual([during]);
    resumed.dispose();
    await expect.poll(() => openStreams(env)).toBe(0);
  });
});
