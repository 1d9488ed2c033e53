import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';

let env: TestEnv;
let port: number;

beforeAll(async () => {
  env = await createTestEnv();
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  port = (env.app.server.address() as AddressInfo).port;
});
afterAll(() => env.close());

/** Sends a raw request over a real socket (inject has no head limit) and returns the status line, headers and body. */
function raw(request: string): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = [data.slice(0, data.indexOf('\r\n\r\n')), data.slice(data.indexOf('\r\n\r\n') + 4)];
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: body ? JSON.parse(body) : null });
    });
    socket.write(request);
  });
}

describe('a request head over Node\'s limit is answered in its area\'s envelope (issue 12 item 7)', () => {
  it('answers a 40 KB query string on /v1 with 414 in the Area A envelope', async () => {
    const res = await raw(`GET /v1/products?search=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({ success: false, data: null, code: 'uri_too_long', requestId: expect.any(String) });
  });

  it('answers a 40 KB query string on /open with 414 in the open envelope', async () => {
    const res = await raw(`POST /open/search-assets?x=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({ code: 'uri_too_long', result: null, traceId: expect.any(String) });
  });

  it('answers oversized headers with 431 in the envelope of the path', async () => {
    const res = await raw(`GET /v1/brands HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(40_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({ success: false, code: 'request_header_too_large' });
    expect(res.headers).toContain('Cache-Control: no-store');
  });

  it('answers /graphql as GraphQL does: errors[] with extensions.code and an X-Request-Id', async () => {
    const res = await raw(`GET /graphql?query=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ errors: [{ message: 'The request URL is too long', extensions: { code: 'uri_too_long' } }] });
    expect(res.headers).toMatch(/X-Request-Id: [\w-]+/);
  });

  it('answers /approval in its envelope', async () => {
    const res = await raw(`POST /approval?x=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res).toMatchObject({ status: 414, body: { code: 'invalid_payload:uri_too_long', result: null } });
  });
});
