import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON object the CLI promises (throws if it is not exactly one). */
  json: any;
}

/** Runs the operator CLI as an operator would, with this process's Node 24, against the given environment. */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stdout.trim().split('\n');
      let json: unknown = undefined;
      if (lines.length === 1) {
        try {
          json = JSON.parse(lines[0]!);
        } catch {
          json = undefined;
        }
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
