import { isIPv4, isIPv6 } from "node:net";

/**
 * Which IP addresses url_fetch may connect to. Anything that reaches this machine, the
 * local network or cloud metadata (169.254.169.254) is refused, including the same
 * addresses dressed up as IPv6 (IPv4-mapped, NAT64, 6to4). Returns the reason for a
 * refusal, or undefined for a public address.
 */
export function refusalReason(address: string): string | undefined {
  if (isIPv4(address)) return ipv4Reason(ipv4ToInt(address));
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv6(bare)) return ipv6Reason(parseIPv6(bare));
  return "not an IP address";
}

const IPV4_RANGES: Array<[cidr: string, reason: string]> = [
  ["0.0.0.0/8", "the unspecified address"],
  ["10.0.0.0/8", "a private address"],
  ["100.64.0.0/10", "a carrier-grade NAT address"],
  ["127.0.0.0/8", "a loopback address"],
  ["169.254.0.0/16", "a link-local address"],
  ["172.16.0.0/12", "a private address"],
  ["192.0.0.0/24", "a reserved address"],
  ["192.0.2.0/24", "a documentation address"],
  ["192.168.0.0/16", "a private address"],
  ["198.18.0.0/15", "a benchmarking address"],
  ["198.51.100.0/24", "a documentation address"],
  ["203.0.113.0/24", "a documentation address"],
  ["224.0.0.0/4", "a multicast address"],
  ["240.0.0.0/4", "a reserved address"],
];

const IPV4_TABLE = IPV4_RANGES.map(([cidr, reason]) => {
  const [base, bits] = cidr.split("/") as [string, string];
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return { network: ipv4ToInt(base) & mask, mask, reason };
});

function ipv4Reason(value: number): string | undefined {
  for (const { network, mask, reason } of IPV4_TABLE) {
    if (((value & mask) >>> 0) === network >>> 0) return reason;
  }
  return undefined;
}

function ipv4ToInt(address: string): number {
  return address.split(".").reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}

function ipv6Reason(h: number[]): string | undefined {
  const [a = 0, b = 0] = h;
  const embedded = ((h[6]! << 16) | h[7]!) >>> 0;
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return "the unspecified address";
  if (zeros(0, 7) && h[7] === 1) return "a loopback address";
  if (zeros(0, 5) && h[5] === 0xffff) return ipv4Reason(embedded) && `an IPv4-mapped ${ipv4Reason(embedded)}`;
  if (zeros(0, 6)) return "an IPv4-compatible address";
  if (a === 0x64 && b === 0xff9b) return ipv4Reason(embedded) && `a NAT64 form of ${ipv4Reason(embedded)}`;
  if (a === 0x2002) {
    const inner = ((h[1]! << 16) | h[2]!) >>> 0;
    return ipv4Reason(inner) && `a 6to4 form of ${ipv4Reason(inner)}`;
  }
  if (a === 0x2001 && b === 0) return "a Teredo tunnel address";
  if (a === 0x2001 && b === 0xdb8) return "a documentation address";
  if ((a & 0xfe00) === 0xfc00) return "a unique-local address";
  if ((a & 0xffc0) === 0xfe80) return "a link-local address";
  if ((a & 0xffc0) === 0xfec0) return "a site-local address";
  if ((a & 0xff00) === 0xff00) return "a multicast address";
  return undefined;
}

/** Eight 16-bit groups of a valid IPv6 address (validated by `isIPv6` beforehand). */
function parseIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = ipv4ToInt(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const fill = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}
