import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ATTEMPT_COOKIE } from "@/server/accounts/oidc";
import { freePort } from "@/test/support/free-port";
import { startSsoApp, type SsoApp } from "@/test/support/oidc/sso-app";
import { startTestProvider } from "@/test/support/oidc/provider";

/**
 * Single sign-on end to end over real HTTP: the routes on a node:http server, a real
 * OpenID provider (oidc-provider) on loopback, the code flow as a browser walks it.
 */
let app: SsoApp;
const ACCOUNTS = {
  alice: { email: "Alice@Example.com", email_verified: true, name: "Alice Liddell" },
  bob: { email: "bob@example.com", email_verified: false, name: "Bob" },
  carol: { email: "carol@example.com", name: "Carol" },
};

beforeAll(async () => {
  app = await startSsoApp(ACCOUNTS);
});
afterAll(async () => {
  await app?.close();
});
beforeEach(() => {
  app.signIns.length = 0;
  app.ended.length = 0;
  app.provider.tamperIdTokens(null);
  app.provider.tamperUserinfo(null);
  app.useClient();
});

/** A browser's whole trip: start, sign in at the provider, come back. */
async function signInAs(account: string, next?: string) {
  const started = await app.start(next);
  const back = await app.provider.signIn(started.location, account);
  return { started, back, result: await app.callback(back.search.slice(1), started.cookie) };
}

function expectRefused(result: Awaited<ReturnType<SsoApp["callback"]>>, reason: string) {
  expect(result.status).toBe(302);
  expect(result.location).toBe(`/login?error=sso&reason=${reason}`);
  expect(result.session).toBeUndefined();
  expect(result.attemptCleared).toBe(true);
  expect(app.signIns).toEqual([]);
  // A refused callback (which anyone can send) never signs the browser out either.
  expect(app.ended).toEqual([]);
}

describe("SSO sign-in over OpenID Connect", () => {
  it("sends the browser to the provider with PKCE (S256), a state and a nonce, and a short-lived attempt cookie", async () => {
    const first = await app.start("/c/abc");
    const second = await app.start("/c/abc");
    expect(first.status).toBe(302);
    const url = new URL(first.location);
    expect(url.origin).toBe(app.provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: app.provider.clientId,
      redirect_uri: app.redirectUri,
      response_type: "code",
      scope: "openid email profile",
      code_challenge_method: "S256",
    });
    for (const name of ["state", "nonce", "code_challenge"]) {
      expect(url.searchParams.get(name)).toMatch(/^[\w-]{43,}$/);
      expect(new URL(second.location).searchParams.get(name)).not.toBe(url.searchParams.get(name));
    }
    const res = await fetch(`${app.baseUrl}/api/auth/oidc/start`, { redirect: "manual" });
    const line = res.headers.getSetCookie().find((c) => c.startsWith(`${ATTEMPT_COOKIE}=`)) ?? "";
    expect(line).toMatch(/Max-Age=600/);
    expect(line).toMatch(/Path=\/api\/auth\/oidc/);
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    // The verifier itself never leaves for the provider.
    expect(first.location).not.toContain(JSON.parse(Buffer.from(first.cookie.split("=")[1]!.split(".")[0]!, "base64url").toString()).v);
  });

  it("the full code flow signs the person in with their verified identity and lands on the page they started from", async () => {
    const { result } = await signInAs("alice", "/c/abc?tab=1");
    expect(result).toEqual({ status: 302, location: "/c/abc?tab=1", session: "session-for-alice", attemptCleared: true });
    expect(app.signIns).toEqual([
      {
        identity: { issuer: app.provider.issuer, subject: "alice", email: "alice@example.com", emailVerified: true, name: "Alice Liddell" },
        meta: { userAgent: "sso-test-browser", address: "127.0.0.1" },
      },
    ]);
  });

  it("ends the sign-in session the browser already had before starting a new one (session fixation)", async () => {
    const started = await app.start();
    const back = await app.provider.signIn(started.location, "alice");
    const result = await app.callback(back.search.slice(1), `dlg_session=planted-by-someone; ${started.cookie}`);
    expect(app.ended).toEqual(["planted-by-someone"]);
    expect(result.session).toBe("session-for-alice");
  });

  it("reads the identity from the ID token alone when the provider puts the claims there", async () => {
    const other = await startSsoApp(ACCOUNTS, { provider: { claimsInIdToken: true } });
    try {
      const started = await other.start();
      const back = await other.provider.signIn(started.location, "alice");
      expect((await other.callback(back.search.slice(1), started.cookie)).session).toBe("session-for-alice");
      expect(other.signIns[0]?.identity).toEqual({
        issuer: other.provider.issuer,
        subject: "alice",
        email: "alice@example.com",
        emailVerified: true,
        name: "Alice Liddell",
      });
    } finally {
      await other.close();
    }
  });

  it("reports an email the provider has not verified as unverified", async () => {
    await signInAs("bob");
    await signInAs("carol");
    expect(app.signIns.map((call) => call.identity)).toEqual([
      { issuer: app.provider.issuer, subject: "bob", email: "bob@example.com", emailVerified: false, name: "Bob" },
      { issuer: app.provider.issuer, subject: "carol", email: "carol@example.com", emailVerified: false, name: "Carol" },
    ]);
  });

  it("never sends the person off the site after signing in, whatever `next` said", async () => {
    for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "/..//evil.example"]) {
      expect((await signInAs("alice", next)).result.location).toBe("/");
    }
  });

  it("refuses a callback whose state was tampered with", async () => {
    const started = await app.start();
    const back = await app.provider.signIn(started.location, "alice");
    back.searchParams.set("state", `${back.searchParams.get("state")}x`);
    expectRefused(await app.callback(back.search.slice(1), started.cookie), "state");
  });

  it("refuses an ID token with a wrong nonce, even one properly signed by the provider", async () => {
    app.provider.tamperIdTokens((claims) => ({ ...claims, nonce: "a-nonce-from-another-attempt" }));
    const { result } = await signInAs("alice");
    expectRefused(result, "nonce");
  });

  it.each([
    ["issued for another client (audience)", { aud: "another-client" }],
    ["from another issuer", { iss: "http://127.0.0.1:1" }],
    ["that expired an hour ago", { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }],
  ])("refuses an ID token %s, even one signed by the provider", async (_name, change) => {
    app.provider.tamperIdTokens((claims) => ({ ...claims, ...change }));
    expectRefused((await signInAs("alice")).result, "token");
  });

  it("checks the ID token's signature: claims changed after signing are refused", async () => {
    // Without the check this would sign alice's browser in as the verified mallory.
    app.provider.tamperIdTokens((claims) => ({ ...claims, email: "mallory@example.com", email_verified: true }), { resign: false });
    expectRefused((await signInAs("alice")).result, "token");
  });

  it("refuses UserInfo claims about another subject than the ID token's", async () => {
    app.provider.tamperUserinfo((claims) => ({ ...claims, sub: "mallory", email: "mallory@example.com", email_verified: true }));
    expectRefused((await signInAs("alice")).result, "token");
  });

  it("refuses a callback without the attempt cookie, with a foreign one, or with another attempt's", async () => {
    const started = await app.start();
    const back = await app.provider.signIn(started.location, "alice");
    const query = back.search.slice(1);
    expectRefused(await app.callback(query, ""), "expired");
    const [name, value] = started.cookie.split("=") as [string, string];
    const [payload] = value.split(".");
    expectRefused(await app.callback(query, `${name}=${payload}.${"A".repeat(43)}`), "expired");
    expectRefused(await app.callback(query, `${name}=not-a-cookie`), "expired");
    // A genuine attempt cookie, but of another attempt (another tab, or an attacker's).
    const other = await app.start();
    expectRefused(await app.callback(query, other.cookie), "state");
    // The attempt itself is untouched by all that: its own cookie still completes it.
    expect((await app.callback(query, started.cookie)).session).toBe("session-for-alice");
  });

  it("refuses an attempt older than ten minutes", async () => {
    const started = await app.start();
    const back = await app.provider.signIn(started.location, "alice");
    app.useClient({}, () => Date.now() + 10 * 60_000 + 1);
    expectRefused(await app.callback(back.search.slice(1), started.cookie), "expired");
  });

  it("refuses a callback replayed a second time: the code is spent", async () => {
    const { started, back, result } = await signInAs("alice");
    expect(result.session).toBe("session-for-alice");
    app.signIns.length = 0;
    app.ended.length = 0;
    expectRefused(await app.callback(back.search.slice(1), started.cookie), "code");
  });

  it("lands on the sign-in page, signed out, when the person cancels at the provider", async () => {
    const started = await app.start();
    const back = await app.provider.cancel(started.location);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expectRefused(await app.callback(back.search.slice(1), started.cookie), "denied");
  });

  it("does not sign in an identity the accounts service refuses", async () => {
    app.refuse.add("bob");
    try {
      const { result } = await signInAs("bob");
      expect(result).toEqual({ status: 302, location: "/login?error=sso&reason=refused", session: undefined, attemptCleared: true });
      expect(app.signIns).toHaveLength(1);
      expect(app.ended).toEqual([]);
    } finally {
      app.refuse.delete("bob");
    }
  });

  it("answers only GET, and 404 when no provider is configured", async () => {
    const post = await fetch(`${app.baseUrl}/api/auth/oidc/start`, { method: "POST", redirect: "manual" });
    expect(post.status).toBe(405);
    expect((await post.json()).error.message).toBe("Use GET.");
    app.useClient(null);
    for (const path of ["/api/auth/oidc/start", "/api/auth/oidc/callback?code=x&state=y"]) {
      const res = await fetch(`${app.baseUrl}${path}`, { redirect: "manual" });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toEqual({ code: "not_found", message: "Single sign-on is not configured." });
    }
  });
});

describe("SSO with a provider that is down", () => {
  it("shows a clear error while the provider is down at start, then signs in once it is up", async () => {
    const port = await freePort();
    const app2 = await startSsoApp(ACCOUNTS);
    const secret = "a-client-secret-known-before-the-provider-starts";
    app2.useClient({ issuer: `http://127.0.0.1:${port}`, clientSecret: secret, timeoutS: 2 });
    try {
      const down = await app2.start("/c/abc");
      expect(down.status).toBe(302);
      expect(down.location).toBe("/login?error=sso&reason=unavailable");
      expect(down.cookie).toBe("");
      expect(app2.logs.join("\n")).toMatch(/cannot be reached/);

      const provider = await startTestProvider({ redirectUri: app2.redirectUri, accounts: ACCOUNTS, port, clientSecret: secret });
      try {
        const started = await app2.start("/c/abc");
        expect(new URL(started.location).origin).toBe(provider.issuer);
        const back = await provider.signIn(started.location, "alice");
        expect(await app2.callback(back.search.slice(1), started.cookie)).toMatchObject({
          location: "/c/abc",
          session: "session-for-alice",
        });
      } finally {
        await provider.close();
      }
    } finally {
      await app2.close();
    }
  });

  it("reads the provider's metadata once, not at every sign-in", async () => {
    const fresh = await startSsoApp(ACCOUNTS);
    try {
      await fresh.start();
      await fresh.start();
      const started = await fresh.start();
      const back = await fresh.provider.signIn(started.location, "alice");
      await fresh.callback(back.search.slice(1), started.cookie);
      expect(fresh.provider.requests.filter((r) => r.endsWith("/.well-known/openid-configuration"))).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });

  it("a provider that goes down mid-sign-in gives a clear message, not a crash", async () => {
    const fresh = await startSsoApp(ACCOUNTS);
    try {
      const started = await fresh.start("/c/abc");
      const back = await fresh.provider.signIn(started.location, "alice");
      await fresh.provider.close();
      expect(await fresh.callback(back.search.slice(1), started.cookie)).toEqual({
        status: 302,
        location: "/login?error=sso&reason=unavailable",
        session: undefined,
        attemptCleared: true,
      });
      expect(fresh.signIns).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("a provider that accepts connections but never answers gives up after the timeout", async () => {
    const held = new Set<import("node:net").Socket>();
    const silent = createServer((socket) => {
      held.add(socket.on("error", () => {}));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const fresh = await startSsoApp(ACCOUNTS);
    try {
      fresh.useClient({ issuer: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, timeoutS: 1 });
      const startedAt = Date.now();
      expect((await fresh.start()).location).toBe("/login?error=sso&reason=unavailable");
      expect(Date.now() - startedAt).toBeLessThan(5_000);
    } finally {
      await fresh.close();
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});
