/**
 * Splits a V8 CPU profile of a benchmark's server (BENCH_PROFILE=1 writes them into bench/.profiles)
 * into what the time went to, per request served:
 *
 *   node_modules/node/bin/node bench/support/profile-split.ts <file.cpuprofile> <requests served>
 *
 * Each sample is given to the first layer found walking its stack from the leaf up: SQL (pg, its
 * pool and protocol, their socket writes), GraphQL execution (graphql-jit, graphql-js, Pothos,
 * dataloader, src/graphql), yoga's HTTP layer (graphql-yoga, envelop, whatwg-node,
 * src/rest/graphql-route.ts), the core (src/core), Fastify and node:http; samples under the
 * process's start (module loading, avvio, the schema compilers) are left out, and the garbage
 * collector's samples are their own line. Sampled time, not CPU time: on a shared machine it
 * includes waits for the CPU.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
const [file, served] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const requests = Number(served);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const STARTUP = [/node_modules\/avvio\//, /src\/rest\/serializer\.ts/, /internal\/modules\//, /node:internal\/modules/];
const LAYERS: Array<[string, RegExp]> = [
  ['SQL (pg)', /node_modules\/(pg|pg-pool|pg-protocol|pg-types|postgres-[a-z]+)\//],
  [
    'GraphQL execution (jit/graphql-js, Pothos, loaders, src/graphql)',
    /node_modules\/(graphql-jit|graphql|@graphql-tools|@pothos|dataloader)\/|\/src\/graphql\//,
  ],
  [
    'yoga HTTP layer (yoga, envelop, whatwg-node, graphql-route)',
    /node_modules\/(graphql-yoga|@envelop|@whatwg-node|@graphql-yoga)\/|\/src\/rest\/graphql-route\.ts/,
  ],
  ['core (src/core)', /\/src\/core\//],
  ['REST routes and envelope (src/rest)', /\/src\/rest\//],
  ['Fastify and serialization', /node_modules\/(fastify|@fastify|fast-json-stringify|find-my-way|light-my-request)\//],
  ['node:http and sockets (not under another layer)', /node:_http|node:net|stream_base_commons/],
];
function firstLayer(frames: string[], layers: Array<[string, RegExp]>): string | undefined {
  for (const url of frames) {
    const hit = layers.find(([, r]) => r.test(url));
    if (hit) return hit[0];
  }
  return undefined;
}

const totals = new Map<string, number>();
let all = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  let id: number | undefined = profile.samples[i]!;
  const leaf = byId.get(id)!.callFrame.functionName;
  const frames: string[] = [];
  while (id !== undefined) {
    frames.push(byId.get(id)!.callFrame.url);
    id = parent.get(id);
  }
  if (frames.some((url) => STARTUP.some((r) => r.test(url)))) continue;
  let layer = leaf === '(garbage collector)' ? 'garbage collector' : leaf === '(idle)' || leaf === '(program)' ? 'idle / program' : 'other';
  // the socket frames (writev, writeBuffer, ...) belong to whoever wrote: the first other layer up the stack
  if (layer === 'other') layer = firstLayer(frames, LAYERS.slice(0, -1)) ?? firstLayer(frames, LAYERS.slice(-1)) ?? 'other';
  totals.set(layer, (totals.get(layer) ?? 0) + dt);
  all += dt;
}
console.log(`| layer | ms per request | share |\n|---|---:|---:|`);
for (const [layer, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  console.log(`| ${layer} | ${(us / 1000 / requests).toFixed(2)} | ${((100 * us) / all).toFixed(0)}% |`);
}
console.log(`| all (start-up left out) | ${(all / 1000 / requests).toFixed(2)} | 100% |`);
