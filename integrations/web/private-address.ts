import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Addresses a server-side fetch must never reach on a caller's behalf (SSRF).
// Only plain public unicast passes: loopback, private, link-local (cloud
// metadata), carrier-grade NAT, multicast, broadcast, unspecified, documentation
// and every reserved range are refused. An IPv6 form that carries an IPv4
// address (mapped, 6to4, NAT64) is judged by the address it carries, since a
// relay or the host's own stack may deliver it there.

const NAT64_PREFIX = ipaddr.IPv6.parse('64:ff9b::');

/** True for any address that is not a public unicast address (and for text that is no address at all). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return true; // not an address at all: refuse rather than guess
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv4' ? !isPublicV4(parsed as ipaddr.IPv4) : !isPublicV6(parsed as ipaddr.IPv6);
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
      return isPublicV4(address.toIPv4Address());
    case '6to4': // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
      return isPublicV4(embeddedV4(parts[1]!, parts[2]!));
    case 'rfc6052': // NAT64's well-known prefix 64:ff9b::/96 carries the last 32 bits; the local-use 64:ff9b:1::/48 is refused
      return address.match(NAT64_PREFIX, 96) && isPublicV4(embeddedV4(parts[6]!, parts[7]!));
    case 'unicast':
      // Global unicast is 2000::/3: below it lie ::/96 (IPv4-compatible, ::127.0.0.1) and other reserved space.
      return (parts[0]! & 0xe000) === 0x2000;
    default:
      return false;
  }
}

function embeddedV4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
