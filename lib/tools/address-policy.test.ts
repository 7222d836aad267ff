import { describe, expect, it } from "vitest";
import { refusalReason } from "./address-policy";

describe("refusalReason", () => {
  it.each([
    ["127.0.0.1", /loopback/],
    ["127.255.1.2", /loopback/],
    ["10.0.0.1", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.1.1", /private/],
    ["169.254.169.254", /link-local/],
    ["0.0.0.0", /unspecified/],
    ["100.64.0.1", /carrier-grade/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /reserved/],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["[::1]", /loopback/],
    ["::ffff:127.0.0.1", /IPv4-mapped a loopback/],
    ["::ffff:7f00:1", /IPv4-mapped a loopback/],
    ["::ffff:10.1.2.3", /private/],
    ["::ffff:169.254.169.254", /link-local/],
    ["64:ff9b::a9fe:a9fe", /NAT64 form of a link-local/],
    ["2002:7f00:1::", /6to4 form of a loopback/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["fd12:3456::1", /unique-local/],
    ["fc00::1", /unique-local/],
    ["ff02::1", /multicast/],
    ["::127.0.0.1", /IPv4-compatible/],
    ["example.com", /not an IP/],
    // Special-purpose ranges named by ipaddr.js that the hand-written table did not list.
    ["::ffff:0:127.0.0.1", /IPv4-translated form of a loopback/],
    ["100::1", /discard-only/],
    ["192.88.99.1", /reserved/],
    ["3fff::1", /reserved/],
  ])("refuses %s", (address, reason) => {
    expect(refusalReason(address)).toMatch(reason);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "172.15.255.255", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::"])(
    "allows the public address %s",
    (address) => {
      expect(refusalReason(address)).toBeUndefined();
    },
  );
});
