import type { ServerResponse } from 'node:http';

/**
 * Runs `then` once the response has closed (written, or its client gone), or at once when it has
 * closed already: a client can go away while a request waits (for the memory budget, for a read),
 * and a 'close' listener added after that would never run, leaking what it was to give back.
 */
export function whenResponseCloses(response: ServerResponse, then: () => void): void {
  if (response.closed) then();
  else response.once('close', then);
}
