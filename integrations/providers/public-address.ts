import { BlockList, isIP } from 'node:net';

// Addresses a server-side fetch of a user-influenced URL must never reach
// (SSRF): loopback, private, link-local (cloud metadata), CGNAT, multicast,
// unspecified and their IPv6 counterparts.
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 3],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv6');

/** True when the address is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) must be judged as the IPv4 it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !BLOCKED.check(mapped[1], 'ipv4');
  return !BLOCKED.check(address, 'ipv6');
}
