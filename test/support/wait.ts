import { expect } from 'vitest';

/**
 * Reads until `accept` takes the value read, and returns that value: a wait for what a test means
 * (expect.poll, whose timeout in vitest.config.ts only catches a hang; give a longer one where a
 * Node process has to start). When it never comes, the failure shows the last value read.
 */
export async function until<T>(read: () => T | Promise<T>, accept: (value: T) => boolean, options: { timeout?: number } = {}): Promise<T> {
  let value: T | undefined;
  await expect.poll(async () => (value = await read()), options).toSatisfy((read: T) => accept(read));
  return value as T;
}

/**
 * How long a test that starts Node processes of its own may take before it counts as hung: one
 * start is 1-3 s on an idle two-core machine and tens of seconds when other work runs beside it.
 */
export const SPAWNING_TEST_TIMEOUT_MS = 120_000;
