import { connect } from 'node:net';

/**
 * One HTTP/1.1 exchange over a plain socket. Node's and undici's clients refuse to send a control
 * byte in a header or a malformed request line; a fuzzer must, so the request is written as given
 * and the answer parsed here (Content-Length, chunked, or up to the close).
 */
export interface WireRequest {
  method: string;
  /** Path and query, sent exactly as given. */
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer;
}

export interface WireResponse {
  /** 0 when the server closed or timed out without an answer. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Why there is no answer, when status is 0. */
  error?: string;
}

export async function exchange(host: string, port: number, request: WireRequest, timeoutMs = 30_000): Promise<WireResponse> {
  const head = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: close'];
  for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
  const hasLength = request.headers.some(([name]) => name.toLowerCase() === 'content-length');
  if (request.body && !hasLength) head.push(`Content-Length: ${request.body.length}`);
  const bytes = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), request.body ?? Buffer.alloc(0)]);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port });
    const finish = (error?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(chunks), error));
    };
    const timer = setTimeout(() => finish(`no complete answer within ${timeoutMs} ms`), timeoutMs);
    // no half-close: Node's HTTP server drops a request whose client ends its side first
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (isComplete(Buffer.concat(chunks))) finish();
    });
    socket.on('end', () => finish());
    socket.on('error', (e) => finish(e.message));
  });
}

function splitHead(raw: Buffer): { status: number; headers: Record<string, string>; rest: Buffer } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, rest: raw.subarray(end + 4) };
}

/** The body of a chunked transfer, or null while it is incomplete. */
function dechunk(rest: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    if (rest.length < lineEnd + 2 + size + 2) return null;
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

function isComplete(raw: Buffer): boolean {
  const head = splitHead(raw);
  if (!head) return false;
  if (head.headers['transfer-encoding']?.includes('chunked')) return dechunk(head.rest) !== null;
  const length = head.headers['content-length'];
  return length !== undefined && head.rest.length >= Number(length);
}

function parseResponse(raw: Buffer, error?: string): WireResponse {
  const head = splitHead(raw);
  if (!head || head.status === 0)
    return { status: 0, headers: {}, body: raw, error: error ?? (raw.length === 0 ? 'closed without an answer' : 'not an HTTP answer') };
  let body = head.rest;
  if (head.headers['transfer-encoding']?.includes('chunked')) body = dechunk(head.rest) ?? head.rest;
  else if (head.headers['content-length'] !== undefined) body = head.rest.subarray(0, Number(head.headers['content-length']));
  return { status: head.status, headers: head.headers, body };
}
