import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type AuthState, type OneTimeLink } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { createLoginThrottle } from "./login-throttle";
import { INVITATION_NEEDED, LINK_INVALID, SIGN_IN_FAILED, type VerifiedIdentity } from "./account-service";

/**
 * The account modes other than open sign-up (invite, sso), SSO sign-in's matching rules,
 * throttling, and the single mode's answer, each on a real server and database.
 */
const runner = () => runtimeWith(createDemoModel({ chunkDelayMs: 0 }));
const PASSWORD = "correct horse battery";
const meta = { userAgent: "test", address: "127.0.0.1" };
const state = async (jar: CookieJar) => (await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body;
const identity = (over: Partial<VerifiedIdentity> = {}): VerifiedIdentity => ({
  issuer: "https://idp.example",
  subject: "subject-1",
  email: "sso.person@example.com",
  emailVerified: true,
  name: "SSO Person",
  ...over,
});

describe("invite mode", () => {
  let harness: Harness;
  let admin: CookieJar;
  const browser = () => new CookieJar(harness.baseUrl);
  beforeAll(async () => {
    harness = await startHarness("acct_invite", {
      runner: runner(),
      authMode: "invite",
      accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  const invite = async () => {
    const created = await admin.post<OneTimeLink>(ACCOUNT_ROUTES.adminInvites, { expiresInHours: 24 });
    expect(created.status).toBe(200);
    return { ...created.body, token: new URL(created.body.url!).searchParams.get("invite")! };
  };

  it("lets the very first sign-up in without an invitation, as the admin; then sign-up needs one", async () => {
    expect(await state(browser())).toMatchObject({ mode: "invite", signUpOpen: true });
    admin = browser();
    expect((await admin.post(ACCOUNT_ROUTES.signUp, { email: "first@example.com", password: PASSWORD })).status).toBe(200);
    expect((await state(admin)).account?.role).toBe("admin");
    expect(await state(browser())).toMatchObject({ signUpOpen: false });
    expect(await browser().post(ACCOUNT_ROUTES.signUp, { email: "second@example.com", password: PASSWORD })).toEqual({
      status: 400,
      body: { error: { code: "bad_request", message: INVITATION_NEEDED } },
    });
  });

  it("an invitation link signs one person up, once", async () => {
    const link = await invite();
    expect(link.url).toMatch(/\/signup\?invite=[A-Za-z0-9_-]{43}$/);
    const guest = browser();
    expect((await guest.post(ACCOUNT_ROUTES.signUp, { email: "guest@example.com", password: PASSWORD, invite: link.token })).status).toBe(
      200,
    );
    expect((await state(guest)).account).toMatchObject({ email: "guest@example.com", role: "member" });
    const again = await browser().post(ACCOUNT_ROUTES.signUp, { email: "gatecrasher@example.com", password: PASSWORD, invite: link.token });
    expect(again).toEqual({ status: 400, body: { error: { code: "bad_request", message: LINK_INVALID } } });
    const listed = (await admin.get<OneTimeLink[]>(ACCOUNT_ROUTES.adminInvites)).body.find((l) => l.id === link.id);
    expect(listed?.usedAt).not.toBeNull();
    expect(listed?.url).toBeUndefined();
    // Members cannot hand out invitations.
    expect((await guest.post(ACCOUNT_ROUTES.adminInvites, {})).status).toBe(404);
  });

  it("an expired, a revoked and an unknown invitation get the same answer", async () => {
    const expired = await invite();
    await harness.models.OneTimeLink.updateOne({ publicId: expired.id }, { expiresAt: new Date(Date.now() - 1000) });
    const revoked = await invite();
    expect((await admin.post(ACCOUNT_ROUTES.adminRevokeInvite(revoked.id))).status).toBe(200);
    expect((await admin.post(ACCOUNT_ROUTES.adminRevokeInvite(revoked.id))).status).toBe(404);
    const answers = await Promise.all(
      [expired.token, revoked.token, "B".repeat(43), "not even a token"].map((token, i) =>
        browser().post(ACCOUNT_ROUTES.signUp, { email: `late${i}@example.com`, password: PASSWORD, invite: token }),
      ),
    );
    for (const answer of answers) expect(answer).toEqual({ status: 400, body: { error: { code: "bad_request", message: LINK_INVALID } } });
    expect(await harness.models.Account.countDocuments({ email: /^late/ })).toBe(0);
  });

  it("SSO creates no account in invite mode once the first exists, but signs in one that has the verified email", async () => {
    const accounts = harness.app.accounts!;
    expect(await accounts.signInWithSso(identity({ email: "stranger@example.com", subject: "s-stranger" }), meta)).toEqual({
      refused: expect.stringMatching(/invitation/),
    });
    const linked = await accounts.signInWithSso(identity({ email: "guest@example.com", subject: "s-guest" }), meta);
    expect(linked).toEqual({ cookieValue: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });
});

describe("sso mode", () => {
  let harness: Harness;
  const browser = () => new CookieJar(harness.baseUrl);
  beforeAll(async () => {
    harness = await startHarness("acct_sso", { runner: runner(), authMode: "sso" });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("refuses password sign-up and sign-in; the first SSO sign-in becomes the admin", async () => {
    expect(await state(browser())).toMatchObject({ mode: "sso", signUpOpen: false });
    expect(await browser().post(ACCOUNT_ROUTES.signUp, { email: "a@example.com", password: PASSWORD })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/SSO only/) } },
    });
    expect((await browser().post(ACCOUNT_ROUTES.signIn, { email: "a@example.com", password: PASSWORD })).status).toBe(400);
    const first = await harness.app.accounts!.signInWithSso(identity(), meta);
    if (!("cookieValue" in first)) throw new Error(first.refused);
    const jar = browser();
    jar.set("dlg_session", first.cookieValue);
    expect((await state(jar)).account).toMatchObject({
      email: "sso.person@example.com",
      displayName: "SSO Person",
      role: "admin",
      hasPassword: false,
    });
    expect(await jar.post(ACCOUNT_ROUTES.password, { current: "", next: "a new passphrase" })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/no password/) } },
    });
  });

  it("matches by (issuer, subject) first, then by verified email; an unverified email is not linked", async () => {
    const accounts = harness.app.accounts!;
    const idOf = async (cookieValue: string) => {
      const jar = browser();
      jar.set("dlg_session", cookieValue);
      return (await state(jar)).account!.id;
    };
    const original = await accounts.signInWithSso(identity({ subject: "s-1", email: "match@example.com" }), meta);
    if (!("cookieValue" in original)) throw new Error(original.refused);
    const id = await idOf(original.cookieValue);
    // Same pair, the email changed at the provider: still the same account.
    const renamed = await accounts.signInWithSso(identity({ subject: "s-1", email: "renamed@example.com" }), meta);
    expect("cookieValue" in renamed && (await idOf(renamed.cookieValue))).toBe(id);
    // Another provider with the same verified email: linked to that account.
    const other = await accounts.signInWithSso(
      identity({ issuer: "https://other-idp.example", subject: "x", email: "match@example.com" }),
      meta,
    );
    expect("cookieValue" in other && (await idOf(other.cookieValue))).toBe(id);
    expect((await harness.models.Account.findById(id).lean())?.sso).toHaveLength(2);
    // Unverified: neither linked nor a duplicate.
    expect(
      await accounts.signInWithSso(
        identity({ issuer: "https://third.example", subject: "y", email: "match@example.com", emailVerified: false }),
        meta,
      ),
    ).toEqual({
      refused: expect.stringMatching(/not verified/),
    });
    expect(await accounts.signInWithSso(identity({ subject: "no-email", email: null }), meta)).toEqual({
      refused: expect.stringMatching(/email/),
    });
  });

  it("refuses a disabled account's SSO sign-in", async () => {
    const accounts = harness.app.accounts!;
    const made = await accounts.signInWithSso(identity({ subject: "s-off", email: "off@example.com" }), meta);
    expect("cookieValue" in made).toBe(true);
    await harness.models.Account.updateOne({ email: "off@example.com" }, { disabled: true });
    expect(await accounts.signInWithSso(identity({ subject: "s-off", email: "off@example.com" }), meta)).toEqual({
      refused: expect.stringMatching(/disabled/),
    });
  });
});

describe("throttling", () => {
  let harness: Harness;
  const browser = () => new CookieJar(harness.baseUrl);
  beforeAll(async () => {
    harness = await startHarness("acct_throttle", { runner: runner(), authMode: "open" });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("past five wrong passwords the next sign-in is refused with Retry-After, even the right one", async () => {
    expect((await browser().post(ACCOUNT_ROUTES.signUp, { email: "target@example.com", password: PASSWORD })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect(await browser().post(ACCOUNT_ROUTES.signIn, { email: "target@example.com", password: `guess number ${i}` })).toMatchObject({
        status: 401,
        body: { error: { message: SIGN_IN_FAILED } },
      });
    }
    const res = await browser().fetch(ACCOUNT_ROUTES.signIn, { body: { email: "target@example.com", password: PASSWORD } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Too many attempts/);
    // A sign-up with the taken email is a sign-in attempt, throttled the same way.
    expect((await browser().post(ACCOUNT_ROUTES.signUp, { email: "target@example.com", password: PASSWORD })).status).toBe(429);
  });
});

describe("throttling new accounts", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness("acct_signups", { runner: runner(), authMode: "open" });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("one address makes at most 20 accounts before it has to wait", async () => {
    for (let i = 0; i < 20; i++) {
      expect(
        (await new CookieJar(harness.baseUrl).post(ACCOUNT_ROUTES.signUp, { email: `bulk${i}@example.com`, password: PASSWORD })).status,
      ).toBe(200);
    }
    const refused = await new CookieJar(harness.baseUrl).post(ACCOUNT_ROUTES.signUp, { email: "bulk20@example.com", password: PASSWORD });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
    expect(await harness.models.Account.countDocuments({})).toBe(20);
    // Signing in is a different budget.
    expect(
      (await new CookieJar(harness.baseUrl).post(ACCOUNT_ROUTES.signIn, { email: "bulk0@example.com", password: PASSWORD })).status,
    ).toBe(200);
  });
});

describe("single mode", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness("acct_single", { runner: runner() });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("answers the auth state with no accounts, and a browser is still its dlg_uid cookie", async () => {
    const res = await fetch(`${harness.baseUrl}${ACCOUNT_ROUTES.state}`);
    expect(await res.json()).toEqual({ mode: "single", account: null, signUpOpen: false, sso: null, claimable: 0 });
    const cookie = await harness.newCookie();
    expect(cookie).toMatch(/^dlg_uid=/);
    const socket = await harness.client(cookie);
    expect(socket.connected).toBe(true);
    expect((await fetch(`${harness.baseUrl}${ACCOUNT_ROUTES.signIn}`, { method: "POST", body: "{}" })).status).toBe(404);
  });
});
