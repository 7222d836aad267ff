import { describe, expect, it } from "vitest";
import { ssoErrorText } from "./sso-error";

describe("ssoErrorText", () => {
  it.each([
    [null, null, null],
    ["other", "expired", null],
    ["sso", "expired", /took too long/],
    ["sso", "denied", /cancelled at the provider/],
    ["sso", "refused", /cannot sign in here/],
    ["sso", "unavailable", /cannot be reached/],
    ["sso", "nonce", /could not be completed/],
    ["sso", null, /could not be completed/],
    ["sso", "<b>Call +1 555 to unlock your account</b>", /could not be completed/],
    ["sso", "__proto__", /could not be completed/],
    ["sso", "toString", /could not be completed/],
  ])("error=%s reason=%s", (error, reason, expected) => {
    const text = ssoErrorText(error, reason);
    if (expected === null) expect(text).toBeNull();
    else expect(text).toMatch(expected);
  });

  it("never repeats text from the address bar", () => {
    expect(ssoErrorText("sso", "Your account is locked, call us")).not.toContain("locked");
  });
});
