import ipaddr from 'ipaddr.js';

/**
 * ::/96 holds the deprecated IPv4-compatible addresses (`::127.0.0.1`), which ipaddr.js counts as
 * ordinary unicast; nothing public lives there.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Whether an IP address (any spelling ipaddr.js accepts, IPv6 with or without brackets) is an
 * ordinary public unicast address. Everything else is refused: loopback, private, link-local,
 * carrier-grade NAT, multicast, broadcast, unspecified, documentation, benchmarking, unique-local,
 * and IPv6 forms that carry an IPv4 address inside (mapped, NAT64, 6to4, Teredo), whatever it is.
 * Not an address at all: false.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return parsed.range() === 'unicast';
}

/** Names that resolve to this machine by definition (RFC 6761), whatever a resolver says. */
function isLocalName(host: string): boolean {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Whether a URL's host is, as written, somewhere other than the public internet: an address that
 * is not public, or a localhost name. The WHATWG parser has already turned every IPv4 spelling
 * (`2130706433`, `0x7f.1`, `017700000001`) into dotted form and lower-cased the host.
 * A name that merely resolves to such an address is caught when the relay connects.
 */
export function isPrivateHost(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  if (isLocalName(host)) return true;
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) ? !isPublicAddress(bare) : false;
}
