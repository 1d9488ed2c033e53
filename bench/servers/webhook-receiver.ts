/**
 * A webhook receiver for bench/webhooks.bench.ts: a plain Node HTTP server on 127.0.0.1 that answers
 * 200 and notes when each event arrived (by its eventId, or the `x-bench-id` header of the floor).
 * Messages: 'reset' clears the notes, 'count' sends back {count, connections} (connections opened
 * since the reset), 'report' sends back {arrivals}; 'stop' exits.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let arrivals: [string, number][] = [];
let connections = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    const header = req.headers['x-bench-id'];
    let id = typeof header === 'string' ? header : '';
    if (!id) {
      const text = Buffer.concat(chunks).toString();
      const match = /"eventId":"([^"]+)"/.exec(text);
      id = match?.[1] ?? '';
    }
    arrivals.push([id, now]);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.on('connection', () => connections++);
server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'listening', port: (server.address() as AddressInfo).port });
});
process.on('message', (message) => {
  if (message === 'reset') {
    arrivals = [];
    connections = 0;
  } else if (message === 'count') process.send!({ type: 'count', count: arrivals.length, connections });
  else if (message === 'report') process.send!({ type: 'report', arrivals });
  else if (message === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
