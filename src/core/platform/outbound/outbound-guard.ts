import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, errors, request } from 'undici';
import { bareHost, isAllowlisted, isPublicAddress } from './address-policy.ts';
import { OutboundFailedError, OutboundRefusedError } from './outbound-errors.ts';

export { OutboundFailedError, OutboundRefusedError } from './outbound-errors.ts';

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolve = (host: string) => Promise<string[]>;

export interface OutboundGuardOptions {
  /** `OUTBOUND_ALLOW_HOSTS`: `host[:port]` entries exempt from the public-address rule. */
  allowHosts: readonly string[];
  /** DNS; the system resolver by default. Tests point it at a local resolver stub. */
  resolve?: Resolve;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** At most `maxResponseBytes` of the body; the rest is never read. */
  body: Buffer;
  durationMs: number;
}

export interface OutboundDownload {
  status: number;
  bytes: number;
  contentType: string | null;
}

const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Agents kept per pinned origin, so attempts to one receiver reuse connections. */
const MAX_AGENTS = 256;

/**
 * The one way out of the machine (DESIGN.md Outbound HTTP): every callback and approval download
 * goes through here. A URL must be http(s) without credentials; its host is resolved once per
 * request, every address (literal, A or AAAA; an IPv6 address carrying IPv4 is judged by the
 * IPv4 address, see isPublicAddress) must be public unless the exact host[:port] is allowlisted, and the
 * socket connects to an address that was checked, so a DNS answer that changes between the check
 * and the connection cannot reach a private address. Redirects are never followed; time and size
 * are bounded.
 */
export class OutboundGuard {
  private readonly allowHosts: readonly string[];
  private readonly resolve: Resolve;
  private readonly agents = new Map<string, Agent>();

  constructor(options: OutboundGuardOptions) {
    this.allowHosts = options.allowHosts;
    this.resolve = options.resolve ?? systemResolve;
  }

  /** Checks a URL before it is stored (subscriptions, createApproval); returns it parsed. */
  async checkUrl(url: string): Promise<URL> {
    return (await this.vet(url)).url;
  }

  /** POST (webhook delivery): bounded by `timeoutMs` from connect to the last byte read; at most `maxResponseBytes` (64 KiB) of the answer read. */
  async post(
    url: string,
    body: string | Buffer,
    options: { headers: Record<string, string>; timeoutMs: number; maxResponseBytes?: number; signal?: AbortSignal },
  ): Promise<OutboundResponse> {
    const started = Date.now();
    const target = await this.vet(url);
    const signal = this.deadline(options.timeoutMs, options.signal);
    try {
      const response = await request(target.url, { method: 'POST', body, headers: options.headers, dispatcher: this.agentFor(target), signal });
      const cap = options.maxResponseBytes ?? 64 * 1024;
      const chunks: Buffer[] = [];
      let read = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        read += chunk.length;
        if (read >= cap) {
          discard(response.body);
          break;
        }
      }
      return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).subarray(0, cap), durationMs: Date.now() - started };
    } catch (e) {
      throw failure(e, signal, options.timeoutMs);
    }
  }

  /**
   * GET a file into `sink` (approval downloads): refused from Content-Length when it exceeds
   * `maxBytes`, cut off while streaming when it has none; the whole download, headers and body,
   * is bounded by `timeoutMs`, so a server that trickles bytes fails too. A redirect fails as
   * protocol_error: its target is never fetched.
   */
  async download(url: string, options: { timeoutMs: number; maxBytes: number; sink: (chunk: Buffer) => void | Promise<void>; signal?: AbortSignal }): Promise<OutboundDownload> {
    const target = await this.vet(url);
    const signal = this.deadline(options.timeoutMs, options.signal);
    try {
      const response = await request(target.url, { method: 'GET', dispatcher: this.agentFor(target), signal });
      if (response.statusCode >= 300) {
        discard(response.body);
        throw new OutboundFailedError('protocol_error', response.statusCode < 400 ? `redirect (${response.statusCode}) not followed` : `answered HTTP ${response.statusCode}`);
      }
      const length = Number(response.headers['content-length'] ?? Number.NaN);
      if (Number.isFinite(length) && length > options.maxBytes) {
        discard(response.body);
        throw new OutboundFailedError('too_large', `Content-Length ${length} exceeds ${options.maxBytes} bytes`);
      }
      let bytes = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) {
          discard(response.body);
          throw new OutboundFailedError('too_large', `more than ${options.maxBytes} bytes`);
        }
        await options.sink(chunk);
      }
      const type = response.headers['content-type'];
      return { status: response.statusCode, bytes, contentType: typeof type === 'string' ? type : null };
    } catch (e) {
      throw failure(e, signal, options.timeoutMs);
    }
  }

  /** Closes every kept connection (shutdown, tests). */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }

  private async vet(raw: string): Promise<{ url: URL; address: string; family: 4 | 6 }> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundRefusedError('invalid_url', '', 'not an absolute URL');
    }
    const host = bareHost(url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError('scheme_not_allowed', host, `${url.protocol} is not http or https`);
    if (url.username || url.password) throw new OutboundRefusedError('credentials_in_url', host, 'the URL carries a user name or password');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new OutboundRefusedError('host_unresolvable', host, `${host} does not resolve`);
    if (!isAllowlisted(this.allowHosts, url) && !addresses.every(isPublicAddress)) {
      throw new OutboundRefusedError('private_address', host, `${host} resolves to a non-public address`);
    }
    const address = addresses[0]!;
    return { url, address, family: isIP(address) === 6 ? 6 : 4 };
  }

  /** An agent whose every connection goes to the checked address, whatever DNS says later. */
  private agentFor(target: { url: URL; address: string; family: 4 | 6 }): Agent {
    const key = `${target.url.protocol}//${target.url.host}@${target.address}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
      this.agents.set(key, agent);
      return agent;
    }
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    agent = new Agent({ connect: { lookup: pinned }, keepAliveTimeout: 10_000, maxRedirections: 0 } as Agent.Options);
    this.agents.set(key, agent);
    if (this.agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value!;
      this.agents.delete(oldestKey);
      void oldest.close();
    }
    return agent;
  }

  private deadline(timeoutMs: number, outer?: AbortSignal): AbortSignal {
    const timeout = AbortSignal.timeout(timeoutMs);
    return outer ? AbortSignal.any([timeout, outer]) : timeout;
  }
}

/** Drops an answer's unread rest: the socket closes, and its abort is not an unhandled error. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

function failure(e: unknown, signal: AbortSignal, timeoutMs: number): Error {
  if (e instanceof OutboundFailedError || e instanceof OutboundRefusedError) return e;
  if (signal.aborted) return new OutboundFailedError('timeout', `no complete answer within ${timeoutMs} ms`);
  const code = (e as { code?: string }).code ?? '';
  if (e instanceof errors.ConnectTimeoutError || /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET)$/.test(code)) {
    return new OutboundFailedError('connect_failed', (e as Error).message);
  }
  return new OutboundFailedError('protocol_error', (e as Error).message);
}
