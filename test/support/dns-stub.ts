import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { type AddressInfo, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A local DNS server on 127.0.0.1 for guard tests: answers A and AAAA queries from a script per name. */
export interface DnsStub {
  /** A resolver (for OutboundGuard's `resolve`) that asks only this stub, for A and AAAA records like the system resolver. */
  resolve(host: string): Promise<string[]>;
  /** How many lookups each name got (its A queries; every lookup also asks for AAAA once). */
  queries: Map<string, number>;
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (message[at]! > 0) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

const A = 1;
const AAAA = 28;

function record(qtype: number, address: string): Buffer {
  const data = Buffer.from(ipaddr.parse(address).toByteArray());
  const answer = Buffer.alloc(12 + data.length);
  answer.writeUInt16BE(0xc00c, 0);
  answer.writeUInt16BE(qtype, 2);
  answer.writeUInt16BE(1, 4);
  answer.writeUInt32BE(0, 6);
  answer.writeUInt16BE(data.length, 10);
  data.copy(answer, 12);
  return answer;
}

/**
 * Starts the stub: `answers[name]` lists what successive lookups get (the last repeats), so a name
 * can change its answer between a check and a connection. An entry is one address or a list of
 * them; IPv4 addresses answer A queries, IPv6 addresses AAAA queries.
 */
export async function startDnsStub(answers: Record<string, (string | string[])[]>): Promise<DnsStub> {
  const queries = new Map<string, number>();
  const aaaaQueries = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    const { name, end } = readName(message, 12);
    const qtype = message.readUInt16BE(end);
    const counts = qtype === AAAA ? aaaaQueries : queries;
    const count = counts.get(name) ?? 0;
    counts.set(name, count + 1);
    const script = answers[name];
    const entry = script ? [script[Math.min(count, script.length - 1)]!].flat() : [];
    const family = qtype === A ? 4 : qtype === AAAA ? 6 : 0;
    const addresses = entry.filter((address) => isIP(address) === family);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    header.writeUInt16BE(script ? 0x8180 : 0x8183, 2); // NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const question = message.subarray(12, end + 4);
    socket.send(Buffer.concat([header, question, ...addresses.map((address) => record(qtype, address))]), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  // a name without records of one family answers NODATA, which the resolver reports as an error
  const family = (lookup: Promise<string[]>) => lookup.catch((e: { code?: string }) => (e.code === 'ENODATA' ? [] : Promise.reject(e)));
  return {
    resolve: async (host) => {
      const v4 = await family(resolver.resolve4(host));
      const v6 = await family(resolver.resolve6(host));
      return [...v4, ...v6];
    },
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
