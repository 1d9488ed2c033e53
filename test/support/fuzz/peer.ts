import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The one outside party a fuzz run talks to, on 127.0.0.1: it serves small bytes for approval
 * asset downloads (`/bytes/...`) and accepts every webhook and approval callback with 200.
 */
export interface FuzzPeer {
  url: string;
  hostPort: string;
  close(): Promise<void>;
}

export async function startFuzzPeer(): Promise<FuzzPeer> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/bytes/')) {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from(`fuzz asset ${req.url}`));
        return;
      }
      res.writeHead(req.method === 'POST' ? 200 : 404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
