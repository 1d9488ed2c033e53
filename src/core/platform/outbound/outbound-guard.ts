import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher, errors, request } from 'undici';
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
 * Connections kept open to one receiver at most; more requests wait for one (within their time
 * bound). Unbounded, a burst of deliveries (50 jobs of 50) opened one connection per request, a
 * couple of thousand to one receiver, and undici walks its pool's connections on every request
 * and every closed connection.
 */
const MAX_CONNECTIONS_PER_ORIGIN = 128;
/** URLs and addresses whose checks are kept (the checks are pure; only DNS answers change). */
const MAX_REMEMBERED = 10_000;

/** What the URL text alone decides. */
interface ParsedUrl {
  url: URL;
  /** Without IPv6 brackets, lower-cased. */
  host: string;
  origin: string;
  path: string;
  /** An IP address, not a name to resolve. */
  literal: boolean;
  allowlisted: boolean;
}

/** A checked request: where it goes, and the address its connection must reach. */
interface Target {
  url: URL;
  origin: string;
  path: string;
  address: string;
  family: 4 | 6;
}

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
  private readonly agents = new Map<string, { agent: Agent; used: number }>();
  private uses = 0;
  private readonly parsed = new Map<string, ParsedUrl>();
  private readonly addresses = new Map<string, { public: boolean; family: 4 | 6 }>();

  constructor(options: OutboundGuardOptions) {
    this.allowHosts = options.allowHosts;
    this.resolve = options.resolve ?? systemResolve;
  }

  /** Checks a URL before it is stored (subscriptions, createApproval); returns it parsed. */
  async checkUrl(url: string): Promise<URL> {
    // a copy: the parsed URL is kept for later requests and must not change
    return new URL((await this.vet(url)).url.href);
  }

  /**
   * POST (webhook delivery): bounded by `timeoutMs` from connect to the last byte read; at most
   * `maxResponseBytes` (64 KiB) of the answer read. It dispatches on the pinned agent with a handler
   * that keeps the answer's first bytes, rather than `request()`'s body stream read by an async
   * iterator, and bounds time with one timer cleared at the end rather than an `AbortSignal.timeout`
   * that lives its full 15 s: per request, those were a third of the guard's own cost.
   */
  async post(
    url: string,
    body: string | Buffer,
    options: { headers: Record<string, string>; timeoutMs: number; maxResponseBytes?: number; signal?: AbortSignal },
  ): Promise<OutboundResponse> {
    const started = Date.now();
    const target = await this.vet(url);
    const agent = this.agentFor(target);
    const cap = options.maxResponseBytes ?? 64 * 1024;
    return new Promise<OutboundResponse>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let read = 0;
      let status = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      let controller: Dispatcher.DispatchController | null = null;
      let settled = false;
      const outer = options.signal;
      const settle = (error: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outer?.removeEventListener('abort', onOuterAbort);
        if (error) reject(error);
        else
          resolve({
            status,
            headers,
            body: chunks.length === 1 ? chunks[0]!.subarray(0, cap) : Buffer.concat(chunks).subarray(0, cap),
            durationMs: Date.now() - started,
          });
      };
      // an unanswered request is dropped: its connection closes, so nothing more arrives for it
      const giveUp = (error: Error) => {
        settle(error);
        controller?.abort(error);
      };
      const timer = setTimeout(() => giveUp(new OutboundFailedError('timeout', `no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      const onOuterAbort = () => giveUp(new OutboundFailedError('timeout', `no complete answer within ${options.timeoutMs} ms`));
      if (outer?.aborted) return onOuterAbort();
      outer?.addEventListener('abort', onOuterAbort);
      try {
        agent.dispatch(
          { origin: target.origin, path: target.path, method: 'POST', body, headers: options.headers },
          {
            onRequestStart(c) {
              controller = c;
              if (settled) c.abort(new OutboundFailedError('timeout', 'given up before the request started'));
            },
            onResponseStart(_c, statusCode, responseHeaders) {
              status = statusCode;
              headers = responseHeaders as Record<string, string | string[] | undefined>;
            },
            onResponseData(c, chunk) {
              if (settled) return;
              chunks.push(chunk);
              read += chunk.length;
              if (read >= cap) {
                // the rest is never read: the caller has what it keeps, and the connection closes
                settle(null);
                c.abort(new OutboundFailedError('too_large', `answer cut off after ${cap} bytes`));
              }
            },
            onResponseEnd() {
              settle(null);
            },
            onResponseError(_c, error) {
              settle(failure(error, false, options.timeoutMs));
            },
          },
        );
      } catch (e) {
        settle(failure(e, false, options.timeoutMs));
      }
    });
  }

  /**
   * GET a file into `sink` (approval downloads): refused from Content-Length when it exceeds
   * `maxBytes`, cut off while streaming when it has none; the whole download, headers and body,
   * is bounded by `timeoutMs`, so a server that trickles bytes fails too. A redirect fails as
   * protocol_error: its target is never fetched.
   */
  async download(
    url: string,
    options: { timeoutMs: number; maxBytes: number; sink: (chunk: Buffer) => void | Promise<void>; signal?: AbortSignal },
  ): Promise<OutboundDownload> {
    const target = await this.vet(url);
    const signal = this.deadline(options.timeoutMs, options.signal);
    try {
      const response = await request(target.url, { method: 'GET', dispatcher: this.agentFor(target), signal });
      if (response.statusCode >= 300) {
        discard(response.body);
        throw new OutboundFailedError(
          'protocol_error',
          response.statusCode < 400 ? `redirect (${response.statusCode}) not followed` : `answered HTTP ${response.statusCode}`,
        );
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
      throw failure(e, signal.aborted, options.timeoutMs);
    }
  }

  /** Closes every kept connection (shutdown, tests). */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.agent.close()));
  }

  /**
   * Checks one request's URL and resolves its host (DNS answers are never kept: each request
   * connects to an address checked for it). What follows from the URL text alone (its parts, the
   * scheme and credential rules, the allowlist) and whether an address is public are kept, bounded,
   * as they cannot change while the process runs.
   */
  private async vet(raw: string): Promise<Target> {
    const parsed = this.parse(raw);
    let addresses: string[];
    try {
      addresses = parsed.literal ? [parsed.host] : await this.resolve(parsed.host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new OutboundRefusedError('host_unresolvable', parsed.host, `${parsed.host} does not resolve`);
    if (!parsed.allowlisted && !addresses.every((a) => this.addressInfo(a).public)) {
      throw new OutboundRefusedError('private_address', parsed.host, `${parsed.host} resolves to a non-public address`);
    }
    const address = addresses[0]!;
    return { url: parsed.url, origin: parsed.origin, path: parsed.path, address, family: this.addressInfo(address).family };
  }

  private parse(raw: string): ParsedUrl {
    const known = this.parsed.get(raw);
    if (known) return known;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundRefusedError('invalid_url', '', 'not an absolute URL');
    }
    const host = bareHost(url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new OutboundRefusedError('scheme_not_allowed', host, `${url.protocol} is not http or https`);
    if (url.username || url.password) throw new OutboundRefusedError('credentials_in_url', host, 'the URL carries a user name or password');
    const parsed: ParsedUrl = {
      url,
      host,
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      literal: isIP(host) !== 0,
      allowlisted: isAllowlisted(this.allowHosts, url),
    };
    if (this.parsed.size >= MAX_REMEMBERED) this.parsed.clear();
    this.parsed.set(raw, parsed);
    return parsed;
  }

  private addressInfo(address: string): { public: boolean; family: 4 | 6 } {
    let info = this.addresses.get(address);
    if (!info) {
      info = { public: isPublicAddress(address), family: isIP(address) === 6 ? 6 : 4 };
      if (this.addresses.size >= MAX_REMEMBERED) this.addresses.clear();
      this.addresses.set(address, info);
    }
    return info;
  }

  /** An agent whose every connection goes to the checked address, whatever DNS says later. */
  private agentFor(target: Target): Agent {
    const key = `${target.origin}@${target.address}`;
    const kept = this.agents.get(key);
    if (kept) {
      kept.used = ++this.uses;
      return kept.agent;
    }
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const agent = new Agent({
      connect: { lookup: pinned },
      keepAliveTimeout: 10_000,
      maxRedirections: 0,
      connections: MAX_CONNECTIONS_PER_ORIGIN,
    } as Agent.Options);
    if (this.agents.size >= MAX_AGENTS) {
      // the least recently used goes; finding it is a scan, but only when a new origin arrives
      let oldest: [string, { agent: Agent; used: number }] | null = null;
      for (const entry of this.agents) if (!oldest || entry[1].used < oldest[1].used) oldest = entry;
      this.agents.delete(oldest![0]);
      void oldest![1].agent.close();
    }
    this.agents.set(key, { agent, used: ++this.uses });
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

function failure(e: unknown, aborted: boolean, timeoutMs: number): Error {
  if (e instanceof OutboundFailedError || e instanceof OutboundRefusedError) return e;
  if (aborted) return new OutboundFailedError('timeout', `no complete answer within ${timeoutMs} ms`);
  const code = (e as { code?: string }).code ?? '';
  if (e instanceof errors.ConnectTimeoutError || /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET)$/.test(code)) {
    return new OutboundFailedError('connect_failed', (e as Error).message);
  }
  return new OutboundFailedError('protocol_error', (e as Error).message);
}
