import { expect } from 'vitest';

/**
 * Reads until `accept` takes the value read, and returns that value: a wait for what a test means
 * (expect.poll, whose timeout in vitest.config.ts only catches a hang). When it never comes, the
 * failure shows the last value read.
 */
export async function until<T>(read: () => T | Promise<T>, accept: (value: T) => boolean): Promise<T> {
  let value: T | undefined;
  await expect.poll(async () => (value = await read())).toSatisfy((read: T) => accept(read));
  return value as T;
}
