import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptLimiter } from '../../src/core/platform/attempt-limiter.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { type PrivateRedis, privateRedis } from '../support/private-redis.ts';

let env: TestEnv;
let redis: PrivateRedis;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let key: GivenKey;
let otherKey: GivenKey;
let thirdKey: GivenKey;
let token: string;

beforeAll(async () => {
  redis = await privateRedis();
  files = await tempDir('throttle-files');
  storage = await tempDir('throttle-storage');
  env = await createTestEnv({ REDIS_URL: redis.url, STORAGE_DIR: storage.path });
  const team = await given(env).team();
  key = await given(env).key(team, 'view_only');
  otherKey = await given(env).key(team, 'view_only');
  thirdKey = await given(env).key(team, 'view_only');
  await writeImage(join(files.path, 'a.png'), { width: 4, height: 4, colour: '#00ff00', format: 'png' });
  await given(env).libraryFile(team, { file: join(files.path, 'a.png'), folder: '/locked' });
  token = (await env.core.assets.shares.create(env.core.operatorCtx(), { team: team.teamId, folder: '/locked', password: 'open sesame' })).linkToken;
});
afterAll(async () => {
  await env.close();
  await redis.stop();
  await files.remove();
  await storage.remove();
});

const search = (password: string, k: GivenKey = key) =>
  send(env, { method: 'POST', url: '/open/search-share', key: k.key, body: { linkToken: token, password } });

describe('the attempt counter is connected when the service starts', () => {
  // first in the file: these are the limiter's first requests after the app was built
  it('answers 20 concurrent correct-password searches right after start with 200 each', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => search('open sesame')));
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(answers.every((res) => res.body.result.totalCount === 1)).toBe(true);
  });

  it('lets 20 concurrent first checks of a limiter that was never connected wait for the connection instead of failing', async () => {
    const limiter = new AttemptLimiter({ redisUrl: redis.url, prefix: `${env.config.queuePrefix}-cold` });
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => limiter.check(`cold-${i}`)));
      expect(outcomes.map((o) => o.status)).toEqual(Array(20).fill('fulfilled'));
    } finally {
      await limiter.close();
    }
  });
});

describe('share passwords cannot be guessed without limit', () => {
  it('answers 10 wrong passwords with 403, then 429 too_many_attempts with Retry-After, even for the right password', async () => {
    for (let i = 0; i < 10; i++) expect((await search(`wrong-${i}`)).body.code).toBe('share_password_invalid');
    const blocked = await search('wrong-11');
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: 'too_many_attempts', result: null });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await search('open sesame')).status).toBe(429);
  });

  it("counts per caller: another key's attempts are not blocked", async () => {
    const res = await search('open sesame', otherKey);
    expect(res.status).toBe(200);
    expect(res.body.result.totalCount).toBe(1);
  });

  it('keeps one error listener on its Redis client however many attempts it counts (no listener leak)', async () => {
    for (let i = 0; i < 15; i++) await search('wrong', otherKey);
    // biome-ignore lint/complexity/useLiteralKeys: the limiter's Redis client is private; the test reaches it on purpose
    const client = env.core.platform.attemptLimiter['client'];
    expect(client).not.toBeNull();
    expect(client!.listenerCount('error')).toBe(1);
  });

  it('reports /readyz 503 (redis down) while the attempt counter is not connected, and 200 once it is', async () => {
    await env.core.platform.attemptLimiter.close();
    const notYet = await send(env, { url: '/readyz' });
    expect(notYet).toMatchObject({ status: 503, body: { status: 'not_ready', postgres: 'ok', redis: 'down' } });
    await expect.poll(async () => (await send(env, { url: '/readyz' })).status, { timeout: 15_000 }).toBe(200);
  });

  it('refuses with 503 service_unavailable when the attempt counter (Redis) is down, rather than letting guesses through, and serves again once it is back', async () => {
    await redis.stop();
    const res = await search('another-guess', otherKey);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('service_unavailable');
    expect((await send(env, { url: '/readyz' })).status).toBe(503);
    await redis.start();
    await expect.poll(async () => (await send(env, { url: '/readyz' })).status, { timeout: 15_000 }).toBe(200);
    expect((await search('open sesame', thirdKey)).status).toBe(200);
  });
});
