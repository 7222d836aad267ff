import { describe, expect, it } from "vitest";
import { ssoErrorText } from "./sso-error";

describe("ssoErrorText", () => {
  it.each([
    [null, null, null],
    ["other", "state", null],
    ["sso", "state", /expired or was started in another tab/],
    ["sso", "refused", /no account for it here/],
    ["sso", null, /did not complete/],
    ["sso", "<b>Call +1 555 to unlock your account</b>", /did not complete/],
    ["sso", "__proto__", /did not complete/],
    ["sso", "toString", /did not complete/],
  ])("error=%s reason=%s", (error, reason, expected) => {
    const text = ssoErrorText(error, reason);
    if (expected === null) expect(text).toBeNull();
    else expect(text).toMatch(expected);
  });

  it("never repeats text from the address bar", () => {
    expect(ssoErrorText("sso", "Your account is locked, call us")).not.toContain("locked");
  });
});
