import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SPAWNING_TEST_TIMEOUT_MS, until } from './wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A Shelf process a test started (`node src/main.mjs`), with what it printed so far. */
export interface ShelfProcess {
  child: ChildProcess;
  /** stdout and stderr so far, for failure messages. */
  output: () => string;
  /** Settles with the exit code when the process has exited. */
  exited: Promise<number | null>;
}

/** Starts `node src/main.mjs` as a deployment does, with `settings` over this process's environment. */
export function spawnShelf(settings: Record<string, string>): ShelfProcess {
  const child = spawn(process.execPath, ['src/main.mjs'], { cwd: ROOT, env: { ...process.env, ...settings } });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits until the API process on `port` answers `/healthz` with 200 (a process start may take tens of seconds on a busy machine). */
export async function untilHealthy(port: number): Promise<void> {
  await until(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      ),
    (status) => status === 200,
    { timeout: SPAWNING_TEST_TIMEOUT_MS - 10_000 },
  );
}
