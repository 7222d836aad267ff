import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TurnInput } from "@/lib/agent/runtime";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { openSession, request, runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import type { TurnRunner } from "@/server/sessions/turn-runner";

/**
 * Single mode behind APP_PASSWORD: once logged in, a browser can mint identity cookies
 * freely (drop `dlg_uid`, get a new one). Every identity minted under one login shares
 * that login's caps; another login has its own.
 */
const PASSWORD = "one login many faces";
let harness: Harness;
/** The person each turn was started for, as the runtime (and so the regex pool) is told. */
const turnOwners: (string | undefined)[] = [];
const inner = runtimeWith(scriptedModel(() => ({ text: "Working", hang: true })));
const runner: TurnRunner = {
  startTurn(input: TurnInput) {
    turnOwners.push(input.ownerId);
    return inner.startTurn(input);
  },
};

beforeAll(async () => {
  harness = await startHarness("person_caps", {
    runner,
    password: PASSWORD,
    personLimits: { chats: 100, runningTurns: 2, sockets: 4 },
    // A budget that does not refill within the test: what is spent stays spent.
    personRateLimit: { burst: 12, perSecond: 0.001 },
  });
});
afterAll(async () => {
  await harness?.close();
});

async function login(): Promise<string> {
  const res = await fetch(`${harness.baseUrl}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith("dlg_auth="))!
    .split(";")[0]!;
}

/** A fresh identity minted under the login `auth`: its full Cookie header. */
async function mint(auth: string): Promise<string> {
  const res = await fetch(`${harness.baseUrl}/api/health`, { headers: { cookie: auth } });
  await res.arrayBuffer();
  const identity = res.headers
    .getSetCookie()
    .find((c) => c.startsWith("dlg_uid="))!
    .split(";")[0]!;
  return `${auth}; ${identity}`;
}

describe("caps per APP_PASSWORD login", () => {
  it("running turns and the regex pool's person: identities of one login count as one", async () => {
    const auth = await login();
    const [one, two, three] = [await mint(auth), await mint(auth), await mint(auth)];
    expect(new Set([one, two, three]).size).toBe(3);
    const first = await openSession(harness, one);
    const second = await openSession(harness, two);
    const third = await openSession(harness, three);
    expect(await request(first.socket, "turn:send", { sessionId: first.sessionId, text: "go" })).toMatchObject({ ok: true });
    expect(await request(second.socket, "turn:send", { sessionId: second.sessionId, text: "go" })).toMatchObject({ ok: true });
    // A third identity of the same login is past the login's two running turns.
    expect(await request(third.socket, "turn:send", { sessionId: third.sessionId, text: "go" })).toMatchObject({
      ok: false,
      code: "limit_reached",
    });
    // Both turns were started for the login, not for two people.
    expect(turnOwners).toHaveLength(2);
    expect(turnOwners[0]).toMatch(/^login:/);
    expect(turnOwners[1]).toBe(turnOwners[0]);

    // Another login is another person, with caps of its own.
    const other = await openSession(harness, await mint(await login()));
    expect(await request(other.socket, "turn:send", { sessionId: other.sessionId, text: "go" })).toMatchObject({ ok: true });
    for (const s of [first, second, third, other]) s.socket.disconnect();
  });

  it("open sockets and the command budget: identities of one login share them", async () => {
    const auth = await login();
    const cookies = [await mint(auth), await mint(auth), await mint(auth), await mint(auth), await mint(auth)];
    const sockets = [];
    for (const cookie of cookies.slice(0, 4)) sockets.push(await harness.client(cookie));
    // The fifth identity's socket is the login's fifth: refused at the handshake.
    await expect(harness.client(cookies[4]!)).rejects.toThrow(/limit_reached/);

    // Twelve commands for the login, spread over its identities; the thirteenth is refused.
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await request(sockets[i % 4]!, "session:list", {}));
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(await request(sockets[0]!, "session:list", {})).toMatchObject({ ok: false, code: "rate_limited" });
    expect(await request(sockets[3]!, "session:list", {})).toMatchObject({ ok: false, code: "rate_limited" });

    // Another login's budget is untouched.
    const stranger = await harness.client(await mint(await login()));
    expect(await request(stranger, "session:list", {})).toMatchObject({ ok: true });
  });
});
