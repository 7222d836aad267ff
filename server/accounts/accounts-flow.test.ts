import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ACCOUNT_ROUTES,
  type AdminAccountView,
  type AuthState,
  type OneTimeLink,
  type SessionEvent,
  type SignInSessionView,
} from "@/lib/contracts";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import {
  recordEvents,
  request,
  runtimeWith,
  startHarness,
  waitFor,
  type Harness,
  type TestClient,
} from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { dataOf } from "@/test/support/turn/agent-data";
import { createLoginThrottle } from "./login-throttle";
import { SIGN_IN_FAILED } from "./account-service";

/**
 * Accounts in open mode against the real server, database server, HTTP and Socket.IO:
 * each CookieJar is a browser. A prompt with "slow" makes the model hang until cancelled.
 */
let harness: Harness;
const model = scriptedModel((req) => {
  const last = req.messages.at(-1);
  const text = last && "content" in last && typeof last.content === "string" ? last.content : "";
  return text.includes("slow") ? { text: "Working on it", hang: true } : { text: "Hello.", usage: { inputTokens: 100, outputTokens: 20 } };
});

beforeAll(async () => {
  // Every test comes from 127.0.0.1: a lax throttle here; throttling has its own test (invite-flow.test.ts).
  harness = await startHarness("accounts", {
    runner: runtimeWith(model),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
  });
});
afterAll(async () => {
  await harness?.close();
});

const browser = () => new CookieJar(harness.baseUrl);
let counter = 0;
const newEmail = (name = "person") => `${name}.${++counter}@example.com`;
const PASSWORD = "correct horse battery";

async function signUp(jar: CookieJar, email = newEmail(), password = PASSWORD) {
  const res = await jar.post(ACCOUNT_ROUTES.signUp, { email, password });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return email;
}
async function signIn(jar: CookieJar, email: string, password = PASSWORD) {
  return jar.post(ACCOUNT_ROUTES.signIn, { email, password });
}
const state = async (jar: CookieJar) => (await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body;
const socketOf = (jar: CookieJar) => harness.client(jar.header);
const disconnected = (socket: TestClient) => new Promise<string>((resolve) => socket.once("disconnect", resolve));

async function newChat(socket: TestClient, title = "A chat"): Promise<string> {
  const created = await request(socket, "session:create", { title });
  if (!created.ok) throw new Error(created.message);
  return created.data.sessionId;
}

/** A fresh account that is not the admin (the file's first sign-up is). */
let admin: CookieJar;
beforeAll(async () => {
  admin = browser();
  await signUp(admin, "admin@example.com");
});

describe("sign-up, sign-in and the gate", () => {
  it("the first account is the admin; later ones are members; ids are account ids", async () => {
    expect((await state(admin)).account).toMatchObject({ email: "admin@example.com", role: "admin", hasPassword: true });
    const member = browser();
    await signUp(member);
    const account = (await state(member)).account!;
    expect(account.role).toBe("member");
    expect(account.id).toMatch(/^acc_[A-Za-z0-9_-]{22}$/);
    expect(member.cookie("dlg_session")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("the session cookie is httpOnly, SameSite=Lax, for 30 days, and only its digest is stored", async () => {
    const res = await browser().fetch(ACCOUNT_ROUTES.signUp, { body: { email: newEmail(), password: PASSWORD } });
    const line = res.headers.getSetCookie().find((c) => c.startsWith("dlg_session="))!;
    expect(line).toMatch(/; Max-Age=2592000/);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Lax/);
    const token = line.slice("dlg_session=".length).split(";")[0]!;
    expect(await harness.models.SignInSession.countDocuments({ _id: token })).toBe(0);
    expect(JSON.stringify(await harness.models.SignInSession.find({}).lean())).not.toContain(token);
  });

  it("the expiry slides forward with use, and an expired session opens nothing", async () => {
    const jar = browser();
    const email = await signUp(jar);
    const id = (await state(jar)).account!.id;
    const earlier = new Date(Date.now() - 5 * 60_000);
    await harness.models.SignInSession.updateMany({ accountId: id }, { lastSeenAt: earlier, expiresAt: new Date(Date.now() + 60_000) });
    const res = await jar.fetch(ACCOUNT_ROUTES.state);
    expect(res.headers.getSetCookie().join()).toMatch(/dlg_session=[\w-]{43}; Max-Age=2592000/);
    const row = (await harness.models.SignInSession.findOne({ accountId: id }).lean())!;
    expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600_000);
    expect(row.lastSeenAt.getTime()).toBeGreaterThan(earlier.getTime());

    await harness.models.SignInSession.updateMany({ accountId: id }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await jar.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    await expect(socketOf(jar)).rejects.toThrow(/sign in/);
    expect((await signIn(jar, email)).status).toBe(200);
  });

  it("without a sign-in, pages go to /login, the API answers 401 and the socket is refused", async () => {
    const stranger = browser();
    const page = await stranger.fetch("/c/abc?x=1");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/c/abc?x=1")}`);
    expect((await stranger.fetch("/signup")).status).not.toBe(303);
    expect(await stranger.get("/api/health")).toEqual({ status: 200, body: { ok: true, database: "up" } });
    expect((await stranger.get("/api/sessions/abc/tool-calls/c1")).status).toBe(401);
    expect((await stranger.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    await expect(harness.client("dlg_uid=whatever")).rejects.toThrow(/sign in/);
    expect(await state(stranger)).toMatchObject({ mode: "open", account: null, signUpOpen: true, claimable: 0 });
  });

  it("a second browser signed into the same account sees the same chats, live", async () => {
    const laptop = browser();
    const email = await signUp(laptop);
    const phone = browser();
    expect((await signIn(phone, email)).status).toBe(200);
    const laptopSocket = await socketOf(laptop);
    const phoneSocket = await socketOf(phone);
    const listed = new Promise<string[]>((resolve) => phoneSocket.once("sessions:changed", (list) => resolve(list.map((s) => s.title))));
    const sessionId = await newChat(laptopSocket, "Tide tables");
    expect(await listed).toContain("Tide tables");

    const seen: SessionEvent[] = recordEvents(phoneSocket);
    expect((await request(phoneSocket, "session:join", { sessionId })).ok).toBe(true);
    expect((await request(laptopSocket, "turn:send", { sessionId, text: "hi" })).ok).toBe(true);
    await waitFor(() => seen.some((e) => e.type === "turn:ended"), 10_000, "the turn on the phone");
    const list = await request(phoneSocket, "session:list", {});
    expect(list.ok && list.data.map((s) => s.sessionId)).toEqual([sessionId]);
  });

  it("a stranger account gets not_found for another account's chat", async () => {
    const owner = browser();
    await signUp(owner);
    const sessionId = await newChat(await socketOf(owner));
    const stranger = browser();
    await signUp(stranger);
    const strangerSocket = await socketOf(stranger);
    expect(await request(strangerSocket, "session:join", { sessionId })).toMatchObject({ ok: false, code: "not_found" });
    expect(await request(strangerSocket, "session:join", { sessionId: "no-such-chat-at-all" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect((await stranger.get(`/api/sessions/${sessionId}/tool-calls/c1`)).body).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("signing out", () => {
  it("sign-out ends that browser's session and cuts its socket; the other browser stays", async () => {
    const a = browser();
    const email = await signUp(a);
    const b = browser();
    await signIn(b, email);
    const kept = a.header;
    const aSocket = await socketOf(a);
    const bSocket = await socketOf(b);
    const cut = disconnected(aSocket);
    const out = await a.fetch(ACCOUNT_ROUTES.signOut, { method: "POST", body: {} });
    expect(out.status).toBe(200);
    expect(a.cookie("dlg_session")).toBeUndefined();
    // The browser drops what it cached of this site: the next person on it reads none of it.
    expect(out.headers.get("clear-site-data")).toBe('"cache"');
    expect(await cut).toBe("io server disconnect");
    // A copy of the cookie kept from before opens nothing any more.
    expect((await fetch(`${harness.baseUrl}${ACCOUNT_ROUTES.sessions}`, { headers: { cookie: kept } })).status).toBe(401);
    await expect(harness.client(kept)).rejects.toThrow(/sign in/);
    expect(bSocket.connected).toBe(true);
    expect((await b.get(ACCOUNT_ROUTES.sessions)).status).toBe(200);
  });

  it("sign out everywhere cuts the other browser's socket, and its next request is 401", async () => {
    const a = browser();
    const email = await signUp(a);
    const b = browser();
    await signIn(b, email);
    const bSocket = await socketOf(b);
    const cut = disconnected(bSocket);
    const everywhere = await a.fetch(ACCOUNT_ROUTES.signOutEverywhere, { method: "POST", body: {} });
    expect(everywhere.status).toBe(200);
    expect(everywhere.headers.get("clear-site-data")).toBe('"cache"');
    expect(await cut).toBe("io server disconnect");
    expect((await b.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    expect((await b.fetch("/")).status).toBe(303);
    expect((await a.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
  });

  it("lists the account's sign-in sessions and revokes one by its public id", async () => {
    const a = browser();
    const email = await signUp(a);
    const b = browser();
    await signIn(b, email);
    const sessions = (await a.get<SignInSessionView[]>(ACCOUNT_ROUTES.sessions)).body;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(JSON.stringify(sessions)).not.toContain(b.cookie("dlg_session")!);
    const other = sessions.find((s) => !s.current)!;
    const bSocket = await socketOf(b);
    const cut = disconnected(bSocket);
    expect((await a.post(ACCOUNT_ROUTES.revokeSession(other.id))).status).toBe(200);
    expect(await cut).toBe("io server disconnect");
    expect((await b.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    expect((await a.post(ACCOUNT_ROUTES.revokeSession(other.id))).status).toBe(404);
  });

  it("a password change ends the other sessions and keeps this one; only the new password signs in", async () => {
    const a = browser();
    const email = await signUp(a);
    const b = browser();
    await signIn(b, email);
    const aSocket = await socketOf(a);
    const bSocket = await socketOf(b);
    const cut = disconnected(bSocket);
    expect(await a.post(ACCOUNT_ROUTES.password, { current: "not the password", next: "a brand new passphrase" })).toMatchObject({
      status: 401,
    });
    expect(await a.post(ACCOUNT_ROUTES.password, { current: PASSWORD, next: "short" })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/at least 8/) } },
    });
    expect((await a.post(ACCOUNT_ROUTES.password, { current: PASSWORD, next: "a brand new passphrase" })).status).toBe(200);
    expect(await cut).toBe("io server disconnect");
    expect((await b.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    expect(aSocket.connected).toBe(true);
    expect((await a.get(ACCOUNT_ROUTES.sessions)).status).toBe(200);
    expect((await signIn(browser(), email)).status).toBe(401);
    expect((await signIn(browser(), email, "a brand new passphrase")).status).toBe(200);
  });
});

describe("sign-in security", () => {
  it("does not tell an unknown email from a wrong password: same status, same body, similar time", async () => {
    const email = await signUp(browser());
    const unknown = await signIn(browser(), "nobody.here@example.com");
    const wrong = await signIn(browser(), email, "wrong password!");
    expect(unknown).toEqual(wrong);
    expect(wrong).toEqual({ status: 401, body: { error: { code: "unauthorized", message: SIGN_IN_FAILED } } });
    // Open-mode sign-up with a taken email and the wrong password answers the same.
    expect(await browser().post(ACCOUNT_ROUTES.signUp, { email, password: "wrong password!" })).toEqual(wrong);

    const time = async (attempt: () => Promise<unknown>) => {
      const start = performance.now();
      await attempt();
      return performance.now() - start;
    };
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    // Pairs measured back to back share the machine's load; the median of their ratios shrugs off a busy moment.
    const ratios: number[] = [];
    const seen: string[] = [];
    for (let i = 0; i < 11; i++) {
      const u = await time(() => signIn(browser(), `nobody${i}@example.com`));
      const w = await time(() => signIn(browser(), email, `wrong ${i} password`));
      ratios.push(u / w);
      seen.push(`${u.toFixed(0)}/${w.toFixed(0)}`);
    }
    const ratio = median(ratios);
    // Without the dummy hash an unknown email answers 3-10x faster (no Argon2id work): a ratio of 0.1-0.3.
    expect(ratio, `unknown/wrong ms: ${seen.join(" ")}`).toBeGreaterThan(0.5);
    expect(ratio, `unknown/wrong ms: ${seen.join(" ")}`).toBeLessThan(2);
  });

  it("a token planted before sign-in is not the one after, and no longer opens anything", async () => {
    const attacker = browser();
    const email = await signUp(attacker, newEmail("attacker"));
    const planted = attacker.cookie("dlg_session")!;
    const victim = browser();
    victim.set("dlg_session", planted);
    const victimEmail = await signUp(browser());
    expect((await signIn(victim, victimEmail)).status).toBe(200);
    expect(victim.cookie("dlg_session")).not.toBe(planted);
    expect((await state(victim)).account?.email).toBe(victimEmail);
    expect((await attacker.get<AuthState>(ACCOUNT_ROUTES.state)).body.account).toBeNull();
    expect(email).not.toBe(victimEmail);
    // A garbage token is ignored, not an error.
    const garbage = browser();
    garbage.set("dlg_session", "not-a-token");
    expect((await signIn(garbage, victimEmail)).status).toBe(200);
  });

  it("refuses sign-in and sign-out from a foreign Origin", async () => {
    const email = await signUp(browser());
    const jar = browser();
    const foreign = { origin: "http://evil.example" };
    expect(await jar.post(ACCOUNT_ROUTES.signIn, { email, password: PASSWORD }, foreign)).toMatchObject({
      status: 401,
      body: { error: { message: expect.stringMatching(/Cross-site/) } },
    });
    expect(jar.cookie("dlg_session")).toBeUndefined();
    await signIn(jar, email);
    expect((await jar.post(ACCOUNT_ROUTES.signOut, {}, foreign)).status).toBe(401);
    expect((await jar.post(ACCOUNT_ROUTES.signOutEverywhere, {}, foreign)).status).toBe(401);
    expect((await jar.get(ACCOUNT_ROUTES.sessions)).status).toBe(200);
  });

  it("answers malformed bodies with a clear 400 and oversized ones with 413", async () => {
    const jar = browser();
    expect(await jar.post(ACCOUNT_ROUTES.signUp, { email: "not an email", password: PASSWORD })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/email address/) } },
    });
    expect(await jar.post(ACCOUNT_ROUTES.signUp, { email: newEmail(), password: "short" })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/at least 8/) } },
    });
    const raw = await jar.fetch(ACCOUNT_ROUTES.signIn, { method: "POST", body: "{", headers: {} });
    expect(raw.status).toBe(400);
    expect((await jar.post(ACCOUNT_ROUTES.signIn, { email: newEmail(), password: "x".repeat(20_000) })).status).toBe(413);
  });
});

describe("claiming a browser's chats from before accounts", () => {
  /** A browser with chats under its old cookie identity, made by a single-mode server on the same database. */
  async function anonymousBrowser(chats: number): Promise<{ jar: CookieJar; uid: string }> {
    const { startLiveApp } = await import("@/test/support/server/live-app");
    const single = await startLiveApp({ runner: runtimeWith(model), store: harness.store });
    try {
      const cookie = await single.newCookie();
      const socket = await single.client(cookie);
      for (let i = 0; i < chats; i++) await newChat(socket, `Old chat ${i}`);
      socket.disconnect();
      const jar = browser();
      const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
      jar.set(name, value);
      return { jar, uid: value.slice(0, value.lastIndexOf(".")) };
    } finally {
      await single.close();
    }
  }

  it("reports the count, moves the chats on accept, and asks only once", async () => {
    const { jar } = await anonymousBrowser(2);
    await signUp(jar);
    expect((await state(jar)).claimable).toBe(2);
    expect(await jar.post(ACCOUNT_ROUTES.claim, { accept: true })).toEqual({ status: 200, body: { claimed: 2 } });
    expect((await state(jar)).claimable).toBe(0);
    const list = await request(await socketOf(jar), "session:list", {});
    expect(list.ok && list.data.map((s) => s.title).sort()).toEqual(["Old chat 0", "Old chat 1"]);
    expect(await jar.post(ACCOUNT_ROUTES.claim, { accept: true })).toEqual({ status: 200, body: { claimed: 0 } });
  });

  it("a decline leaves the chats where they were and is remembered", async () => {
    const { jar, uid } = await anonymousBrowser(1);
    await signUp(jar);
    expect((await state(jar)).claimable).toBe(1);
    expect(await jar.post(ACCOUNT_ROUTES.claim, { accept: false })).toEqual({ status: 200, body: { claimed: 0 } });
    expect((await state(jar)).claimable).toBe(0);
    expect(await harness.models.Session.countDocuments({ ownerId: uid })).toBe(1);
    const list = await request(await socketOf(jar), "session:list", {});
    expect(list.ok && list.data).toEqual([]);
  });
});

describe("admin", () => {
  it("disables an account mid-turn: the turn is cancelled, sockets cut, the old cookie refused; enable lets it sign in again", async () => {
    const member = browser();
    const email = await signUp(member);
    const socket = await socketOf(member);
    const sessionId = await newChat(socket);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    const sent = await request(socket, "turn:send", { sessionId, text: "be slow" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => dataOf(events, "token", "master").length > 0, 10_000, "the turn's first token");
    const cut = disconnected(socket);
    const id = (await state(member)).account!.id;

    expect((await admin.post(ACCOUNT_ROUTES.adminDisable(id), { disabled: true })).status).toBe(200);
    expect(await cut).toBe("io server disconnect");
    await waitFor(() => harness.app.registry.runningTurns(id) === 0, 10_000, "the turn to stop");
    await (await harness.app.registry.peek(sessionId))?.drain();
    expect((await harness.models.Turn.findById(sent.data.turnId).lean())?.status).toBe("cancelled");
    expect((await member.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    await expect(harness.client(member.header)).rejects.toThrow(/sign in/);
    expect(await signIn(browser(), email)).toMatchObject({ status: 401, body: { error: { message: SIGN_IN_FAILED } } });
    const listed = (await admin.get<AdminAccountView[]>(ACCOUNT_ROUTES.adminAccounts)).body.find((a) => a.id === id);
    expect(listed).toMatchObject({ disabled: true, usage: { chats: 1, turns: 1 } });

    expect((await admin.post(ACCOUNT_ROUTES.adminDisable(id), { disabled: false })).status).toBe(200);
    expect((await signIn(browser(), email)).status).toBe(200);
  });

  it("lists accounts with usage from stored turn stats", async () => {
    const member = browser();
    await signUp(member);
    const socket = await socketOf(member);
    const sessionId = await newChat(socket);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    await request(socket, "turn:send", { sessionId, text: "hi" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 10_000, "the turn");
    await (await harness.app.registry.peek(sessionId))?.drain();
    const id = (await state(member)).account!.id;
    const row = (await admin.get<AdminAccountView[]>(ACCOUNT_ROUTES.adminAccounts)).body.find((a) => a.id === id)!;
    expect(row.usage.chats).toBe(1);
    expect(row.usage.turns).toBe(1);
    expect(row.usage.tokens).toBeGreaterThanOrEqual(120);
    expect(row.usage.lastActiveAt).not.toBeNull();
  });

  it("deletes an account with all its chats; members cannot reach admin routes; an admin cannot remove themself", async () => {
    const member = browser();
    const email = await signUp(member);
    const socket = await socketOf(member);
    await newChat(socket, "one");
    await newChat(socket, "two");
    const id = (await state(member)).account!.id;
    expect((await member.get(ACCOUNT_ROUTES.adminAccounts)).status).toBe(404);
    expect((await member.post(ACCOUNT_ROUTES.adminDelete(id))).status).toBe(404);

    const cut = disconnected(socket);
    expect((await admin.post(ACCOUNT_ROUTES.adminDelete(id))).status).toBe(200);
    expect(await cut).toBe("io server disconnect");
    expect(await harness.models.Session.countDocuments({ ownerId: id })).toBe(0);
    expect(await harness.models.Account.countDocuments({ _id: id })).toBe(0);
    expect(await harness.models.SignInSession.countDocuments({ accountId: id })).toBe(0);
    expect((await signIn(browser(), email)).status).toBe(401);

    const self = (await state(admin)).account!.id;
    expect((await admin.post(ACCOUNT_ROUTES.adminDelete(self))).status).toBe(400);
    expect((await admin.post(ACCOUNT_ROUTES.adminDisable(self), { disabled: true })).status).toBe(400);
  });

  it("a reset link sets a new password once, ends every session and signs in afresh", async () => {
    const member = browser();
    const email = await signUp(member);
    const socket = await socketOf(member);
    const cut = disconnected(socket);
    const id = (await state(member)).account!.id;
    const link = (await admin.post<OneTimeLink>(ACCOUNT_ROUTES.adminResetLink(id))).body;
    expect(link.url).toMatch(/\/reset\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(link.url!).searchParams.get("token")!;

    const other = browser();
    expect(await other.post(ACCOUNT_ROUTES.reset, { token, password: "the reset passphrase" })).toMatchObject({ status: 200 });
    expect(await cut).toBe("io server disconnect");
    expect((await member.get(ACCOUNT_ROUTES.sessions)).status).toBe(401);
    expect((await state(other)).account?.email).toBe(email);
    expect((await signIn(browser(), email, "the reset passphrase")).status).toBe(200);
    const again = await browser().post(ACCOUNT_ROUTES.reset, { token, password: "another passphrase" });
    const unknown = await browser().post(ACCOUNT_ROUTES.reset, { token: "A".repeat(43), password: "another passphrase" });
    expect(again).toEqual(unknown);
    expect(again.status).toBe(400);
  });
});
