import { readFileSync } from 'node:fs';

/**
 * The Node flags the service runs with: those of package.json's `serve` script (which `npm start`
 * and the Dockerfile run), so benchmarks measure the process as it is shipped.
 */
export function serviceNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  // `exec` replaces npm's shell with Node, so signals sent to npm reach the service
  const match = /^(?:exec )?node((?: --[\w-]+(?:=\S+)?)*) src\/main\.mjs$/.exec(pkg.scripts.serve ?? '');
  if (!match) throw new Error(`package.json "serve" is not "[exec] node [--flags] src/main.mjs": ${pkg.scripts.serve}`);
  return match[1]!.trim().split(' ').filter(Boolean);
}
