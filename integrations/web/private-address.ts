import { BlockList, isIP } from 'node:net';

// Addresses a server-side fetch must never reach on a caller's behalf (SSRF):
// loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, reserved.
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked against the IPv4 rules by BlockList itself.
for (const [network, prefix] of [
  ['::', 127], // :: and ::1
  ['64:ff9b::', 96], // NAT64 can map to private IPv4
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** True for any address that is not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return BLOCKED.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
