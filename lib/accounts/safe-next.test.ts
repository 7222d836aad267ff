import { describe, expect, it } from "vitest";
import { safeNextPath } from "./safe-next";

/**
 * `?next=` after login: only a path on this site. The login form and the server's redirect
 * to it both call this one function, so they judge `?next=` the same way. Browsers drop tabs and newlines from
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

describe("safeNextPath", () => {
  it.each(cases)("%j → %s", (input, expected) => {
    expect(safeNextPath(input)).toBe(expected);
  });
});
