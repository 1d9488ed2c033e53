import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether an address is public, the only kind outbound requests may reach (CONTRACT.md). For IPv4
 * ipaddr.js names every special range (loopback, private, link-local with the metadata address
 * 169.254.169.254, carrier-grade NAT, unspecified 0/8, multicast, broadcast, reserved and
 * documentation ranges); only plain `unicast` is public. IPv6 is public when it is plain unicast
 * inside the global unicast block 2000::/3 (unique-local fd00:ec2::254, link-local, `::`, `::1`
 * and the unassigned rest are not), except that every form which carries an IPv4 address is
 * judged by the IPv4 address(es) it carries, since that is where a host or a translator on the
 * path may deliver it: see `carriedIPv4`.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicIPv4(ipaddr.IPv4.parse(address));
  if (family !== 6) return false;
  const v6 = parseIPv6(address);
  const carried = carriedIPv4(v6);
  if (!carried.inPrefix && !(isGlobalUnicastBlock(v6) && v6.range() === 'unicast')) return false;
  return carried.addresses.every(isPublicIPv4);
}

/**
 * Parses IPv6 as the socket layer reads it. ipaddr.js reads the deprecated `::a.b.c.d` as the
 * mapped `::ffff:a.b.c.d`, while the kernel, the resolver's `::127.0.0.1` and the URL parser's
 * `::7f00:1` mean the IPv4-compatible address, so a dotted tail is rewritten as two hex groups
 * first (Node's isIP has already checked it is strict dotted decimal).
 */
function parseIPv6(address: string): ipaddr.IPv6 {
  const dotted = /^([0-9a-f:]*:)(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/i.exec(address);
  if (!dotted) return ipaddr.IPv6.parse(address);
  const [a, b, c, d] = dotted.slice(2, 6).map(Number) as [number, number, number, number];
  return ipaddr.IPv6.parse(`${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${dotted[6] ?? ''}`);
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

/** 2000::/3, the only block IANA allocates global unicast addresses from. */
function isGlobalUnicastBlock(address: ipaddr.IPv6): boolean {
  return (address.parts[0]! & 0xe000) === 0x2000;
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, and whether a transition prefix carries them
 * (otherwise the address's own range decides too):
 * - IPv4-compatible `::a.b.c.d` (which the URL parser writes `::7f00:1`; `::` and `::1` carry
 *   0.0.0.0 and 0.0.0.1, both unspecified) and IPv4-mapped `::ffff:a.b.c.d`;
 * - IPv4-translated `::ffff:0:a.b.c.d` (RFC 6145);
 * - NAT64 with the well-known prefix `64:ff9b::a.b.c.d` (RFC 6052). The local-use prefix
 *   64:ff9b:1::/48 (RFC 8215) is left to its range, which refuses it: where it carries the
 *   address depends on the prefix length its operator chose, so it cannot be read reliably;
 * - 6to4 `2002:AABB:CCDD::/48` (RFC 3056);
 * - Teredo `2001:0:S:S:flags:port:C:C` (RFC 4380): the server S and the client C, whose bits are
 *   stored inverted; both must be public.
 * Independently of the prefix, an ISATAP interface identifier `[0-3]00:5efe:a.b.c.d` (RFC 5214)
 * carries the address an ISATAP host on the same site would send the packet to directly.
 */
function carriedIPv4(address: ipaddr.IPv6): { inPrefix: boolean; addresses: ipaddr.IPv4[] } {
  const p = address.parts as number[];
  const zero = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  const last32 = ipv4Of(p[6]!, p[7]!);
  let addresses: ipaddr.IPv4[] = [];
  if (zero(0, 5) && (p[5] === 0 || p[5] === 0xffff))
    addresses = [last32]; // compatible, mapped
  else if (zero(0, 4) && p[4] === 0xffff && p[5] === 0)
    addresses = [last32]; // translated
  else if (p[0] === 0x64 && p[1] === 0xff9b && zero(2, 6))
    addresses = [last32]; // NAT64
  else if (p[0] === 0x2002)
    addresses = [ipv4Of(p[1]!, p[2]!)]; // 6to4
  else if (p[0] === 0x2001 && p[1] === 0) addresses = [ipv4Of(p[2]!, p[3]!), ipv4Of(p[6]! ^ 0xffff, p[7]! ^ 0xffff)]; // Teredo
  const inPrefix = addresses.length > 0;
  if ((p[4]! & 0xfcff) === 0 && p[5] === 0x5efe) addresses.push(last32); // ISATAP
  return { inPrefix, addresses };
}

/** The URL's hostname without IPv6 brackets, lower-cased. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** The URL's port, or its scheme's default. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Whether `OUTBOUND_ALLOW_HOSTS` exempts this URL (README "Configuration"): an entry `host:port`
 * exempts exactly that host on that port, an entry `host` that host on any port. Hosts compare as
 * the URL parser writes them (lower case; IPv6 in brackets).
 */
export function isAllowlisted(allowHosts: readonly string[], url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return allowHosts.includes(`${host}:${portOf(url)}`) || allowHosts.includes(host);
}
