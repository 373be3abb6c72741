/**
 * Which addresses Harbor may connect to on a tenant's behalf (webhooks; anything else a tenant
 * points Harbor at): never a private, loopback, link-local, shared, reserved or multicast address
 * (server-side request forgery).
 *
 * An IPv6 address can carry an IPv4 address to a translator or a tunnel: NAT64 (`64:ff9b::/96`,
 * RFC 6052), 6to4 (`2002::/16`), Teredo (`2001::/32`), IPv4-mapped (`::ffff:0:0/96`), -translated
 * (`::ffff:0:0:0/96`) and -compatible (`::/96`). On a network that translates them they reach that
 * IPv4 address, so each carried address is judged as well. The local-use NAT64 prefix
 * (`64:ff9b:1::/48`, RFC 8215) places its IPv4 address where the network chooses: it is refused.
 */
import { BlockList, isIP } from "node:net";
import ipaddr from "ipaddr.js";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 96],
  ["64:ff9b:1::", 48],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

type Bytes = readonly number[];

const has = (bytes: Bytes, prefix: Bytes) => prefix.every((b, i) => bytes[i] === b);
const ipv4At = (bytes: Bytes, at: number, mask = 0) =>
  bytes
    .slice(at, at + 4)
    .map((b) => b ^ mask)
    .join(".");
const ZEROS_80 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/** The IPv4 addresses an IPv6 address carries to a translator or tunnel, if any. */
function carriedIpv4(bytes: Bytes): string[] {
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated).
  if (has(bytes, [...ZEROS_80, 0xff, 0xff]) || has(bytes, [...ZEROS_80.slice(0, 8), 0xff, 0xff, 0, 0])) return [ipv4At(bytes, 12)];
  if (has(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return [ipv4At(bytes, 12)];
  if (has(bytes, [0x20, 0x02])) return [ipv4At(bytes, 2)];
  // Teredo: the server's address, then the client's, stored inverted.
  if (has(bytes, [0x20, 0x01, 0, 0])) return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)];
  return [];
}

function isLoopbackIpv4(address: string): boolean {
  return address.startsWith("127.");
}

/** Whether an address is this machine's loopback (`127.0.0.0/8`, `::1`, or an IPv4-mapped loopback). */
export function isLoopback(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") return isLoopbackIpv4(parsed.toString());
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isLoopbackIpv4(v6.toIPv4Address().toString());
  return v6.toNormalizedString() === "0:0:0:0:0:0:0:1";
}

/**
 * Whether Harbor may connect to this resolved address. `allowLocal` (tests, local trials) lets it
 * reach loopback, directly or IPv4-mapped; never through a translator or tunnel.
 */
export function addressAllowed(address: string, allowLocal: boolean): boolean {
  // Node's notion of an address (no `127.1`, no octal): the one the connection will use.
  if (isIP(address) === 0) return false;
  if (allowLocal && isLoopback(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") return !blocked.check(parsed.toString(), "ipv4");
  const v6 = parsed as ipaddr.IPv6;
  const carried = carriedIpv4(v6.toByteArray());
  if (carried.some((v4) => blocked.check(v4, "ipv4"))) return false;
  return !blocked.check(v6.toNormalizedString(), "ipv6");
}
