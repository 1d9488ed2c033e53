import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { given, type GivenKey } from '../support/given.ts';
import { send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { privateRedis, type PrivateRedis } from '../support/private-redis.ts';

let env: TestEnv;
let redis: PrivateRedis;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let key: GivenKey;
let otherKey: GivenKey;
let token: string;

beforeAll(async () => {
  redis = await privateRedis();
  files = await tempDir('throttle-files');
  storage = await tempDir('throttle-storage');
  env = await createTestEnv({ REDIS_URL: redis.url, STORAGE_DIR: storage.path });
  const team = await given(env).team();
  key = await given(env).key(team, 'view_only');
  otherKey = await given(env).key(team, 'view_only');
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

const search = (password: string, k: GivenKey = key) => send(env, { method: 'POST', url: '/open/search-share', key: k.key, body: { linkToken: token, password } });

describe('share passwords cannot be guessed without limit (issue 12 item 7)', () => {
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
    const client = env.core.platform.attemptLimiter['client'];
    expect(client).not.toBeNull();
    expect(client!.listenerCount('error')).toBe(1);
  });

  it('refuses with 503 service_unavailable when the attempt counter (Redis) is down, rather than letting guesses through', async () => {
    await redis.stop();
    const res = await search('another-guess', otherKey);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('service_unavailable');
    await redis.start();
  });
});
