import { describe, expect, it } from "vitest";
import { safeNextPath as clientSide } from "@/components/auth/safe-next";
import { safeNextPath as serverSide } from "./password-gate";

/**
 * `?next=` after login: only a path on this site. Browsers drop tabs and newlines from
 * URLs and read "\" as "/", so "/\t/host" becomes "//host", another site.
 */
const cases: [string | null, string][] = [
  ["/c/abc", "/c/abc"],
  ["/c/abc?x=1#top", "/c/abc?x=1#top"],
  ["/a/../c/abc", "/c/abc"],
  ["/%09/evil.example", "/%09/evil.example"],
  [null, "/"],
  ["", "/"],
  ["c/abc", "/"],
  ["https://evil.example", "/"],
  ["javascript:alert(1)", "/"],
  ["//evil.example", "/"],
  ["/\\evil.example", "/"],
  ["\\\\evil.example", "/"],
  ["/\t/evil.example", "/"],
  ["/\n/evil.example", "/"],
  ["/\r/evil.example", "/"],
  ["/\r\n/evil.example", "/"],
  ["/\u0000/evil.example", "/"],
  ["/\u007f/evil.example", "/"],
  ["\t//evil.example", "/"],
  [" //evil.example", "/"],
  ["/..//evil.example", "/"],
  ["/.//evil.example", "/"],
  ["/\\/evil.example", "/"],
  ["/c/\tabc", "/"],
];

describe.each([
  ["the login form", clientSide],
  ["the server's redirect", serverSide],
])("safeNextPath in %s", (_where, safeNextPath) => {
  it.each(cases)("%j → %s", (input, expected) => {
    expect(safeNextPath(input)).toBe(expected);
  });
});
