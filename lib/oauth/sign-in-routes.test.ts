import { describe, expect, it } from "vitest";
import { signInOutcome } from "./sign-in-routes";

describe("the sign-in outcome in the address", () => {
  it.each([
    ["", null],
    ["?session=abc", null],
    ["?mcp_signed_in=vault", { ok: true, server: "vault" }],
    [
      "?mcp_error=The+authorization+server+refused%3A+access_denied",
      { ok: false, message: "The authorization server refused: access_denied" },
    ],
    [`?mcp_error=${"x".repeat(900)}`, { ok: false, message: "x".repeat(500) }],
  ])("%s → %j", (search, expected) => {
    expect(signInOutcome(search)).toEqual(expected);
  });
});
