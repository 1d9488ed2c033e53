import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { execute } from '../../src/cli/run.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON object the CLI promises (undefined if it is not exactly one). */
  json: any;
}

function parsed(stdout: string): unknown {
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) return undefined;
  try {
    return JSON.parse(lines[0]!);
  } catch {
    return undefined;
  }
}

/**
 * Runs an operator command in this process, through the CLI's own parser, handlers and core
 * (src/cli/run.ts `execute`), with `env` over this process's environment: what a spawned run
 * does after Node has started, without a second Node start (1-3 s each on a busy machine).
 * Where a test's point is the process itself (exit codes, stdout, start caches), use spawnCli.
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { exitCode, stdout } = await execute(args, { ...process.env, LOG_LEVEL: 'silent', ...env });
  return { code: exitCode, stdout, stderr: '', json: parsed(stdout) };
}

/** Runs the operator CLI as an operator would, a Node 24 process of its own, against the given environment. */
export async function spawnCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli/main.mjs', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: parsed(stdout) }));
  });
}
