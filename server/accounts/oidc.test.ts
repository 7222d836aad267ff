import type { IDToken, UserInfoResponse } from "openid-client";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { createOidcClient, identityFrom, OidcError, oidcFromEnv, redirectUriFor } from "./oidc";
import { createSigner } from "./signer";

/** The identity handed to the accounts service, from claims the provider controls. */
const token = (claims: Record<string, unknown>): IDToken =>
  ({ iss: "https://id.example.com", sub: "u1", aud: "c", iat: 0, exp: 0, ...claims }) as IDToken;
const info = (claims: Record<string, unknown>): UserInfoResponse => ({ sub: "u1", ...claims }) as UserInfoResponse;

describe("identityFrom", () => {
  it.each([
    [
      "a verified email in the ID token",
      token({ email: "Ann@Example.COM ", email_verified: true, name: "Ann" }),
      undefined,
      { email: "ann@example.com", emailVerified: true, name: "Ann" },
    ],
    [
      "an email the provider did not verify",
      token({ email: "ann@example.com", email_verified: false }),
      undefined,
      { email: "ann@example.com", emailVerified: false, name: null },
    ],
    ["email_verified missing", token({ email: "ann@example.com" }), undefined, { email: "ann@example.com", emailVerified: false }],
    [
      'email_verified as the string "true"',
      token({ email: "ann@example.com", email_verified: "true" }),
      undefined,
      { email: "ann@example.com", emailVerified: false },
    ],
    [
      "email and name only in UserInfo",
      token({}),
      info({ email: "ann@example.com", email_verified: true, name: "Ann" }),
      { email: "ann@example.com", emailVerified: true, name: "Ann" },
    ],
    [
      "a verified flag in UserInfo never vouches for the ID token's other email",
      token({ email: "ann@example.com" }),
      info({ email: "boss@example.com", email_verified: true }),
      { email: "ann@example.com", emailVerified: false },
    ],
    ["no email anywhere", token({}), info({ name: "Ann" }), { email: null, emailVerified: false, name: "Ann" }],
    ["not an email address", token({ email: "ann at example", email_verified: true }), undefined, { email: null, emailVerified: false }],
    [
      "an email with a newline",
      token({ email: "ann@example.com\nbcc@evil.example", email_verified: true }),
      undefined,
      { email: null, emailVerified: false },
    ],
    [
      "an overlong email",
      token({ email: `${"a".repeat(250)}@example.com`, email_verified: true }),
      undefined,
      { email: null, emailVerified: false },
    ],
    [
      "an email that is not a string",
      token({ email: ["ann@example.com"], email_verified: true }),
      undefined,
      { email: null, emailVerified: false },
    ],
    ["a name with control characters", token({ name: "Ann\u0000\u202e Lee\n" }), info({}), { name: "Ann Lee" }],
    ["an overlong name, cut to 80 characters", token({ name: "é".repeat(200) }), info({}), { name: "é".repeat(80) }],
    ["a blank name", token({ name: " \t " }), info({}), { name: null }],
  ])("%s", (_name, claims, userinfo, expected) => {
    const identity = identityFrom(claims, userinfo);
    expect(identity).toMatchObject({ issuer: "https://id.example.com", subject: "u1", ...expected });
  });
});

describe("the attempt cookie", () => {
  const settings = { issuer: "http://127.0.0.1:1", clientId: "c", redirectUri: "http://127.0.0.1:2/api/auth/oidc/callback" };

  it("refuses a cookie signed by the same secret for another purpose (the identity cookie's shape)", async () => {
    const signer = createSigner("a-secret-of-at-least-thirty-two-characters");
    const client = createOidcClient(settings, signer);
    const payload = Buffer.from(JSON.stringify({ v: "v".repeat(43), s: "s", n: "n", next: "/", exp: Date.now() + 60_000 })).toString(
      "base64url",
    );
    const promise = client.complete(new URLSearchParams("code=x&state=s"), `${payload}.${signer.sign(payload)}`);
    await expect(promise).rejects.toBeInstanceOf(OidcError);
    await expect(promise).rejects.toMatchObject({ reason: "expired" });
  });
});

describe("oidcFromEnv", () => {
  const signer = createSigner("a-secret-of-at-least-thirty-two-characters");

  it("builds no client without a provider, and the redirect URI from PUBLIC_URL", () => {
    expect(oidcFromEnv(parseEnv({}), signer)).toBeNull();
    expect(
      oidcFromEnv(parseEnv({ OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "c", PUBLIC_URL: "https://chat.example.com" }), signer),
    ).not.toBeNull();
    expect(redirectUriFor("https://chat.example.com")).toBe("https://chat.example.com/api/auth/oidc/callback");
    expect(redirectUriFor("https://example.com/delegate/")).toBe("https://example.com/delegate/api/auth/oidc/callback");
  });
});
