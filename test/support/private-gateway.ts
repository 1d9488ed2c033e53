import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/objectstore.sh', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * A radosgw of the test's own on a free port, serving the same cluster as the shared gateway
 * (`scripts/objectstore.sh gateway PORT`): fault tests kill and restart it without stopping the
 * gateway other test files use. It starts in about a quarter of a second.
 */
export interface PrivateGateway {
  endpoint: string;
  start(): Promise<void>;
  /** SIGKILL, as a crash: open connections are cut. */
  kill(): Promise<void>;
}

export async function privateGateway(): Promise<PrivateGateway> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const gateway: PrivateGateway = {
    endpoint: `http://127.0.0.1:${port}`,
    async start() {
      // the script execs radosgw, so the child's pid is the gateway's
      child = spawn('bash', [SCRIPT, 'gateway', String(port)], { stdio: 'ignore' });
      const started = child;
      let exited = false;
      started.once('exit', () => {
        exited = true;
      });
      while (!(await answers(port))) {
        if (exited) throw new Error(`the private radosgw on port ${port} exited; see the cluster's logs`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
  await gateway.start();
  return gateway;
}
