/**
 * The floor of the live updates benchmark (bench/live.bench.ts): a bare node:http server that
 * serves server-sent events from the same Redis channels Shelf's relay publishes on, one
 * subscriber connection, no GraphQL, no authentication, no positions checked, no buffers bounded.
 * `GET /?team=N` streams that team's rows as `id:` position and `data:` {productId, name, position}.
 *
 *   PORT=... REDIS_URL=... LIVE_PREFIX=... node bench/servers/bare-live-server.ts
 */
import { createServer, type ServerResponse } from 'node:http';
import { Redis } from 'ioredis';

const prefix = process.env.LIVE_PREFIX ?? 'shelf';
const subscriber = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const streams = new Map<number, Set<ServerResponse>>();

subscriber.on('message', (channel: string, text: string) => {
  const team = Number(channel.slice(channel.lastIndexOf(':') + 1));
  const open = streams.get(team);
  if (!open) return;
  const { rows } = JSON.parse(text) as { rows: Array<{ position: number; body: { productId: number; name: string } }> };
  for (const row of rows) {
    const frame = `id: ${row.position}\nevent: next\ndata: ${JSON.stringify({ data: { productChanges: { position: String(row.position), productId: row.body.productId, name: row.body.name } } })}\n\n`;
    for (const res of open) res.write(frame);
  }
});

createServer((req, res) => {
  const team = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('team'));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.write(':\n\n');
  let open = streams.get(team);
  if (!open) {
    open = new Set();
    streams.set(team, open);
    void subscriber.subscribe(`${prefix}:live:${team}`);
  }
  open.add(res);
  res.on('close', () => open.delete(res));
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
