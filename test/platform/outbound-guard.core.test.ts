import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundFailedError, OutboundGuard, OutboundRefusedError } from '../../src/core/platform/outbound/outbound-guard.ts';
import { startDnsStub, type DnsStub } from '../support/dns-stub.ts';

let server: Server;
let port: number;
let connections = 0;
let dns: DnsStub;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest' });
      res.end();
    } else if (req.url === '/big') {
      res.end(Buffer.alloc(200 * 1024, 'a'));
    } else if (req.url === '/file') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.from('exact bytes'));
    } else if (req.url === '/huge-declared') {
      res.writeHead(200, { 'content-length': String(10_000) });
      res.end(Buffer.alloc(10_000));
    } else if (req.url === '/huge-chunked') {
      res.writeHead(200);
      res.write(Buffer.alloc(6_000));
      res.end(Buffer.alloc(6_000));
    } else if (req.url === '/trickle') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    } else if (req.url === '/hang') {
      // never answers
    } else {
      res.end('ok');
    }
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  dns = await startDnsStub({ 'rebind.test': ['8.8.8.8', '127.0.0.1'], 'private.test': ['10.0.0.7'], 'mixed.test': ['127.0.0.1'] });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await dns.close();
});

async function refusal(promise: Promise<unknown>): Promise<OutboundRefusedError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(OutboundRefusedError);
  return error as OutboundRefusedError;
}

describe('the outbound guard refuses non-public addresses before any connection', () => {
  const guard = () => new OutboundGuard({ allowHosts: [], resolve: (h) => dns.resolve(h) });

  it.each([
    ['loopback', 'http://127.0.0.1:PORT/'],
    ['another loopback address', 'http://127.8.9.10:PORT/'],
    ['10/8', 'http://10.1.2.3/'],
    ['172.16/12', 'http://172.20.0.1/'],
    ['192.168/16', 'http://192.168.1.1/'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['carrier-grade NAT', 'http://100.64.0.1/'],
    ['0.0.0.0', 'http://0.0.0.0:PORT/'],
    ['IPv6 loopback', 'http://[::1]:PORT/'],
    ['IPv6 unique-local fc00::/7', 'http://[fd12:3456::1]/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:PORT/'],
    ['a decimal spelling of loopback', 'http://2130706433:PORT/'],
    ['a hex spelling of loopback', 'http://0x7f000001:PORT/'],
    ['a short dotted spelling of loopback', 'http://127.1:PORT/'],
    ['a name resolving to a private address', 'http://private.test/'],
  ])('refuses %s with private_address and opens no connection', async (_what, template) => {
    const before = connections;
    const url = template.replace('PORT', String(port));
    const error = await refusal(guard().post(url, '{}', { headers: {}, timeoutMs: 2000 }));
    expect(error.reason).toBe('private_address');
    await refusal(guard().checkUrl(url));
    expect(connections).toBe(before);
  });

  it('refuses a host whose DNS answer changes between the check and the connection, and never connects', async () => {
    const before = connections;
    const g = guard();
    const checked = await g.checkUrl(`http://rebind.test:${port}/`);
    expect(checked.hostname).toBe('rebind.test');
    const error = await refusal(g.post(`http://rebind.test:${port}/`, '{}', { headers: {}, timeoutMs: 2000 }));
    expect(error.reason).toBe('private_address');
    expect(dns.queries.get('rebind.test')).toBe(2);
    expect(connections).toBe(before);
  });

  it.each([
    ['a non-HTTP scheme', 'ftp://example.com/x', 'scheme_not_allowed'],
    ['a file URL', 'file:///etc/passwd', 'scheme_not_allowed'],
    ['credentials in the URL', 'https://user:secret@example.com/x', 'credentials_in_url'],
    ['a relative URL', '/just/a/path', 'invalid_url'],
    ['a name that does not resolve', 'http://nowhere.test/', 'host_unresolvable'],
  ])('refuses %s with %s', async (_what, url, reason) => {
    expect((await refusal(guard().checkUrl(url))).reason).toBe(reason);
  });
});

describe('the outbound guard lets allowlisted host:port through, bounded', () => {
  const allowed = () => new OutboundGuard({ allowHosts: [`127.0.0.1:${port}`, 'mixed.test'], resolve: (h) => dns.resolve(h) });

  it('POSTs to an allowlisted host:port and returns status, headers and body', async () => {
    const response = await allowed().post(`http://127.0.0.1:${port}/ok`, '{}', { headers: { 'content-type': 'application/json' }, timeoutMs: 2000 });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('ok');
  });

  it('resolves and checks the host again for every request to a URL it has seen', async () => {
    const g = allowed();
    const queries = () => dns.queries.get('mixed.test') ?? 0;
    const before = queries();
    await g.post(`http://mixed.test:${port}/ok`, '{}', { headers: {}, timeoutMs: 2000 });
    const perRequest = queries() - before;
    expect(perRequest).toBeGreaterThan(0);
    await g.post(`http://mixed.test:${port}/ok`, '{}', { headers: {}, timeoutMs: 2000 });
    await g.post(`http://mixed.test:${port}/ok`, '{}', { headers: {}, timeoutMs: 2000 });
    expect(queries() - before).toBe(3 * perRequest);
    await g.close();
  });

  it('refuses the same host on another port', async () => {
    expect((await refusal(allowed().checkUrl(`http://127.0.0.1:${port + 1}/`))).reason).toBe('private_address');
  });

  it('exempts a host entry without a port on any port', async () => {
    const response = await allowed().post(`http://mixed.test:${port}/ok`, '{}', { headers: {}, timeoutMs: 2000 });
    expect(response.status).toBe(200);
  });

  it('does not follow a redirect (the 302 is the answer)', async () => {
    const response = await allowed().post(`http://127.0.0.1:${port}/redirect`, '{}', { headers: {}, timeoutMs: 2000 });
    expect(response.status).toBe(302);
  });

  it('reads at most 64 KiB of an answer', async () => {
    const response = await allowed().post(`http://127.0.0.1:${port}/big`, '{}', { headers: {}, timeoutMs: 2000 });
    expect(response.body.length).toBe(64 * 1024);
  });

  it('times out a receiver that never answers', async () => {
    const error = await allowed().post(`http://127.0.0.1:${port}/hang`, '{}', { headers: {}, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundFailedError);
    expect((error as OutboundFailedError).kind).toBe('timeout');
  });
});

describe('the outbound guard downloads within time and size', () => {
  const allowed = () => new OutboundGuard({ allowHosts: [`127.0.0.1:${port}`], resolve: (h) => dns.resolve(h) });
  const collect = () => {
    const chunks: Buffer[] = [];
    return { chunks, sink: (c: Buffer) => void chunks.push(c) };
  };

  it('delivers the exact bytes of a file within the limits', async () => {
    const { chunks, sink } = collect();
    const result = await allowed().download(`http://127.0.0.1:${port}/file`, { timeoutMs: 2000, maxBytes: 100, sink });
    expect(result).toEqual({ status: 200, bytes: 11, contentType: 'application/octet-stream' });
    expect(Buffer.concat(chunks).toString()).toBe('exact bytes');
  });

  it('refuses an oversize file from its Content-Length before reading it', async () => {
    const { chunks, sink } = collect();
    const error = await allowed().download(`http://127.0.0.1:${port}/huge-declared`, { timeoutMs: 2000, maxBytes: 5_000, sink }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'too_large' });
    expect(chunks).toHaveLength(0);
  });

  it('cuts off an oversize file without Content-Length while streaming', async () => {
    const { sink } = collect();
    const error = await allowed().download(`http://127.0.0.1:${port}/huge-chunked`, { timeoutMs: 2000, maxBytes: 8_000, sink }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'too_large' });
  });

  it('fails a server that trickles bytes past the whole-download timeout', async () => {
    const { sink } = collect();
    const error = await allowed().download(`http://127.0.0.1:${port}/trickle`, { timeoutMs: 300, maxBytes: 1_000_000, sink }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout' });
  });

  it('fails a redirect without fetching its target', async () => {
    const { sink } = collect();
    const error = await allowed().download(`http://127.0.0.1:${port}/redirect`, { timeoutMs: 2000, maxBytes: 100, sink }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'protocol_error' });
  });
});
