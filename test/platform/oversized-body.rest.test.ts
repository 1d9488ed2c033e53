import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';

/*
 * Spec 8 / docs/api-conventions.md "Input limits": a body over 1 MiB is refused with 413 in the
 * area's envelope. A client that sends its whole body before reading (curl, most SDKs) must read
 * that answer, not a reset connection: the server answers, then reads and drops what the client
 * still sends, and closes only after that. Real sockets: inject has no connection to reset.
 */

let env: TestEnv;
let manager: GivenKey;
let port: number;

beforeAll(async () => {
  env = await createTestEnv();
  manager = await given(env).key(await given(env).team(), 'manage');
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  port = (env.app.server.address() as { port: number }).port;
});
afterAll(async () => env.close());

/** Writes the request head and the whole body as fast as the socket takes it, then reads everything the server sends. */
function postWhole(path: string, bodyBytes: number, headers: Record<string, string>): Promise<{ raw: string; writeError: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    let writeError: string | null = null;
    socket.on('data', (d) => (raw += d.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      // a reset while writing is what the test is about: record it, and keep what was read
      writeError = e.code ?? e.message;
    });
    socket.on('close', () => resolve({ raw, writeError }));
    socket.on('connect', async () => {
      const chunked = headers['transfer-encoding'] === 'chunked';
      const head = [
        `POST ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        ...(chunked ? [] : [`Content-Length: ${bodyBytes}`]),
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      try {
        while (sent < bodyBytes && !socket.destroyed) {
          const part = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent));
          sent += part.length;
          if (chunked) socket.write(`${part.length.toString(16)}\r\n`);
          if (!socket.write(chunked ? Buffer.concat([part, Buffer.from('\r\n')]) : part)) await new Promise((r) => socket.once('drain', r));
        }
        if (chunked) socket.end('0\r\n\r\n');
        else socket.end();
      } catch (e) {
        reject(e);
      }
    });
  });
}

function statusAndBody(raw: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const bodyStart = raw.indexOf('\r\n\r\n');
  const text = raw.slice(bodyStart + 4);
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  return { status, body: JSON.parse(json) };
}

describe('an oversized body gets its 413 envelope at the client (real sockets)', () => {
  for (const megabytes of [2, 50]) {
    it(`a ${megabytes} MB POST /v1/product-info-templates is answered 413 payload_too_large, read by the client before the connection closes`, async () => {
      const { raw, writeError } = await postWhole('/v1/product-info-templates', megabytes * 1024 * 1024, {
        authorization: `Bearer ${manager.key}`,
        'content-type': 'application/json',
      });
      expect(writeError).toBeNull();
      const { status, body } = statusAndBody(raw);
      expect(status).toBe(413);
      expect(body).toMatchObject({ success: false, code: 'payload_too_large', data: null });
    });

    it(`a ${megabytes} MB chunked POST /v1/product-info-templates (no Content-Length) is answered 413 payload_too_large`, async () => {
      const { raw, writeError } = await postWhole('/v1/product-info-templates', megabytes * 1024 * 1024, {
        authorization: `Bearer ${manager.key}`,
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      });
      // the server read the rest of the body rather than resetting the connection under it
      expect(writeError).toBeNull();
      const { status, body } = statusAndBody(raw);
      expect(status).toBe(413);
      expect(body).toMatchObject({ success: false, code: 'payload_too_large', data: null });
    });
  }

  it('a 50 MB POST /open/search-assets gets the open envelope 413', async () => {
    const { raw } = await postWhole('/open/search-assets', 50 * 1024 * 1024, { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' });
    const { status, body } = statusAndBody(raw);
    expect(status).toBe(413);
    expect(body.code).not.toBe(0);
    expect(JSON.stringify(body)).toContain('too');
  });

  it('a 50 MB POST /graphql gets the GraphQL-shaped 413', async () => {
    const { raw } = await postWhole('/graphql', 50 * 1024 * 1024, { authorization: `Bearer ${manager.key}`, 'content-type': 'application/json' });
    const { status, body } = statusAndBody(raw);
    expect(status).toBe(413);
    expect(body.errors[0].extensions.code).toBe('payload_too_large');
  });

  it('nothing was created by the refused bodies', async () => {
    const rows = await env.orm.em.fork().execute('select count(*)::int as n from product_info_templates where team_id = ?', [manager.teamId]);
    expect(rows[0]!.n).toBe(0);
  });
});
