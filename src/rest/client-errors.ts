import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FieldIssue } from '../core/platform/errors.ts';
import { SHELF_VERSION, VERSION_HEADER } from '../version.ts';

/** The API area a path belongs to, whose envelope answers it: `/open`, `/approval`, GraphQL's `errors[]`, else Area A (`/v1` and the rest). */
export type Area = 'open' | 'approval' | 'graphql' | 'v1';

export function areaOf(path: string): Area {
  if (/^\/open(?:[/?#]|$)/.test(path)) return 'open';
  if (/^\/approval(?:[/?#]|$)/.test(path)) return 'approval';
  if (/^\/graphql(?:[/?#]|$)/.test(path)) return 'graphql';
  return 'v1';
}

interface Refusal {
  status: number;
  code: string;
  message: string;
  details?: FieldIssue[];
}

/** The failure body of `area` for a request no route saw (the same shapes as envelope.ts, open-envelope.ts, approval-envelope.ts). */
function bodyOf(area: Area, refusal: Refusal, id: string): Record<string, unknown> {
  const details = refusal.details && refusal.details.length > 0 ? { details: refusal.details } : {};
  if (area === 'v1') return { success: false, data: null, code: refusal.code, message: refusal.message, requestId: id, ...details };
  if (area === 'graphql') return { errors: [{ message: refusal.message, extensions: { code: refusal.code, ...details } }] };
  // /approval answers invalid input as invalid_payload:<reason> (spec 7.3); its other failures keep their code
  const code = area === 'approval' && [400, 414, 431].includes(refusal.status) ? `invalid_payload:${refusal.code}` : refusal.code;
  return { code, message: refusal.message, result: null, traceId: id, ...details };
}

/** The header on the line where the parser stopped (a folded line names the header it continues). */
function headerAt(head: string, offset: number): string | null {
  let start = head.lastIndexOf('\n', Math.max(0, offset - 1)) + 1;
  while (start > 0 && (head[start] === ' ' || head[start] === '\t')) start = head.lastIndexOf('\n', start - 2) + 1;
  if (start === 0) return null;
  const line = head.slice(start, head.indexOf('\n', start) < 0 ? undefined : head.indexOf('\n', start));
  const colon = line.indexOf(':');
  const name = (colon < 0 ? line : line.slice(0, colon)).trim();
  return name === '' ? null : name.slice(0, 64);
}

/** What Node's HTTP parser refused, as a refusal: the field it concerns when the error tells it (llhttp's `HPE_*` codes). */
function refusalOf(error: Error & { code?: string; reason?: string; bytesParsed?: number }, head: string, requestLine: string): Refusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW': {
      // Node's limit (16 KiB) covers the request line and the headers together: a line over half of it is the URL's fault
      const uri = !head.includes('\r\n') || requestLine.length > 8192;
      return uri
        ? { status: 414, code: 'uri_too_long', message: 'The request URL is too long' }
        : { status: 431, code: 'request_header_too_large', message: 'The request head is too large' };
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'The request was not received in time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', message: 'The chunk extensions of the request body are too large' };
  }
  const reason = error.reason ?? 'not valid HTTP/1.1';
  const field = fieldOf(error.code, head, error.bytesParsed);
  return { status: 400, code: 'bad_request', message: 'The request is not valid HTTP/1.1', ...(field ? { details: [{ field, message: reason }] } : {}) };
}

function fieldOf(code: string | undefined, head: string, offset: number | undefined): string | null {
  switch (code) {
    case 'HPE_INVALID_HEADER_TOKEN':
      return offset === undefined ? null : headerAt(head, offset);
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return 'Content-Length';
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return 'Transfer-Encoding';
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_EOF_STATE':
      return '(body)';
    case 'HPE_INVALID_METHOD':
      return '(method)';
    case 'HPE_INVALID_URL':
      return '(url)';
    default:
      return null;
  }
}

/**
 * The path of the request the error belongs to: the one in flight (a bad body), else the target of
 * the request line received, else the last request the parser read on this connection (garbage
 * after a pipelined request).
 */
function pathOf(socket: Socket, requestLine: string): string {
  const internals = socket as Socket & { _httpMessage?: { req?: { url?: string } }; parser?: { incoming?: { url?: string } | null } | null };
  // the target is the first token that is a path or an absolute URL: a broken method ("GE T") may hold a space
  const target = /^[^/\s]*(?: [^/\s]+)* ((?:\/|https?:\/\/)\S*)/i.exec(requestLine)?.[1];
  const fromLine = target?.startsWith('/') ? target : target && /^https?:\/\/[^/]*(\/\S*)/i.exec(target)?.[1];
  return internals._httpMessage?.req?.url ?? fromLine ?? internals.parser?.incoming?.url ?? '/';
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses never reaches a route, so it
 * is answered here, on the raw socket, in the envelope of the area its path names, with an
 * X-Request-Id: 400 `bad_request` for malformed HTTP/1.1 (a control byte in a header, a bad
 * Content-Length or chunk, an unknown method; `details` names the header or part when the parser
 * tells it), 414 / 431 for a head over Node's limit, 408 when the request did not arrive in time.
 * Nothing is written once a response on the socket has begun (it would corrupt it), nor to a
 * reset or closed socket.
 */
export function answerClientError(error: Error, socket: Socket): void {
  const { code, rawPacket } = error as Error & { code?: string; rawPacket?: unknown };
  if (code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const head = Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1') : '';
  const lineEnd = head.indexOf('\r\n');
  const requestLine = lineEnd < 0 ? head : head.slice(0, lineEnd);
  const refusal = refusalOf(error, head, requestLine);
  const id = randomUUID();
  const body = JSON.stringify(bodyOf(areaOf(pathOf(socket, requestLine)), refusal, id));
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${id}\r\nCache-Control: no-store\r\n${VERSION_HEADER}: ${SHELF_VERSION}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The server's `checkExpectation` listener: an `Expect` other than 100-continue never reaches a
 * route (Node would answer a bare 417), so it is answered here, 417 `expectation_failed` in the
 * envelope of the area its path names, naming the header.
 */
export function answerUnmetExpectation(request: IncomingMessage, response: ServerResponse): void {
  const id = randomUUID();
  const refusal: Refusal = {
    status: 417,
    code: 'expectation_failed',
    message: 'The request expects what Shelf does not offer',
    details: [{ field: 'Expect', message: 'only 100-continue is supported' }],
  };
  const body = JSON.stringify(bodyOf(areaOf(request.url ?? '/'), refusal, id));
  response.writeHead(417, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': id,
    'Cache-Control': 'no-store',
    [VERSION_HEADER]: SHELF_VERSION,
    Connection: 'close',
  });
  response.end(body);
}
