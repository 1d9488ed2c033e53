import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { vi } from 'vitest';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server of the test's own on its own port (fault tests stop it; the shared one is never touched). */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const ping = async () => {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // a refused connection is an answer here (not up yet, or gone), not an event to print
    client.on('error', () => {});
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  };
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--dir', '/tmp'], {
        stdio: 'ignore',
      });
      // vi.waitUntil, not expect.poll: this also runs in beforeAll and afterAll hooks
      await vi.waitUntil(ping, { timeout: 30_000, interval: 50 });
    },
    async stop() {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => {});
      await client
        .connect()
        .then(() => client.call('shutdown', 'nosave'))
        .catch(() => undefined);
      client.disconnect();
      await vi.waitUntil(async () => !(await ping()), { timeout: 30_000, interval: 50 });
    },
  };
  await redis.start();
  return redis;
}
