import ipaddr from 'ipaddr.js';

/** What WEBHOOK_ALLOWED_HOSTS names: host names, addresses and CIDR ranges an operator lets webhooks reach. */
export interface AllowedTargets {
  hosts: ReadonlySet<string>;
  ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

/** Parses WEBHOOK_ALLOWED_HOSTS (comma-separated); throws on an entry that is no host, address or range. */
export function parseAllowedTargets(value: string | undefined): AllowedTargets {
  const hosts = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of (value ?? '').split(',')) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    if (!entry) continue;
    if (entry.includes('/')) ranges.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry))
      hosts.add(entry.replace(/\.$/, ''));
    else throw new Error(`not a host name, address or CIDR range: "${raw.trim()}"`);
  }
  return { hosts, ranges };
}

/** The address itself, an IPv4-mapped IPv6 address as the IPv4 one it maps. */
function normalized(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/**
 * Why a webhook may not reach `address`, or undefined when it may: only public unicast addresses,
 * unless the operator allowed the host name or a range holding the address. Loopback, private,
 * link-local, multicast, unspecified, carrier-grade NAT, reserved and the IPv6 forms that embed an
 * IPv4 address (NAT64, 6to4, Teredo) are refused.
 */
export function refusalOf(address: string, host: string, allowed: AllowedTargets): string | undefined {
  if (
    allowed.hosts.has(
      host
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.$/, ''),
    )
  )
    return undefined;
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const ip = normalized(address);
  for (const [range, bits] of allowed.ranges) {
    if (range.kind() === ip.kind() && ip.match(range as never, bits)) return undefined;
  }
  const kind = ip.range();
  return kind === 'unicast' ? undefined : `${address} is a ${kind} address`;
}

/**
 * Why a webhook's URL may not be written, or undefined when it may: http or https, and a host whose
 * every address the policy allows (it is checked again at every delivery: DNS can change).
 */
export async function urlRefusal(
  url: string,
  allowed: AllowedTargets,
  resolve: (host: string) => Promise<{ address: string }[]>,
): Promise<string | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'The url must be a valid URL.';
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return 'The url must use http or https.';
  if (target.username || target.password) return 'The url must not carry credentials.';
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  // A host the operator named is allowed whatever it resolves to (and it may not resolve from here).
  if (allowed.hosts.has(host.toLowerCase().replace(/\.$/, ''))) return undefined;
  let addresses: { address: string }[];
  try {
    addresses = ipaddr.isValid(host) ? [{ address: host }] : await resolve(host);
  } catch {
    return `The url's host ${host} cannot be resolved.`;
  }
  const refused = addresses.map((a) => refusalOf(a.address, host, allowed)).find(Boolean);
  return refused ? `The url must not point to a private or local network (${refused}).` : undefined;
}
