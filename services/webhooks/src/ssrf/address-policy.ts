import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses a webhook may be sent to: public unicast only. Every range below reaches
 * something that is not the integrator's public server — this host, the cluster's network, a
 * cloud metadata service (169.254.169.254), a carrier's NAT — so a URL that resolves to one is
 * refused unless its host is allowlisted (WEBHOOK_ALLOWED_HOSTS).
 */
const NON_PUBLIC: readonly { cidr: string; why: string }[] = [
  { cidr: '0.0.0.0/8', why: 'unspecified' },
  { cidr: '10.0.0.0/8', why: 'private' },
  { cidr: '100.64.0.0/10', why: 'carrier-grade NAT' },
  { cidr: '127.0.0.0/8', why: 'loopback' },
  { cidr: '169.254.0.0/16', why: 'link-local' },
  { cidr: '172.16.0.0/12', why: 'private' },
  { cidr: '192.0.0.0/24', why: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', why: 'documentation' },
  { cidr: '192.88.99.0/24', why: '6to4 relay' },
  { cidr: '192.168.0.0/16', why: 'private' },
  { cidr: '198.18.0.0/15', why: 'benchmarking' },
  { cidr: '198.51.100.0/24', why: 'documentation' },
  { cidr: '203.0.113.0/24', why: 'documentation' },
  { cidr: '224.0.0.0/4', why: 'multicast' },
  { cidr: '240.0.0.0/4', why: 'reserved' },
  { cidr: '::/128', why: 'unspecified' },
  { cidr: '::1/128', why: 'loopback' },
  { cidr: '::/96', why: 'IPv4-compatible' },
  { cidr: '64:ff9b::/96', why: 'NAT64' },
  { cidr: '64:ff9b:1::/48', why: 'NAT64' },
  { cidr: '100::/64', why: 'discard' },
  { cidr: '2001:db8::/32', why: 'documentation' },
  { cidr: '2002::/16', why: '6to4' },
  { cidr: 'fc00::/7', why: 'unique-local' },
  { cidr: 'fe80::/10', why: 'link-local' },
  { cidr: 'fec0::/10', why: 'site-local' },
  { cidr: 'ff00::/8', why: 'multicast' },
];

const lists = NON_PUBLIC.map(({ cidr, why }) => {
  const [network, prefix] = cidr.split('/') as [string, string];
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), isIPv4(network) ? 'ipv4' : 'ipv6');
  return { list, family: isIPv4(network) ? ('ipv4' as const) : ('ipv6' as const), why };
});

/** ::ffff:a.b.c.d (or its hex spelling ::ffff:xxxx:xxxx) as a.b.c.d; anything else unchanged. */
export function unmapIpv4(address: string): string {
  const match = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(.+)$/i.exec(address);
  if (!match || !isIPv6(address)) return address;
  const tail = match[1]!;
  if (isIPv4(tail)) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
  if (!hex) return address;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * Why an address is not a public unicast one ("loopback", "private" …), or undefined when it is.
 * An IPv4-mapped IPv6 address is judged as the IPv4 address it carries; a string that is no IP
 * address at all is refused too.
 */
export function nonPublicReason(address: string): string | undefined {
  const candidate = unmapIpv4(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  const family = isIPv4(candidate) ? 'ipv4' : isIPv6(candidate) ? 'ipv6' : undefined;
  if (!family) return 'not an IP address';
  return lists.find((entry) => entry.family === family && entry.list.check(candidate, family))?.why;
}
