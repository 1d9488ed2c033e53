import ipaddr from 'ipaddr.js';

/**
 * Whether an address is public, the only kind outbound requests may reach (CONTRACT.md): ipaddr.js
 * names every special range (loopback, private, link-local with the metadata address
 * 169.254.169.254, unique-local with fd00:ec2::254, carrier-grade NAT, unspecified, multicast,
 * broadcast, reserved and documentation ranges, 6to4, Teredo, NAT64); only plain `unicast` is
 * public. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
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
 * Whether `OUTBOUND_ALLOW_HOSTS` exempts this URL (README "Outbound HTTP"): an entry `host:port`
 * exempts exactly that host on that port, an entry `host` that host on any port. Hosts compare as
 * the URL parser writes them (lower case; IPv6 in brackets).
 */
export function isAllowlisted(allowHosts: readonly string[], url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return allowHosts.includes(`${host}:${portOf(url)}`) || allowHosts.includes(host);
}
