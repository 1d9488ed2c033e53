import { readFile } from 'node:fs/promises';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

/*
 * One source of the release version (docs/releases.md): package.json's `version`, reported by
 * /healthz, the OpenAPI document's info.version, the X-Shelf-Version header of every response and
 * `shelf --version`. The expected value is read from package.json here, not from src/version.ts.
 */

const packageVersion: string = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version;
const NO_DATABASE = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' };

let env: TestEnv;
let manager: GivenKey;
let port: number;

beforeAll(async () => {
  env = await createTestEnv();
  manager = await given(env).key(await given(env).team('Versions'), 'manage');
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  port = (env.app.server.address() as AddressInfo).port;
});
afterAll(() => env.close());

/** A raw request over a real socket, for what Node's parser refuses before Fastify sees it. */
function rawHead(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(data.slice(0, data.indexOf('\r\n\r\n'))));
    socket.write(Buffer.from(request, 'latin1'));
  });
}

describe('the release version, from package.json', () => {
  it('is a semantic version', () => {
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/);
  });

  it('/healthz reports it', async () => {
    const res = await send(env, { url: '/healthz' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: packageVersion });
  });

  it("the OpenAPI document's info.version is it, served and checked in", async () => {
    const served = await send(env, { url: '/v1/openapi.json' });
    expect(served.body.info.version).toBe(packageVersion);
    const checkedIn = JSON.parse(await readFile(new URL('../../schema/openapi.json', import.meta.url), 'utf8'));
    expect(checkedIn.info.version).toBe(packageVersion);
  });

  describe('X-Shelf-Version on every response', () => {
    const cases: Array<[string, () => Promise<{ headers: Record<string, string | undefined> }>]> = [
      ['a successful read', () => send(env, { url: '/v1/brands', key: manager.key })],
      ['a 401', () => send(env, { url: '/v1/brands' })],
      ['a 404 for an unknown route', () => send(env, { url: '/v1/unknown', key: manager.key })],
      ['a 422', () => send(env, { method: 'POST', url: '/v1/brands', key: manager.key, body: {} })],
      ['an open-area failure', () => send(env, { method: 'POST', url: '/open/search-assets', body: {} })],
      ['a router failure (a path parameter past the router limit)', () => send(env, { url: `/v1/brands/${'x'.repeat(1100)}`, key: manager.key })],
      ['a GraphQL response', () => graphql(env, manager.key, '{ __typename }')],
      ['the health check', () => send(env, { url: '/healthz' })],
      ['the metrics', () => send(env, { url: '/metrics' })],
    ];
    for (const [label, request] of cases) {
      it(`on ${label}`, async () => {
        const res = await request();
        expect(res.headers['x-shelf-version']).toBe(packageVersion);
      });
    }

    it("on a request Node's parser refuses (oversized headers, answered on the raw socket)", async () => {
      const head = await rawHead(`GET /v1/brands HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(40_000)}\r\n\r\n`);
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head).toContain(`X-Shelf-Version: ${packageVersion}\r\n`);
    });

    it('on an Expect other than 100-continue (417, answered before any route)', async () => {
      const head = await rawHead('GET /v1/brands HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nConnection: close\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 417 /);
      expect(head.toLowerCase()).toContain(`x-shelf-version: ${packageVersion}`);
    });
  });

  it('shelf --version prints it without a database', async () => {
    const res = await runCli(['--version'], NO_DATABASE);
    expect(res.code).toBe(0);
    expect(res.json).toEqual({ version: packageVersion });
  });

  it(
    'shelf --version prints it as a process of its own, exit 0',
    async () => {
      const res = await spawnCli(['--version'], NO_DATABASE);
      expect(res.code).toBe(0);
      expect(res.stdout).toBe(`${JSON.stringify({ version: packageVersion })}\n`);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it("a command's own --version flag is still that command's (asset version add needs --user and --file)", async () => {
    const res = await runCli(['asset', 'version', 'add', '--version', 'x'], NO_DATABASE);
    expect(res.code).toBe(1);
    expect(res.json.error.code).toBe('validation_failed');
  });
});
