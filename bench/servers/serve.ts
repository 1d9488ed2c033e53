import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Messages between a benchmark and the server processes it forks. */
export type ServerMessage = { type: 'listening'; port: number };

/**
 * Listens on 127.0.0.1 (never another address: benchmarks load only this machine), reports the
 * port to the parent, and closes cleanly when the parent sends 'stop' or goes away.
 */
export async function serveUntilStopped(app: FastifyInstance, closeResources: () => Promise<void>): Promise<void> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await closeResources();
    process.exit(0);
  };
  process.on('message', (message) => {
    if (message === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  process.send!({ type: 'listening', port } satisfies ServerMessage);
}
