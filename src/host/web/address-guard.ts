// Which addresses WebFetch may connect to: never a private, loopback, link-local, multicast or
// otherwise special-purpose one (the machine itself, the local network, a cloud metadata service),
// unless the user's `webFetch.allowPrivate` names the host, the address or its range. The check runs
// on every address a name resolves to, before connecting, and the connection goes to an address that
// passed it (guarded-lookup.ts), so a second resolution cannot swap it.
import net from 'node:net';

/** IPv4 ranges that are not the public internet (RFC 6890 and friends). */
const BLOCKED_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/** IPv6 ranges that are not the public internet. IPv4-mapped addresses are judged as IPv4. */
const BLOCKED_V6: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new net.BlockList();
for (const [address, prefix] of BLOCKED_V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of BLOCKED_V6) blocked.addSubnet(address, prefix, 'ipv6');

/** What the user trusts although it is private: host names, and addresses or ranges. */
export interface PrivateAllowance {
  hosts: ReadonlySet<string>;
  addresses: net.BlockList;
}

/**
 * Reads `webFetch.allowPrivate` entries: `10.0.0.0/8` or `fd00::/8` ranges, single addresses, and
 * host names (matched exactly, case-insensitively). An entry that is none of these is ignored (the
 * config schema reports it).
 */
export function privateAllowance(entries: readonly string[]): PrivateAllowance {
  const hosts = new Set<string>();
  const addresses = new net.BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const [address = '', prefix] = entry.split('/');
    const family = net.isIP(address);
    if (family === 0) {
      if (prefix === undefined && entry !== '') hosts.add(entry.replace(/\.$/, ''));
      continue;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
    if (Number.isInteger(bits) && bits >= 0 && bits <= (family === 4 ? 32 : 128))
      addresses.addSubnet(address, bits, type);
  }
  return { hosts, addresses };
}

/** The IPv4 address an IPv6 address carries (NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedV4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const nat64 = /^64:ff9b::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  const groups = nat64 ?? sixToFour;
  if (groups === null) {
    const dotted = /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
    return dotted;
  }
  const hi = parseInt(groups[1] ?? '0', 16);
  const lo = parseInt(groups[2] ?? '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Why `address` (a resolved IP address) must not be reached from `hostname`, or undefined when it
 * may be: a public address, or a private one the allowance trusts.
 */
export function addressRefusal(
  address: string,
  hostname: string,
  allowance: PrivateAllowance,
): string | undefined {
  const family = net.isIP(address);
  if (family === 0) return `"${address}" is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const inner = family === 6 ? embeddedV4(address) : undefined;
  const isBlocked = blocked.check(address, type) || (inner !== undefined && blocked.check(inner, 'ipv4'));
  if (!isBlocked) return undefined;
  if (allowance.hosts.has(hostname.toLowerCase().replace(/\.$/, ''))) return undefined;
  if (allowance.addresses.check(address, type)) return undefined;
  if (inner !== undefined && allowance.addresses.check(inner, 'ipv4')) return undefined;
  return `${hostname} resolves to ${address}, a private, loopback, link-local or reserved address; WebFetch reaches only the public internet (trust it with webFetch.allowPrivate in .cadre/config.json)`;
}
