import ipaddr from "ipaddr.js";
import { isIPv4, isIPv6 } from "node:net";

/**
 * Which IP addresses url_fetch may connect to. Anything that reaches this machine, the
 * local network or cloud metadata (169.254.169.254) is refused, including the same
 * addresses dressed up as IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4). Returns the
 * reason for a refusal, or undefined for a public address.
 *
 * ipaddr.js rather than node:net's BlockList: a BlockList only answers "listed or not"
 * (one list per reason would be needed for a message) and cannot pull the IPv4 address
 * out of a NAT64 or 6to4 address, while ipaddr.js names the IANA special-purpose ranges
 * (`range()`) and gives the bytes to unwrap them. node:net still decides what counts as
 * an IP address at all: its parser is strict, where ipaddr.js also takes "127.1" or
 * "0x7f.0.0.1", spellings the URL parser has already normalised before we get here.
 */
export function refusalReason(address: string): string | undefined {
  if (isIPv4(address)) return ipv4Reason(ipaddr.IPv4.parse(address));
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv6(bare)) return ipv6Reason(parseIPv6(bare));
  return "not an IP address";
}

/** ipaddr.js range names → reasons; a name not listed (unicast, as112, amt: public anycast) is allowed. */
const IPV4_REASONS: Record<string, string> = {
  unspecified: "the unspecified address",
  private: "a private address",
  carrierGradeNat: "a carrier-grade NAT address",
  loopback: "a loopback address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  broadcast: "a reserved address",
  // 192.0.0.0/24, documentation, benchmarking, the 6to4 relay anycast and 240.0.0.0/4.
  reserved: "a reserved address",
};

const IPV6_REASONS: Record<string, string> = {
  unspecified: "the unspecified address",
  loopback: "a loopback address",
  linkLocal: "a link-local address",
  uniqueLocal: "a unique-local address",
  deprecatedSiteLocal: "a site-local address",
  multicast: "a multicast address",
  teredo: "a Teredo tunnel address",
  benchmarking: "a benchmarking address",
  discard: "a discard-only address",
  // 2001::/23 protocol assignments, documentation (2001:db8::/32, 3fff::/20).
  reserved: "a reserved address",
  deprecatedOrchid: "a reserved address",
  orchid2: "a reserved address",
  droneRemoteIdProtocolEntityTags: "a reserved address",
  segmentRouting: "a reserved address",
};

/** IPv6 ranges that carry an IPv4 address, and where: refused when that address would be. */
const EMBEDDING: Record<string, { form: string; bytes: [number, number] }> = {
  ipv4Mapped: { form: "an IPv4-mapped", bytes: [12, 16] },
  rfc6145: { form: "an IPv4-translated form of", bytes: [12, 16] },
  rfc6052: { form: "a NAT64 form of", bytes: [12, 16] },
  "6to4": { form: "a 6to4 form of", bytes: [2, 6] },
};

/** ::/96 minus :: and ::1, which ipaddr.js files as plain unicast. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

function ipv4Reason(address: ipaddr.IPv4): string | undefined {
  return IPV4_REASONS[address.range()];
}

function ipv6Reason(address: ipaddr.IPv6): string | undefined {
  const range: string = address.range();
  const embedding = EMBEDDING[range];
  if (embedding) {
    const inner = ipv4Reason(
      ipaddr.IPv4.parse(
        address
          .toByteArray()
          .slice(...embedding.bytes)
          .join("."),
      ),
    );
    return inner && `${embedding.form} ${inner}`;
  }
  if (range === "unicast" && address.match(IPV4_COMPATIBLE)) return "an IPv4-compatible address";
  return IPV6_REASONS[range];
}

/**
 * ipaddr.js reads the deprecated IPv4-compatible spelling "::a.b.c.d" as IPv4-mapped
 * (::ffff:a.b.c.d); RFC 4291 makes it ::a.b.c.d. Build that address from its bytes.
 */
function parseIPv6(address: string): ipaddr.IPv6 {
  const compatible = /^::(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (!compatible) return ipaddr.IPv6.parse(address);
  return ipaddr.fromByteArray([...new Array<number>(12).fill(0), ...ipaddr.IPv4.parse(compatible[1]!).toByteArray()]) as ipaddr.IPv6;
}
