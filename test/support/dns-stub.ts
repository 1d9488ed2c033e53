import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';

/** A local DNS server on 127.0.0.1 for guard tests: answers A queries with the next address of a script per name. */
export interface DnsStub {
  /** A resolver (for OutboundGuard's `resolve`) that asks only this stub. */
  resolve(host: string): Promise<string[]>;
  /** How many queries each name got. */
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

/**
 * Starts the stub: `answers[name]` lists the IPv4 addresses to give on successive queries (the
 * last repeats), so a name can change its answer between a check and a connection.
 */
export async function startDnsStub(answers: Record<string, string[]>): Promise<DnsStub> {
  const queries = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    const { name, end } = readName(message, 12);
    const qtype = message.readUInt16BE(end);
    const count = queries.get(name) ?? 0;
    queries.set(name, count + 1);
    const script = answers[name];
    const address = qtype === 1 && script ? script[Math.min(count, script.length - 1)] : undefined;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    header.writeUInt16BE(script ? 0x8180 : 0x8183, 2); // NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    const question = message.subarray(12, end + 4);
    const parts = [header, question];
    if (address) {
      const answer = Buffer.alloc(16);
      answer.writeUInt16BE(0xc00c, 0);
      answer.writeUInt16BE(1, 2);
      answer.writeUInt16BE(1, 4);
      answer.writeUInt32BE(0, 6);
      answer.writeUInt16BE(4, 10);
      address.split('.').forEach((octet, i) => answer.writeUInt8(Number(octet), 12 + i));
      parts.push(answer);
    }
    socket.send(Buffer.concat(parts), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  return {
    resolve: (host) => resolver.resolve4(host),
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
