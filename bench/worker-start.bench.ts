/**
 * How long a worker process (ROLE=worker) takes from spawn to "shelf workers running", with the
 * start caches (src/start-cache.ts) and without them (NODE_DISABLE_COMPILE_CACHE=1), alternating
 * in one run. Approval timers due while a worker starts wait that long (bench/RESULTS-approvals.md).
 *
 *   node_modules/node/bin/node bench/worker-start.bench.ts [runs=7]
 *
 * DATABASE_URL names a migrated database (default: the service's own).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';

const runs = Number(process.argv[2] ?? 7);

async function startOnce(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['src/main.mjs'], { env: { ...process.env, ROLE: 'worker', LOG_LEVEL: 'info', ...env } });
  return new Promise((resolve, reject) => {
    let output = '';
    child.on('exit', (code) => reject(new Error(`worker exited (${code}) before it was running:\n${output}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      if (!output.includes('shelf workers running')) return;
      const ms = performance.now() - started;
      child.removeAllListeners('exit');
      child.on('exit', () => resolve(ms));
      child.kill('SIGTERM');
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const without: number[] = [];
const withCaches: number[] = [];
const loadBefore = loadavg()[0]!;
for (let i = 0; i < runs; i++) {
  without.push(await startOnce({ NODE_DISABLE_COMPILE_CACHE: '1' }));
  withCaches.push(await startOnce({}));
}
console.log(
  JSON.stringify({
    runs,
    load: [loadBefore, loadavg()[0]].map((l) => l!.toFixed(1)),
    withoutCachesMs: without.map(Math.round),
    withCachesMs: withCaches.map(Math.round),
    medianWithoutMs: Math.round(median(without)),
    medianWithMs: Math.round(median(withCaches)),
    ratio: +(median(withCaches) / median(without)).toFixed(2),
  }),
);
