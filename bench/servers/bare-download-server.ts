/**
 * The yardstick for downloads: a bare `node:http` server that answers any request with the stored
 * files of BENCH_DOWNLOAD_PATHS (a JSON array of paths) back to back, each piped from
 * fs.createReadStream (64 KiB chunks) into the response, with Content-Length. No ZIP, no CRC-32,
 * no database, no framework: what streaming the same bytes over the same loopback costs.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerMessage } from './serve.ts';

const paths = JSON.parse(process.env.BENCH_DOWNLOAD_PATHS ?? '[]') as string[];
const sizes = await Promise.all(paths.map(async (path) => (await stat(path)).size));
const length = sizes.reduce((sum, n) => sum + n, 0);

/** One file piped into the response without ending it; resolves when the file is read to its end. */
function pipeFile(path: string, res: http.ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const file = createReadStream(path);
    file.on('end', resolve).on('error', reject);
    file.pipe(res, { end: false });
  });
}

const server = http.createServer(async (req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': length });
  try {
    for (const path of paths) await pipeFile(path, res);
    res.end();
  } catch {
    res.destroy();
  }
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
