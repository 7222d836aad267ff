import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type JoinResult, type SessionEvent } from "@/lib/contracts";
import { initialSessionState, sessionReducer, type InitialChat } from "@/lib/chat/session-state";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { openSession, recordEvents, request, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { fakeRunner } from "@/test/support/turn/fake-runner";
import { initialChat, PAGE_VIEWER_HEADER, pageViewer } from "./page-viewer";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * The chat page's first page of turns, read in-process for whoever the request handler
 * (server/http/request-handler.ts) admitted the request for: the real server and database
 * server, with a page handler standing in for Next's that does what
 * app/(chat)/c/[id]/page.tsx does (read the header, ask `initialChat`) and answers it as JSON. The same person and the same refusals as the
 * socket join, in every way in: a browser's identity cookie, APP_PASSWORD, accounts.
 */

/** What the page handler was given for each request: the token header it saw, and what the page would hold. */
interface Rendered {
  token: string | undefined;
  initial: InitialChat | null;
}

function chatPage(): { handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>; seen: Rendered[] } {
  const seen: Rendered[] = [];
  return {
    seen,
    async handler(req, res) {
      const token = req.headers[PAGE_VIEWER_HEADER] as string | undefined;
      const id = new URL(req.url ?? "/", "http://local").pathname.match(/^\/c\/([^/]*)$/)?.[1];
      const initial = id === undefined ? null : await initialChat(pageViewer(token), decodeURIComponent(id));
      seen.push({ token, initial });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(initial));
    },
  };
}

async function page(
  harness: Harness,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; initial: InitialChat | null | undefined }> {
  const res = await fetch(`${harness.baseUrl}${path}`, { headers, redirect: "manual" });
  const body = await res.text();
  return { status: res.status, initial: res.status === 200 ? (JSON.parse(body) as InitialChat | null) : undefined };
}

const snapshotOf = (initial: InitialChat | null | undefined) => {
  if (!initial || !("snapshot" in initial)) throw new Error(`expected a snapshot, got ${JSON.stringify(initial)}`);
  return initial.snapshot;
};

describe("single mode (a browser is a person)", () => {
  let harness: Harness;
  const rendered = chatPage();
  let release: () => void = () => undefined;

  beforeAll(async () => {
    harness = await startHarness("page-viewer", {
      pageHandler: rendered.handler,
      runner: fakeRunner(async (turn) => {
        turn.publish({ type: "turn:data", turnId: turn.turnId, runId: null, data: { kind: "token", step: 0, offset: 0, text: "Hello" } });
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        turn.publish({ type: "turn:data", turnId: turn.turnId, runId: null, data: { kind: "token", step: 0, offset: 5, text: " again" } });
      }),
    });
  });
  afterAll(async () => {
    release();
    await harness?.close();
  });

  it("the owner's page holds what a socket join holds, at the same sequence number", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const live = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    expect((await request(socket, "turn:send", { sessionId, text: "first" })).ok).toBe(true);
    await waitFor(() => dataOf(live, "token", "master").length > 0);
    const fromPage = snapshotOf((await page(harness, `/c/${sessionId}`, { cookie })).initial);
    const joined = await request(socket, "session:join", { sessionId });
    expect(joined.ok && joined.data).toEqual(fromPage);
    expect(fromPage.turns).toHaveLength(1);
    expect(fromPage.turns[0]).toMatchObject({ prompt: "first", status: "running", steps: [{ text: "Hello" }] });
    release();
    await waitFor(() => live.some((e) => e.type === "turn:ended"));
  });

  it("a join from the page's sequence number replays only what came after: with the page, exactly the live state, nothing lost or doubled", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const live = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    expect((await request(socket, "turn:send", { sessionId, text: "streaming" })).ok).toBe(true);
    await waitFor(() => dataOf(live, "token", "master").length > 0);
    // The HTML is rendered mid-turn; the turn goes on before the reloaded page's socket joins.
    const fromPage = snapshotOf((await page(harness, `/c/${sessionId}`, { cookie })).initial);
    release();
    await waitFor(() => live.some((e) => e.type === "turn:ended"));

    const reloaded = await harness.client(cookie);
    const missed: SessionEvent[] = recordEvents(reloaded);
    const resumed = await request(reloaded, "session:join", { sessionId, lastSeq: fromPage.seq });
    expect(resumed).toMatchObject({ ok: true, data: { mode: "replay" } });
    expect(missed.map((e) => e.seq)).toEqual(live.filter((e) => e.seq > fromPage.seq).map((e) => e.seq));
    expect(missed.length).toBeGreaterThan(0);

    let state = initialSessionState(sessionId, fromPage);
    for (const event of missed) state = sessionReducer(state, { type: "event", event });
    state = sessionReducer(state, { type: "joined", result: (resumed as { data: JoinResult }).data });
    const fresh = await request(reloaded, "session:join", { sessionId });
    if (!fresh.ok || fresh.data.mode !== "snapshot") throw new Error("expected a snapshot");
    expect(state.turns).toEqual(fresh.data.turns);
    expect(state.seq).toBe(fresh.data.seq);
    expect(state.needsResync).toBe(false);
    reloaded.disconnect();
  });

  it("a stranger's page of someone's chat is the page of a chat that does not exist", async () => {
    const { sessionId } = await openSession(harness);
    const stranger = await harness.newCookie();
    const theirs = await page(harness, `/c/${sessionId}`, { cookie: stranger });
    const missing = await page(harness, `/c/no-such-chat`, { cookie: stranger });
    expect(theirs).toEqual({ status: 200, initial: { notFound: true } });
    expect(missing).toEqual(theirs);
    // No cookie at all: a new person, who owns nothing.
    expect(await page(harness, `/c/${sessionId}`)).toEqual(theirs);
    // A malformed id is left to the socket join, which answers it as it always did.
    expect((await page(harness, `/c/${encodeURIComponent("a b<")}`, { cookie: stranger })).initial).toBeNull();
  });

  it("a client cannot name a viewer: its header is replaced, and a token ends with its response", async () => {
    const { cookie, sessionId } = await openSession(harness);
    await page(harness, `/c/${sessionId}`, { cookie });
    const ownersToken = rendered.seen.at(-1)!.token!;
    expect(ownersToken).toMatch(/^[\w-]{24}$/);
    expect(pageViewer(ownersToken)).toBeUndefined();
    const stranger = await harness.newCookie();
    const forged = await page(harness, `/c/${sessionId}`, { cookie: stranger, [PAGE_VIEWER_HEADER]: ownersToken });
    expect(forged.initial).toEqual({ notFound: true });
    expect(rendered.seen.at(-1)!.token).not.toBe(ownersToken);
  });
});

describe("APP_PASSWORD", () => {
  let harness: Harness;
  const rendered = chatPage();
  const PASSWORD = "tide pools at dawn";

  beforeAll(async () => {
    harness = await startHarness("page-viewer-password", {
      pageHandler: rendered.handler,
      password: PASSWORD,
      runner: fakeRunner(async () => undefined),
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("without a login the page is never rendered; the login page gets no viewer, whatever the client sends; logged in, the owner's chat", async () => {
    const login = await fetch(`${harness.baseUrl}/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: PASSWORD }),
    });
    const auth = login.headers.getSetCookie()[0]!.split(";")[0]!;
    const first = await fetch(`${harness.baseUrl}/api/health`, { headers: { cookie: auth } });
    const cookie = `${auth}; ${
      first.headers
        .getSetCookie()
        .find((c) => c.startsWith("dlg_uid="))!
        .split(";")[0]
    }`;
    const socket = await harness.client(cookie);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;

    const before = rendered.seen.length;
    const identityOnly = cookie.split("; ")[1]!;
    expect((await page(harness, `/c/${sessionId}`, { cookie: identityOnly })).status).toBe(303);
    expect(rendered.seen.length).toBe(before);

    await page(harness, "/login", { cookie: identityOnly, [PAGE_VIEWER_HEADER]: "forged" });
    expect(rendered.seen.at(-1)).toEqual({ token: undefined, initial: null });

    expect(snapshotOf((await page(harness, `/c/${sessionId}`, { cookie })).initial).sessionId).toBe(sessionId);
    socket.disconnect();
  });
});

describe("accounts (open mode)", () => {
  let harness: Harness;
  const rendered = chatPage();

  beforeAll(async () => {
    harness = await startHarness("page-viewer-accounts", {
      pageHandler: rendered.handler,
      authMode: "open",
      accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
      runner: fakeRunner(async () => undefined),
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  async function signedUp(email: string): Promise<CookieJar> {
    const jar = new CookieJar(harness.baseUrl);
    const res = await jar.post(ACCOUNT_ROUTES.signUp, { email, password: "correct horse battery" });
    expect(res.status).toBe(200);
    return jar;
  }

  it("the signed-in owner gets the chat, another account the not-found page, a signed-out browser never reaches the page", async () => {
    const owner = await signedUp("owner@example.com");
    const other = await signedUp("other@example.com");
    const socket = await harness.client(owner.header);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;

    expect(snapshotOf((await page(harness, `/c/${sessionId}`, { cookie: owner.header })).initial).sessionId).toBe(sessionId);
    expect((await page(harness, `/c/${sessionId}`, { cookie: other.header })).initial).toEqual({ notFound: true });

    const before = rendered.seen.length;
    const signedOut = await page(harness, `/c/${sessionId}`, { [PAGE_VIEWER_HEADER]: "forged" });
    expect(signedOut.status).not.toBe(200);
    expect(rendered.seen.length).toBe(before);
    // A page open to all (sign-in) is rendered for no one, whatever the client sends.
    await page(harness, "/login", { [PAGE_VIEWER_HEADER]: "forged" });
    expect(rendered.seen.at(-1)).toEqual({ token: undefined, initial: null });

    // Signed out, the old cookie opens nothing either.
    await owner.post(ACCOUNT_ROUTES.signOut);
    const stale = await page(harness, `/c/${sessionId}`, { cookie: `dlg_session=${"x".repeat(43)}` });
    expect(stale.status).not.toBe(200);
    socket.disconnect();
  });
});
