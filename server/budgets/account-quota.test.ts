import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type AdminAccountView, type AuthState, type QuotaView, type SessionEvent } from "@/lib/contracts";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { openTestDatabase, testDatabaseUri, type TestDatabase } from "@/test/support/server/database";
import { AccountQuotas } from "./account-quotas";

/**
 * Per-account quotas in an account mode, through the real server, HTTP, Socket.IO and
 * MongoDB: the admin sets one account's quota over HTTP, and that account's next turn is
 * refused before it starts while another's is not. A second AccountQuotas on its own
 * connection stands for another process, which sees the setting at the next turn too.
 */
const DEFAULT = { day: { tokens: 100_000 } };
const model = scriptedModel(() => ({ text: "Hello.", usage: { inputTokens: 500, outputTokens: 100 } }));
let harness: Harness;
/** The connection the app's quotas read through (the harness keeps its own for the rest). */
let appDb: TestDatabase;
let other: TestDatabase;

beforeAll(async () => {
  const uri = testDatabaseUri("account-quota");
  appDb = await openTestDatabase("account-quota-app", { uri });
  const quotas = new AccountQuotas(appDb.models.Account, appDb.models.QuotaUsage, DEFAULT);
  harness = await startHarness("account-quota", {
    mongoUri: uri,
    runner: runtimeWith(model),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
    quotas: quotas.ledger,
    accountQuotas: quotas,
  });
  other = await openTestDatabase("account-quota-other", { uri });
});
afterAll(async () => {
  await harness?.close();
  await appDb?.connection.close();
  await other?.connection.close();
});

const PASSWORD = "correct horse battery";
async function signUp(email: string): Promise<{ jar: CookieJar; id: string }> {
  const jar = new CookieJar(harness.baseUrl);
  const res = await jar.post(ACCOUNT_ROUTES.signUp, { email, password: PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const state = (await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body;
  return { jar, id: state.account!.id };
}

/** Opens a chat and sends one prompt: the refusal, or the turn's end. */
async function send(jar: CookieJar, text: string) {
  const socket = await harness.client(jar.header);
  try {
    const created = await request(socket, "session:create", { title: "A chat" });
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    const events: SessionEvent[] = recordEvents(socket);
    await request(socket, "session:join", { sessionId });
    const sent = await request(socket, "turn:send", { sessionId, text });
    if (sent.ok) await waitFor(() => events.some((e) => e.type === "turn:ended"), 15_000, "the turn to end");
    return sent;
  } finally {
    socket.disconnect();
  }
}

/** Polls until the account's day counter holds `tokens`: counts land after the turn's end. */
async function dayCounted(person: string, tokens: number): Promise<void> {
  const start = Date.now();
  for (;;) {
    const row = await harness.models.QuotaUsage.findOne({ person, period: "day" }).lean();
    if (row?.tokens === tokens) return;
    if (Date.now() - start > 10_000) throw new Error(`timed out waiting for ${person}'s day counter to reach ${tokens}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("an account's own quota", () => {
  let admin: CookieJar;
  let a: { jar: CookieJar; id: string };
  let b: { jar: CookieJar; id: string };

  beforeAll(async () => {
    ({ jar: admin } = await signUp("admin@example.com"));
    a = await signUp("a@example.com");
    b = await signUp("b@example.com");
    for (const who of [a, b]) {
      expect((await send(who.jar, "Say hello")).ok).toBe(true);
      await dayCounted(who.id, 600);
    }
  });

  it("set by the admin for one account refuses that account's next turn before it starts, saying when it resets; the other's runs", async () => {
    const set = await admin.post<QuotaView>(ACCOUNT_ROUTES.adminQuota(a.id), { kind: "custom", day: { tokens: 500 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ source: "custom", day: { tokens: 500 }, used: { day: { tokens: 600 } } });
    expect(set.body.month).toBeUndefined();

    const before = model.requests.length;
    const refused = await send(a.jar, "Say hello again");
    expect(refused).toMatchObject({ ok: false, code: "limit_reached" });
    expect(refused.ok ? "" : refused.message).toMatch(
      /^You have used your daily quota: 600 of 500 tokens; it resets at \d{4}-\d{2}-\d{2} 00:00 UTC \(in .+\)\.$/,
    );
    expect(model.requests.length).toBe(before);
    // Another process reads the same setting at the turn's start.
    const elsewhere = new AccountQuotas(other.models.Account, other.models.QuotaUsage, DEFAULT);
    await expect(elsewhere.ledger.open(a.id)).rejects.toMatchObject({ code: "limit_reached" });

    expect((await send(b.jar, "Say hello again")).ok).toBe(true);
    await dayCounted(b.id, 1_200);

    // The admin's list and the person's own page say the same.
    const list = (await admin.get<AdminAccountView[]>(ACCOUNT_ROUTES.adminAccounts)).body;
    expect(list.find((x) => x.id === a.id)?.quota).toMatchObject({
      source: "custom",
      day: { tokens: 500 },
      used: { day: { tokens: 600 } },
    });
    expect(list.find((x) => x.id === b.id)?.quota).toMatchObject({
      source: "default",
      day: { tokens: 100_000 },
      used: { day: { tokens: 1_200 } },
    });
    expect((await a.jar.get<QuotaView>(ACCOUNT_ROUTES.quota)).body).toMatchObject({ source: "custom", day: { tokens: 500 } });
  });

  it("cleared (back to the default) lets the account start turns again, and no limit does too", async () => {
    expect((await admin.post(ACCOUNT_ROUTES.adminQuota(a.id), { kind: "default" })).status).toBe(200);
    expect((await send(a.jar, "Say hello, cleared")).ok).toBe(true);
    await dayCounted(a.id, 1_200);
    const stored = await harness.models.Account.findById(a.id).lean();
    expect(stored && "quota" in stored ? stored.quota : undefined).toBeUndefined();

    // A default small enough to refuse: "no limit" overrides it for this account only.
    const strict = new AccountQuotas(other.models.Account, other.models.QuotaUsage, { day: { tokens: 1_000 } });
    await expect(strict.ledger.open(a.id)).rejects.toMatchObject({ code: "limit_reached" });
    expect((await admin.post(ACCOUNT_ROUTES.adminQuota(a.id), { kind: "none" })).status).toBe(200);
    // Counted still (a quota set later meets the day's spend), never stopped.
    const unlimited = await strict.ledger.open(a.id);
    expect(unlimited?.add({ tokens: 1_000_000, usd: 0 })).toBeUndefined();
    await expect(unlimited?.counted()).resolves.toBeUndefined();
    await expect(strict.ledger.open(b.id)).rejects.toMatchObject({ code: "limit_reached" });
  });

  it("is refused to a member (as any unknown route is), and a bad figure is refused under its own field", async () => {
    const byMember = await b.jar.post<{ error: { code: string } }>(ACCOUNT_ROUTES.adminQuota(a.id), { kind: "custom", day: { tokens: 1 } });
    expect(byMember.status).toBe(404);
    expect(byMember.body.error.code).toBe("not_found");
    const own = await b.jar.post(ACCOUNT_ROUTES.adminQuota(b.id), { kind: "none" });
    expect(own.status).toBe(404);
    expect((await harness.models.Account.findById(a.id).lean())?.quota).toEqual({ kind: "none" });
    expect((await harness.models.Account.findById(b.id).lean())?.quota).toBeUndefined();

    const bad = await admin.post<{ error: { issues: { path: string; message: string }[] } }>(ACCOUNT_ROUTES.adminQuota(a.id), {
      kind: "custom",
      day: { tokens: 2.5 },
      month: { usd: -1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i) => i.path).sort()).toEqual(["day.tokens", "month.usd"]);
    const unknown = await admin.post(ACCOUNT_ROUTES.adminQuota("no-such-account"), { kind: "none" });
    expect(unknown.status).toBe(404);
  });
});
