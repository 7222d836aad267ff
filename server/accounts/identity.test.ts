import { parseSetCookie } from "cookie";
import { describe, expect, it } from "vitest";
import { openTestDatabase } from "@/test/support/server/database";
import { createIdentity, IDENTITY_COOKIE, identityCookieHeader } from "./identity";
import { createPasswordGate } from "./password-gate";

describe("identity cookie", () => {
  const secret = "s".repeat(32);
  const identity = createIdentity(secret);

  it("verifies what it minted and nothing forged", () => {
    const { userId, cookieValue } = identity.mint();
    expect(identity.verify(cookieValue)).toBe(userId);
    expect(identity.verify(`${"A".repeat(24)}.${cookieValue.split(".")[1]}`)).toBeNull();
    expect(identity.verify(`${userId}.${"A".repeat(43)}`)).toBeNull();
    expect(identity.verify(undefined)).toBeNull();
    expect(identity.verify("no-dot")).toBeNull();
    expect(createIdentity("t".repeat(32)).verify(cookieValue)).toBeNull();
  });

  it("does not take a password-gate cookie signed with the same secret", async () => {
    const db = await openTestDatabase("identity_gate");
    try {
      const auth = await createPasswordGate({ password: "pw", secret, sessions: db.models.LoginSession }).issue();
      expect(identity.verify(auth)).toBeNull();
    } finally {
      await db.close();
    }
  });

  it("is set httpOnly, SameSite=Lax, for a year, Secure on request", () => {
    const header = identityCookieHeader("abc.def", true);
    expect(parseSetCookie(header)).toMatchObject({
      name: IDENTITY_COOKIE,
      value: "abc.def",
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      maxAge: 365 * 24 * 3600,
      secure: true,
    });
    expect(identityCookieHeader("abc.def", false)).not.toMatch(/Secure/);
  });
});
