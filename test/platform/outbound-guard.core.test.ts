import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundFailedError, OutboundGuard, OutboundRefusedError } from '../../src/core/platform/outbound/outbound-guard.ts';
import { type DnsStub, startDnsStub } from '../support/dns-stub.ts';

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
  dns = await startDnsStub({
    'rebind.test': ['8.8.8.8', '127.0.0.1'],
    'private.test': ['10.0.0.7'],
    'mixed.test': ['127.0.0.1'],
    'v6-loopback.test': ['::1'],
    'compatible.test': ['::7f00:1'],
    'mapped.test': ['::ffff:169.254.169.254'],
    'translated.test': ['::ffff:0:10.0.0.7'],
    'nat64.test': ['64:ff9b::7f00:1'],
    'nat64-local.test': ['64:ff9b:1::808:808'],
    '6to4.test': ['2002:a00:7::1'],
    'teredo.test': ['2001:0:808:808::80ff:fffe'],
    'isatap.test': ['2a00:1450::200:5efe:a00:7'],
    'unspecified.test': ['::'],
    'dual.test': [['8.8.8.8', '::7f00:1']],
    'public-nat64.test': [['64:ff9b::808:808', '2002:808:808::1']],
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await dns.close();
});

async function refusal(promise: Promise<unknown>): Promise<OutboundRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
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
    ['the IPv6 unspecified address ::', 'http://[::]:PORT/'],
    ['IPv6 loopback', 'http://[::1]:PORT/'],
    ['IPv6 unique-local fc00::/7', 'http://[fd12:3456::1]/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:PORT/'],
    ['IPv4-mapped IPv6 loopback in hex', 'http://[::ffff:7f00:1]:PORT/'],
    ['the IPv4-mapped metadata address', 'http://[::ffff:169.254.169.254]/'],
    ['IPv4-mapped 0.0.0.0', 'http://[::ffff:0.0.0.0]:PORT/'],
    ['IPv4-compatible loopback ::127.0.0.1 (the URL parser writes ::7f00:1)', 'http://[::127.0.0.1]:PORT/'],
    ['IPv4-compatible loopback in hex', 'http://[::7f00:1]:PORT/'],
    ['IPv4-compatible loopback in full', 'http://[0:0:0:0:0:0:127.0.0.1]:PORT/'],
    ['an IPv4-compatible private address', 'http://[::10.0.0.7]/'],
    ['IPv4-translated loopback ::ffff:0:127.0.0.1', 'http://[::ffff:0:127.0.0.1]:PORT/'],
    ['NAT64 well-known prefix over loopback', 'http://[64:ff9b::127.0.0.1]:PORT/'],
    ['NAT64 well-known prefix over the metadata address', 'http://[64:ff9b::a9fe:a9fe]/'],
    ['NAT64 well-known prefix over 10/8', 'http://[64:ff9b::10.0.0.7]/'],
    ['the NAT64 local-use prefix, whatever it carries', 'http://[64:ff9b:1::8.8.8.8]/'],
    ['the NAT64 local-use prefix over loopback', 'http://[64:ff9b:1::127.0.0.1]:PORT/'],
    ['6to4 over loopback', 'http://[2002:7f00:1::1]:PORT/'],
    ['6to4 over the metadata address', 'http://[2002:a9fe:a9fe::1]/'],
    ['Teredo with a loopback client (stored inverted)', 'http://[2001:0:808:808::80ff:fffe]:PORT/'],
    ['Teredo with a private server', 'http://[2001:0:a00:7::f7f7:f7f7]/'],
    ['an ISATAP interface identifier over loopback', 'http://[2a00:1450::200:5efe:127.0.0.1]:PORT/'],
    ['an ISATAP interface identifier over 10/8', 'http://[2a00:1450::5efe:a00:7]/'],
    ['an IPv6 address outside global unicast 2000::/3', 'http://[4000::1]/'],
    ['IPv6 documentation 2001:db8::/32', 'http://[2001:db8::1]/'],
    ['a decimal spelling of loopback', 'http://2130706433:PORT/'],
    ['a hex spelling of loopback', 'http://0x7f000001:PORT/'],
    ['a short dotted spelling of loopback', 'http://127.1:PORT/'],
    ['a name resolving to a private address', 'http://private.test/'],
    ['a name with an AAAA record of IPv6 loopback', 'http://v6-loopback.test:PORT/'],
    ['a name with an AAAA record of IPv4-compatible loopback', 'http://compatible.test:PORT/'],
    ['a name with an AAAA record of the IPv4-mapped metadata address', 'http://mapped.test/'],
    ['a name with an AAAA record of IPv4-translated 10/8', 'http://translated.test/'],
    ['a name with an AAAA record of NAT64 loopback', 'http://nat64.test:PORT/'],
    ['a name with an AAAA record in the NAT64 local-use prefix', 'http://nat64-local.test/'],
    ['a name with an AAAA record of 6to4 over 10/8', 'http://6to4.test/'],
    ['a name with an AAAA record of Teredo with a loopback client', 'http://teredo.test:PORT/'],
    ['a name with an AAAA record of ISATAP over 10/8', 'http://isatap.test/'],
    ['a name with an AAAA record of ::', 'http://unspecified.test:PORT/'],
    ['a name with a public A record and an IPv4-compatible loopback AAAA record', 'http://dual.test:PORT/'],
  ])('refuses %s with private_address and opens no connection', async (_what, template) => {
    const before = connections;
    const url = template.replace('PORT', String(port));
    const error = await refusal(guard().post(url, '{}', { headers: {}, timeoutMs: 2000 }));
    expect(error.reason).toBe('private_address');
    const download = await refusal(guard().download(url, { timeoutMs: 2000, maxBytes: 100, sink: () => {} }));
    expect(download.reason).toBe('private_address');
    expect((await refusal(guard().checkUrl(url))).reason).toBe('private_address');
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

describe('the outbound guard judges an IPv6 address that carries IPv4 by the address it carries', () => {
  const guard = () => new OutboundGuard({ allowHosts: [], resolve: (h) => dns.resolve(h) });

  // checkUrl only: these are public addresses, and tests never send traffic beyond loopback
  it.each([
    ['IPv4-mapped', 'http://[::ffff:8.8.8.8]/'],
    ['IPv4-compatible', 'http://[::8.8.8.8]/'],
    ['IPv4-translated', 'http://[::ffff:0:8.8.8.8]/'],
    ['NAT64 well-known prefix', 'http://[64:ff9b::8.8.8.8]/'],
    ['6to4', 'http://[2002:808:808::1]/'],
    ['Teredo with a public server and client', 'http://[2001:0:808:808::f7f7:f7f7]/'],
    ['an ISATAP interface identifier in a global prefix', 'http://[2a00:1450::200:5efe:8.8.8.8]/'],
    ['a plain global unicast address', 'http://[2a00:1450:4001::1]/'],
    ['a name whose AAAA records carry public IPv4 (NAT64, 6to4)', 'http://public-nat64.test/'],
  ])('accepts %s carrying a public IPv4 address', async (_what, url) => {
    expect((await guard().checkUrl(url)).href).toBe(new URL(url).href);
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
    const error = await allowed()
      .post(`http://127.0.0.1:${port}/hang`, '{}', { headers: {}, timeoutMs: 200 })
      .catch((e: unknown) => e);
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
    const error = await allowed()
      .download(`http://127.0.0.1:${port}/huge-declared`, { timeoutMs: 2000, maxBytes: 5_000, sink })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'too_large' });
    expect(chunks).toHaveLength(0);
  });

  it('cuts off an oversize file without Content-Length while streaming', async () => {
    const { sink } = collect();
    const error = await allowed()
      .download(`http://127.0.0.1:${port}/huge-chunked`, { timeoutMs: 2000, maxBytes: 8_000, sink })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'too_large' });
  });

  it('fails a server that trickles bytes past the whole-download timeout', async () => {
    const { sink } = collect();
    const error = await allowed()
      .download(`http://127.0.0.1:${port}/trickle`, { timeoutMs: 300, maxBytes: 1_000_000, sink })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout' });
  });

  it('fails a redirect without fetching its target', async () => {
    const { sink } = collect();
    const error = await allowed()
      .download(`http://127.0.0.1:${port}/redirect`, { timeoutMs: 2000, maxBytes: 100, sink })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'protocol_error' });
  });
});
