import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
let port: number;
let key: GivenKey;

beforeAll(async () => {
  env = await createTestEnv();
  key = await given(env).key(await given(env).team('Clients'), 'manage');
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  port = (env.app.server.address() as AddressInfo).port;
});
afterAll(() => env.close());

const brandCount = async () => (await env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from brands'))[0]!.n;

/** Sends a raw request over a real socket (inject has no head limit) and returns the status line, headers and body. */
function raw(request: string): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = [data.slice(0, data.indexOf('\r\n\r\n')), data.slice(data.indexOf('\r\n\r\n') + 4)];
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: body ? JSON.parse(body) : null });
    });
    socket.write(Buffer.from(request, 'latin1'));
  });
}

describe("a request head over Node's limit is answered in its area's envelope", () => {
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
    expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'uri_too_long' } }] });
    expect(res.headers).toMatch(/X-Request-Id: [\w-]+/);
  });

  it('answers /approval in its envelope', async () => {
    const res = await raw(`POST /approval?x=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res).toMatchObject({ status: 414, body: { code: 'invalid_payload:uri_too_long', result: null } });
  });
});

describe("a request Node's HTTP parser refuses is a 400 in its area's envelope, with an X-Request-Id, and nothing is stored", () => {
  const json = (body: string) => `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  it('answers a control byte in a header value on /v1 with 400 bad_request naming the header, and creates no brand', async () => {
    const before = await brandCount();
    const res = await raw(`POST /v1/brands HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.key}\r\nX-Trace: a\x01b\r\n${json('{"name":"Ctl"}')}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null, code: 'bad_request', details: [{ field: 'X-Trace' }] });
    expect(res.headers).toContain(`X-Request-Id: ${res.body.requestId}`);
    expect(await brandCount()).toBe(before);
  });

  it('answers /open and /approval in their envelopes', async () => {
    const open = await raw(`POST /open/search-assets HTTP/1.1\r\nHost: x\r\nX-Trace: a\x7fb\r\n\r\n`);
    expect(open).toMatchObject({ status: 400, body: { code: 'bad_request', result: null, traceId: expect.any(String), details: [{ field: 'X-Trace' }] } });
    expect(open.headers).toContain(`X-Request-Id: ${open.body.traceId}`);
    const approval = await raw(`POST /approval HTTP/1.1\r\nHost: x\r\nBad Name: b\r\n\r\n`);
    expect(approval).toMatchObject({ status: 400, body: { code: 'invalid_payload:bad_request', result: null, details: [{ field: 'Bad Name' }] } });
  });

  it.each([
    ['a Content-Length that is not a number', 'Content-Length: abc\r\n\r\n', 'Content-Length'],
    ['two Content-Lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 'Content-Length'],
    ['Content-Length with Transfer-Encoding', 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 'Transfer-Encoding'],
    [
      'a chunk size that is not hex',
      `Authorization: Bearer KEY\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{"name":"Chunk"}\r\n0\r\n\r\n`,
      '(body)',
    ],
  ])('answers %s with 400 bad_request naming %s, and creates no brand', async (_what, rest, field) => {
    const before = await brandCount();
    const res = await raw(`POST /v1/brands HTTP/1.1\r\nHost: x\r\n${rest.replace('KEY', key.key)}`);
    expect(res).toMatchObject({ status: 400, body: { code: 'bad_request', details: [{ field }] } });
    expect(await brandCount()).toBe(before);
  });

  it.each([
    ['an unknown method', 'BREW /v1/brands HTTP/1.1', '(method)'],
    ['a control byte in the path', 'GET /v1/br\x01ands HTTP/1.1', '(url)'],
    ['a raw non-ASCII byte in the query', 'GET /v1/brands?q=\xe9 HTTP/1.1', '(url)'],
  ])('answers %s with 400 bad_request naming %s', async (_what, line, field) => {
    const res = await raw(`${line}\r\nHost: x\r\n\r\n`);
    expect(res).toMatchObject({ status: 400, body: { success: false, code: 'bad_request', details: [{ field }] } });
  });

  it('answers bytes that are not HTTP at all (a TLS hello) in the Area A envelope', async () => {
    const res = await raw('\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03');
    expect(res).toMatchObject({ status: 400, body: { success: false, code: 'bad_request', requestId: expect.any(String) } });
  });

  it("answers an HTTP/1.1 request without Host with 400 bad_request naming Host, in the area's envelope, and creates no brand", async () => {
    const before = await brandCount();
    const v1 = await raw(`POST /v1/brands HTTP/1.1\r\nAuthorization: Bearer ${key.key}\r\nConnection: close\r\n${json('{"name":"NoHost"}')}`);
    expect(v1).toMatchObject({ status: 400, body: { success: false, code: 'bad_request', details: [{ field: 'Host' }] } });
    expect(v1.headers.toLowerCase()).toContain(`x-request-id: ${v1.body.requestId}`.toLowerCase());
    const open = await raw('POST /open/search-assets HTTP/1.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    expect(open).toMatchObject({ status: 400, body: { code: 'bad_request', result: null, details: [{ field: 'Host' }] } });
    const approval = await raw('POST /approval HTTP/1.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    expect(approval).toMatchObject({ status: 400, body: { code: 'invalid_payload:bad_request' } });
    expect(await brandCount()).toBe(before);
  });
});

describe("what Fastify answers before routing stays in the area's envelope", () => {
  it("answers an Expect other than 100-continue with 417 expectation_failed in the area's envelope, and creates no brand", async () => {
    const before = await brandCount();
    const body = '{"name":"Tea"}';
    const res = await raw(
      `POST /v1/brands HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.key}\r\nExpect: tea\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(res).toMatchObject({ status: 417, body: { success: false, code: 'expectation_failed', details: [{ field: 'Expect' }] } });
    expect(res.headers).toContain(`X-Request-Id: ${res.body.requestId}`);
    expect(await brandCount()).toBe(before);
    const open = await raw('POST /open/search-assets HTTP/1.1\r\nHost: x\r\nExpect: tea\r\nContent-Length: 0\r\n\r\n');
    expect(open).toMatchObject({ status: 417, body: { code: 'expectation_failed', result: null } });
  });

  it('answers an undecodable path (%zz) in the envelope of its area', async () => {
    expect(await send(env, { url: '/v1/brands/%zz', key: key.key })).toMatchObject({
      status: 422,
      body: { success: false, code: 'validation_failed', details: [{ field: '(url)' }] },
    });
    expect(await send(env, { method: 'POST', url: '/open/%zz', key: key.key })).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', result: null, details: [{ field: '(url)' }] },
    });
    expect(await send(env, { method: 'POST', url: '/approval/%zz', key: key.key })).toMatchObject({
      status: 400,
      body: { code: 'invalid_payload:invalid_parameter', result: null },
    });
  });

  it('takes an undecodable query value (%zz) as its literal text', async () => {
    const res = await send(env, { url: '/v1/products?search=%zz', key: key.key });
    expect(res.status).toBe(200);
  });

  it("answers a method no route has with 404 not_found in the area's envelope", async () => {
    expect(await send(env, { method: 'PUT', url: '/v1/brands', key: key.key })).toMatchObject({ status: 404, body: { success: false, code: 'not_found' } });
    expect(await send(env, { method: 'PUT', url: '/open/search-assets', key: key.key })).toMatchObject({
      status: 404,
      body: { code: 'not_found', result: null },
    });
  });

  it('takes a JSON body that starts with a byte order mark, and the first of two Content-Types', async () => {
    const bom = await send(env, {
      method: 'POST',
      url: '/v1/brands',
      key: key.key,
      rawBody: '\ufeff{"name":"Bom"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(bom).toMatchObject({ status: 201, body: { data: { name: 'Bom' } } });
    const body = '{"name":"Twice"}';
    const twice = await raw(
      `POST /v1/brands HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.key}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(twice).toMatchObject({ status: 201, body: { data: { name: 'Twice' } } });
  });
});
