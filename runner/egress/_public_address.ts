/**
 * Private: whether an IP address is on the public internet, so that an
 * allowed host name that resolves to the runner's own machine or network
 * (loopback, a private range, link-local cloud metadata at 169.254.169.254)
 * does not become a way out of the verifier's sandbox (issue 22).
 *
 * @module
 */

/**
 * IPv4 ranges that are not public (RFC 6890 special-purpose registry):
 * `[first octets as a 32-bit prefix, prefix length]`.
 */
const NON_PUBLIC_V4: readonly [number, number][] = [
  [ip4(0, 0, 0, 0), 8], // "this network"
  [ip4(10, 0, 0, 0), 8], // private (RFC 1918)
  [ip4(100, 64, 0, 0), 10], // carrier-grade NAT (RFC 6598)
  [ip4(127, 0, 0, 0), 8], // loopback
  [ip4(169, 254, 0, 0), 16], // link-local, cloud metadata
  [ip4(172, 16, 0, 0), 12], // private
  [ip4(192, 0, 0, 0), 24], // IETF protocol assignments
  [ip4(192, 0, 2, 0), 24], // documentation (TEST-NET-1)
  [ip4(192, 168, 0, 0), 16], // private
  [ip4(198, 18, 0, 0), 15], // benchmarking
  [ip4(198, 51, 100, 0), 24], // documentation (TEST-NET-2)
  [ip4(203, 0, 113, 0), 24], // documentation (TEST-NET-3)
  [ip4(224, 0, 0, 0), 4], // multicast
  [ip4(240, 0, 0, 0), 4], // reserved, broadcast
];

function ip4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function parseV4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^[0-9]{1,3}$/.test(part))) return null;
  const octets = parts.map(Number);
  if (octets.some((octet) => octet > 255)) return null;
  return ip4(octets[0], octets[1], octets[2], octets[3]);
}

function publicV4(address: number): boolean {
  return NON_PUBLIC_V4.every(([prefix, bits]) => {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return ((address & mask) >>> 0) !== prefix;
  });
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail allowed), or null. */
function parseV6(text: string): number[] | null {
  let body = text;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  if (lastColon < 0) return null;
  const last = body.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseV4(last);
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => half === "" ? [] : half.split(":");
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (![...head, ...rest].every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const hex = (group: string) => parseInt(group, 16);
  return [...head.map(hex), ...new Array(8 - given).fill(0), ...rest.map(hex), ...tail];
}

function publicV6(groups: number[]): boolean {
  const v4At = (i: number) => ((groups[i] << 16) | groups[i + 1]) >>> 0;
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return publicV4(v4At(6)); // IPv4-mapped
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return publicV4(v4At(6)); // NAT64
  if (groups[0] === 0x2002) return publicV4(v4At(1)); // 6to4
  if (groups[0] === 0x2001 && groups[1] === 0x0db8) return false; // documentation
  if (groups[0] === 0x2001 && groups[1] === 0) return false; // Teredo (an IPv4 in disguise)
  return (groups[0] & 0xe000) === 0x2000; // global unicast is 2000::/3; all else is not public
}

/**
 * Whether an IP address is a public internet address.
 *
 * Rule: IPv4 outside RFC 6890's special-purpose ranges (loopback, RFC 1918
 * private, carrier-grade NAT, link-local, documentation, benchmarking,
 * multicast, reserved); IPv6 inside global unicast `2000::/3` except
 * documentation `2001:db8::/32` and Teredo `2001::/32`, with the IPv4
 * address inside an IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`)
 * or 6to4 (`2002::/16`) address judged as IPv4. Text that is no IP
 * address is not public. Cost: O(1).
 *
 * @param address an address as `getaddrinfo` prints it (`1.2.3.4`, `2606:4700::1`; no brackets)
 * @returns true when the proxy may connect to it
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseV4(address);
  if (v4 !== null) return publicV4(v4);
  const v6 = parseV6(address);
  return v6 !== null && publicV6(v6);
}
