import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** How much of a refused body Shelf still reads (and drops) so the client can read its 413. */
const DRAIN_BYTES = 256 * 1024 * 1024;
/** How long it keeps reading before it gives up on the connection. */
const DRAIN_MS = 30_000;

/**
 * A body refused as too large (413), or before it was read (a 503 of the memory budget), is
 * answered while the client may still be sending it. Closing
 * the connection then (Fastify asks for it when its parser stops reading) makes the kernel reset
 * it with the client's unread data, and a client that sends its whole body before it reads (curl,
 * most SDKs) sees EPIPE or ECONNRESET instead of the envelope. So the answer keeps the connection
 * open, and the rest of the body is read and dropped, up to DRAIN_BYTES and DRAIN_MS; past those
 * the connection is cut (docs/api-conventions.md "Input limits").
 */
export function answerRefusedBodiesBeforeClosing(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // a request refused before its body was read (413, or 503 from the memory budget)
    if (reply.statusCode >= 400 && !request.raw.complete) {
      reply.removeHeader('connection');
      drainBounded(request.raw);
    }
    done(null, payload);
  });
}

function drainBounded(req: IncomingMessage): void {
  if (req.complete) return;
  let seen = 0;
  // light-my-request's sockets (inject) have no destroy: nothing to cut there
  const giveUp = () => {
    if (typeof req.socket?.destroy === 'function') req.socket.destroy();
  };
  const timer = setTimeout(giveUp, DRAIN_MS);
  timer.unref();
  const stop = () => clearTimeout(timer);
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_BYTES) giveUp();
  });
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}
