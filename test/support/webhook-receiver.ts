import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

/** How a receiver answers one request: a status (and headers), or a function of the request for anything else. */
export type Answer = number | { status: number; headers?: Record<string, string>; delayMs?: number; body?: string } | 'hang';

export interface WebhookReceiver {
  url: string;
  /** host:port, for OUTBOUND_ALLOW_HOSTS. */
  hostPort: string;
  received: Received[];
  /** Answers to give, in order, per path; once used up the receiver answers 200. */
  answer(path: string, ...answers: Answer[]): void;
  /** Resolves when `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1 (tests send traffic to loopback only), recording what arrives,
 * answering 200 unless told otherwise per path.
 */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const queued = new Map<string, Answer[]>();
  const waiters: { count: number; resolve: (r: Received[]) => void }[] = [];
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const path = req.url ?? '/';
      received.push({ at: Date.now(), path, headers: req.headers, raw, body });
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(received.slice());
        }
      }
      const answer = queued.get(path)?.shift() ?? 200;
      if (answer === 'hang') {
        hung.push(res);
        return;
      }
      const spec = typeof answer === 'number' ? { status: answer } : answer;
      const send = () => {
        res.writeHead(spec.status, spec.headers ?? {});
        res.end(spec.body ?? 'ok');
      };
      if (spec.delayMs) setTimeout(send, spec.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    received,
    answer(path, ...answers) {
      queued.set(path, [...(queued.get(path) ?? []), ...answers]);
    },
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve(received.slice());
      return new Promise((resolve, reject) => {
        const waiter = { count, resolve };
        waiters.push(waiter);
        setTimeout(() => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) {
            waiters.splice(index, 1);
            reject(new Error(`waited ${timeoutMs} ms for ${count} requests, got ${received.length}`));
          }
        }, timeoutMs);
      });
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
