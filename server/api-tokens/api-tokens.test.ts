import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, API_TOKEN_ROUTES, type ApiToken, type ApiTokenCreated } from "@/lib/contracts";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";

/**
 * API tokens through the real server with accounts on: made, listed and revoked by their
 * owner over the JSON routes; the secret shown once and never again; another account's
 * token out of reach; what verification accepts (and what it does not) as the A2A
 * endpoint asks it.
 */

let harness: Harness;
const PASSWORD = "correct horse battery";

async function signUp(email: string): Promise<{ jar: CookieJar; id: string }> {
  const jar = new CookieJar(harness.baseUrl);
  const res = await jar.post(ACCOUNT_ROUTES.signUp, { email, password: PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const state = await jar.get<{ account: { id: string } }>(ACCOUNT_ROUTES.state);
  return { jar, id: state.body.account.id };
}

beforeAll(async () => {
  harness = await startHarness("api-tokens", {
    runner: runtimeWith(scriptedModel(() => ({ text: "ok" }))),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
  });
});
afterAll(async () => {
  await harness?.close();
});

const tokens = () => harness.app.apiTokens!;

describe("API tokens", () => {
  it("are made with a secret shown once, listed without it, used, and revoked by their owner only", async () => {
    const ann = await signUp("ann@example.com");
    const bob = await signUp("bob@example.com");
    const made = await ann.jar.post<ApiTokenCreated>(API_TOKEN_ROUTES.list, { name: "  my agent  " });
    expect(made.status).toBe(200);
    expect(made.body.secret).toMatch(/^dlg_[A-Za-z0-9_-]{43}$/);
    expect(made.body.token).toMatchObject({ name: "my agent", scope: "a2a", lastUsedAt: null, revokedAt: null });

    const listed = await ann.jar.get<{ tokens: ApiToken[] }>(API_TOKEN_ROUTES.list);
    expect(listed.body.tokens).toEqual([made.body.token]);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.secret.slice(4));
    // Only the digest is stored.
    const stored = await harness.models.ApiToken.find({}).lean();
    expect(JSON.stringify(stored)).not.toContain(made.body.secret.slice(4));
    expect((await bob.jar.get<{ tokens: ApiToken[] }>(API_TOKEN_ROUTES.list)).body.tokens).toEqual([]);

    expect(await tokens().verify(made.body.secret, "a2a")).toEqual({ ownerId: ann.id, tokenId: made.body.token.id });
    const used = await ann.jar.get<{ tokens: ApiToken[] }>(API_TOKEN_ROUTES.list);
    expect(used.body.tokens[0]!.lastUsedAt).not.toBeNull();

    const stolen = await bob.jar.post(API_TOKEN_ROUTES.revoke(made.body.token.id));
    expect(stolen.status).toBe(404);
    expect(await tokens().verify(made.body.secret, "a2a")).not.toBeNull();

    const revoked = await ann.jar.post<{ token: ApiToken }>(API_TOKEN_ROUTES.revoke(made.body.token.id));
    expect(revoked.status).toBe(200);
    expect(revoked.body.token.revokedAt).not.toBeNull();
    expect(await tokens().verify(made.body.secret, "a2a")).toBeNull();
    // Revoking again changes nothing.
    const again = await ann.jar.post<{ token: ApiToken }>(API_TOKEN_ROUTES.revoke(made.body.token.id));
    expect(again.body.token.revokedAt).toBe(revoked.body.token.revokedAt);
  });

  it("refuses a bad body, another scope, a cross-site request and anyone signed out, keeping nothing", async () => {
    const cara = await signUp("cara@example.com");
    const before = await harness.models.ApiToken.countDocuments({ ownerId: cara.id });
    for (const body of [{ name: "" }, { name: "x".repeat(101) }, { name: "a", scope: "admin" }, { name: "a", extra: 1 }, "just text"]) {
      const res = await cara.jar.post<{ error: { code: string } }>(API_TOKEN_ROUTES.list, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("bad_request");
    }
    const crossSite = await cara.jar.post(API_TOKEN_ROUTES.list, { name: "a" }, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(401);
    const signedOut = await fetch(`${harness.baseUrl}${API_TOKEN_ROUTES.list}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "a" }),
    });
    expect(signedOut.status).toBe(401);
    expect(await harness.models.ApiToken.countDocuments({ ownerId: cara.id })).toBe(before);
  });

  it("counts creations per person, and a disabled or deleted account's tokens stop working", async () => {
    const dan = await signUp("dan@example.com");
    const statuses: number[] = [];
    let secret = "";
    for (let i = 0; i < 11; i++) {
      const res = await dan.jar.post<ApiTokenCreated>(API_TOKEN_ROUTES.list, { name: `t${i}` });
      statuses.push(res.status);
      if (res.status === 200) secret = res.body.secret;
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(await tokens().verify(secret, "a2a")).not.toBeNull();
    await harness.models.Account.updateOne({ _id: dan.id }, { $set: { disabled: true } });
    expect(await tokens().verify(secret, "a2a")).toBeNull();
    await harness.models.Account.updateOne({ _id: dan.id }, { $set: { disabled: false } });
    expect(await tokens().verify(secret, "a2a")).not.toBeNull();
    // An account that is gone speaks for no one, nor does a browser identity's token from before accounts.
    await harness.models.Account.deleteOne({ _id: dan.id });
    expect(await tokens().verify(secret, "a2a")).toBeNull();
    const before = await tokens().create("a-browser-identity", { name: "from single mode", scope: "a2a" });
    expect(await tokens().verify(before.secret, "a2a")).toBeNull();
  });

  it("verifies nothing that is not a live secret", async () => {
    for (const secret of [undefined, "", "dlg_", "dlg_short", `xyz_${"a".repeat(43)}`, `dlg_${"a".repeat(43)}`, `dlg_${"é".repeat(43)}`]) {
      expect(await tokens().verify(secret, "a2a")).toBeNull();
    }
  });
});
