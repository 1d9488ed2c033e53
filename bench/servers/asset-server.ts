/**
 * The asset host of bench/approvals.bench.ts, in its own process so its sends never share an event
 * loop with the download being measured: a bare `node:http` server answering every GET with
 * BENCH_ASSET_BYTES (10 MiB) and Content-Length. The bytes differ by path (the path leads them), so
 * each round is a new content that Shelf has to store, not one it already holds.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerMessage } from './serve.ts';

const size = Number(process.env.BENCH_ASSET_BYTES ?? 10 * 1024 * 1024);
/** Everything after the per-path head: the same for every path, allocated once. */
const HEAD_BYTES = 256;
const tail = Buffer.alloc(size - HEAD_BYTES, 7);

const server = http.createServer((req, res) => {
  req.resume();
  const head = Buffer.alloc(HEAD_BYTES);
  head.write(req.url ?? '/');
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
  res.write(head);
  res.end(tail);
});

server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'listening', port: (server.address() as AddressInfo).port } satisfies ServerMessage);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('message', (message) => {
  if (message === 'stop') stop();
});
process.on('disconnect', stop);
