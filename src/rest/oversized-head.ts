import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';

/** What the oversized request's area answers: its envelope, its code, its status. */
function answerFor(path: string, tooLongUri: boolean): { status: number; reason: string; body: Record<string, unknown>; id: string } {
  const status = tooLongUri ? 414 : 431;
  const reason = tooLongUri ? 'URI Too Long' : 'Request Header Fields Too Large';
  const code = tooLongUri ? 'uri_too_long' : 'request_header_too_large';
  const message = tooLongUri ? 'The request URL is too long' : 'The request head is too large';
  const id = randomUUID();
  if (path === '/graphql' || path.startsWith('/graphql?')) {
    return { status, reason, body: { errors: [{ message, extensions: { code } }] }, id };
  }
  if (path.startsWith('/open') || path.startsWith('/approval')) {
    const areaCode = path.startsWith('/approval') ? `invalid_payload:${code}` : code;
    return { status, reason, body: { code: areaCode, message, result: null, traceId: id }, id };
  }
  return { status, reason, body: { success: false, data: null, code, message, requestId: id }, id };
}

/**
 * Fastify's `clientErrorHandler` (issue 12 item 7): a request whose head exceeds Node's limit (a
 * 40 KB query string, say) never reaches a route, so it is answered here, on the raw socket, in
 * the envelope of the area its path names: 414 when the request line alone is too long, else 431.
 * Any other client error gets a plain 400 close, as Node would.
 */
export function answerClientError(error: Error, socket: Socket): void {
  if (!socket.writable) return;
  const { code, rawPacket } = error as Error & { code?: string; rawPacket?: unknown };
  if (code !== 'HPE_HEADER_OVERFLOW') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const head = Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1') : '';
  const lineEnd = head.indexOf('\r\n');
  const requestLine = lineEnd < 0 ? head : head.slice(0, lineEnd);
  const path = requestLine.split(' ')[1] ?? '/';
  // Node's limit (16 KiB) covers the request line and the headers together: a line over half of it is the URL's fault
  const answer = answerFor(path, lineEnd < 0 || requestLine.length > 8192);
  const body = JSON.stringify(answer.body);
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${answer.id}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
