import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { ServerMessage } from '../servers/serve.ts';

/** A server process started by a benchmark; `stop` closes it and waits for it to exit. */
export interface ChildServer {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Forks a server script on this Node (so it never shares the load generator's event loop) and
 * waits for it to report its port on 127.0.0.1.
 */
export async function startChildServer(
  name: string,
  script: URL,
  options: { env: Record<string, string | undefined>; execArgv?: string[]; stdout?: 'inherit' | 'pipe' },
): Promise<ChildServer> {
  // 'pipe': the caller reads child.stdout (e.g. --trace-gc lines), and must keep reading it
  const child = fork(script, { env: options.env, execArgv: options.execArgv ?? [], stdio: ['ignore', options.stdout ?? 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${name} server exited before listening (code ${code})`);
  });
  const listening = new Promise<number>((resolve) => {
    child.on('message', (message: ServerMessage) => {
      if (message.type === 'listening') resolve(message.port);
    });
  });
  const port = await Promise.race([listening, exited]);
  exited.catch(() => {});
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const gone = once(child, 'exit');
      child.send('stop');
      await gone;
    },
  };
}
