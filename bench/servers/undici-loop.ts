/**
 * The transport floor of bench/webhooks.bench.ts: a plain undici loop that POSTs prepared requests
 * (the round's bodies with their sequence and Standard Webhooks headers, byte for byte what Shelf
 * sends) to the same receiver, with CONCURRENCY requests in flight over keep-alive connections.
 * Nothing else: no queue, no database, no guard, no signing in the timed window. It is what the
 * HTTP transport alone costs on this machine, so Shelf / this is the share of it Shelf keeps.
 *
 * Messages: {type: 'load', requests} stores the requests (answers 'loaded'); 'go' sends them all
 * (answers {type: 'done', failed}); 'stop' exits.
 */
import { Agent, request } from 'undici';

interface Prepared {
  url: string;
  body: string;
  headers: Record<string, string>;
}

const concurrency = Number(process.env.CONCURRENCY ?? 50);
const agent = new Agent({ keepAliveTimeout: 10_000 });
let requests: Prepared[] = [];

async function run(): Promise<number> {
  let next = 0;
  let failed = 0;
  const loop = async () => {
    while (next < requests.length) {
      const r = requests[next++]!;
      const response = await request(r.url, { method: 'POST', body: r.body, headers: r.headers, dispatcher: agent });
      await response.body.dump();
      if (response.statusCode >= 300) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return failed;
}

process.on('message', async (message: 'go' | 'stop' | { type: 'load'; requests: Prepared[] }) => {
  if (message === 'stop') {
    await agent.close();
    process.exit(0);
  } else if (message === 'go') {
    process.send!({ type: 'done', failed: await run() });
  } else if (message.type === 'load') {
    requests = message.requests;
    process.send!({ type: 'loaded' });
  }
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
