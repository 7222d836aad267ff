import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ACCOUNT_ROUTES,
  SHARE_HANDSHAKE,
  SHARE_NAMESPACE,
  SHARE_READ_ONLY_MESSAGE,
  SHARE_ROUTES,
  type Ack,
  type ShareClientToServerEvents,
  type ShareCreated,
  type ShareLinkView,
  type ShareServerToClientEvents,
  type SessionEvent,
  type ChatTurn,
  type TurnPage,
} from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { createWorkspaceTools } from "@/lib/tools";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { dataOf } from "@/test/support/turn/agent-data";
import { SHARE_NOT_FOUND } from "./share-service";

/**
 * Read-only share links against the real server and database: the owner's routes, the
 * viewer's socket namespace and reads, revocation and expiry reaching open viewers, and
 * strangers answered like a chat that does not exist.
 */
type ShareClient = Socket<ShareServerToClientEvents, ShareClientToServerEvents>;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("share-links", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 10 })) });
});
afterAll(async () => {
  await harness?.close();
});

const PROMPT = "Investigate the open bugs and the release plan";

/** The owner's browser: a cookie jar for HTTP and a socket on the same identity. */
async function ownerWithChat() {
  const { cookie, socket, sessionId } = await openSession(harness);
  const jar = new CookieJar(harness.baseUrl);
  const [name, value] = cookie.split("=") as [string, string];
  jar.set(name, value);
  return { jar, socket, sessionId };
}

async function createLink(jar: CookieJar, sessionId: string, body: object = {}) {
  const res = await jar.post<ShareCreated>(SHARE_ROUTES.links(sessionId), body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...res.body, token: res.body.path.slice("/s/".length) };
}

const clients: ShareClient[] = [];
afterAll(() => clients.forEach((c) => c.disconnect()));

/** A viewer's share socket; rejects with the handshake's refusal. */
function viewer(token: string, cookie = ""): Promise<ShareClient> {
  const socket: ShareClient = connect(`${harness.baseUrl}${SHARE_NAMESPACE}`, {
    auth: { token },
    transports: ["websocket"],
    extraHeaders: cookie ? { cookie } : {},
    reconnection: false,
    forceNew: true,
  });
  clients.push(socket);
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", (error) => reject(error));
  });
}

function ask<T>(socket: ShareClient, name: string, input: unknown): Promise<Ack<T>> {
  return new Promise((resolve) =>
    (socket.emit as unknown as (n: string, i: unknown, cb: (a: Ack<T>) => void) => void)(name, input, resolve),
  );
}

async function finishedTurn(socket: Awaited<ReturnType<typeof ownerWithChat>>["socket"], sessionId: string) {
  const events: SessionEvent[] = [];
  socket.on("agent:event", (e) => events.push(e));
  await request(socket, "session:join", { sessionId });
  const sent = await request(socket, "turn:send", { sessionId, text: PROMPT });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 30_000, "the turn to end");
  return sent.data.turnId;
}

describe("creating and opening a share link", () => {
  it("creates an unguessable link whose token is never stored, and lists it with its expiry", async () => {
    const { jar, sessionId } = await ownerWithChat();
    const created = await createLink(jar, sessionId, { expiresIn: "1d", inspector: true });
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.link).toMatchObject({ sessionId, inspector: true, public: false });
    expect(Date.parse(created.link.expiresAt!) - Date.parse(created.link.createdAt)).toBe(86_400_000);
    const stored = await harness.models.ShareLink.find({ sessionId }).lean();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(created.token);
    const listed = await jar.get<{ links: ShareLinkView[] }>(SHARE_ROUTES.links(sessionId));
    expect(listed.body.links).toEqual([created.link]);
  });

  it("shows the chat's turns, tool outputs and (when allowed) its model calls to a viewer", async () => {
    const { jar, socket, sessionId } = await ownerWithChat();
    const turnId = await finishedTurn(socket, sessionId);
    const withInspector = await createLink(jar, sessionId, { inspector: true });
    const without = await createLink(jar, sessionId, {});

    const view = await viewer(withInspector.token);
    const joined = await ask<{
      chat: { sessionId: string; inspector: boolean };
      join: { mode: string; turns: { turnId: string; steps: { toolCalls: { callId: string }[] }[] }[] };
    }>(view, "share:join", {});
    expect(joined.ok).toBe(true);
    if (!joined.ok) return;
    expect(joined.data.chat).toMatchObject({ sessionId, inspector: true });
    expect(joined.data.join.mode).toBe("snapshot");
    expect(joined.data.join.turns.map((t) => t.turnId)).toEqual([turnId]);

    const call = joined.data.join.turns[0]!.steps.flatMap((s) => s.toolCalls)[0]!;
    const output = await fetch(
      `${harness.baseUrl}${SHARE_ROUTES.viewerApi(withInspector.token)}/tool-calls/${encodeURIComponent(call.callId)}?turn=${turnId}`,
    );
    expect(output.status).toBe(200);
    expect(((await output.json()) as { response: string }).response.length).toBeGreaterThan(0);

    const calls = await fetch(`${harness.baseUrl}${SHARE_ROUTES.viewerApi(withInspector.token)}/model-calls?turn=${turnId}`);
    expect(calls.status).toBe(200);
    expect(((await calls.json()) as { calls: unknown[] }).calls.length).toBeGreaterThan(0);
    // The owner did not allow the inspector on this link: its reads do not exist there.
    const refused = await fetch(`${harness.baseUrl}${SHARE_ROUTES.viewerApi(without.token)}/model-calls?turn=${turnId}`);
    expect(refused.status).toBe(404);
  }, 40_000);

  it("streams a running turn to a viewer live", async () => {
    const { jar, socket, sessionId } = await ownerWithChat();
    const { token } = await createLink(jar, sessionId);
    const view = await viewer(token);
    const seen: SessionEvent[] = [];
    view.on("agent:event", (e) => seen.push(e));
    expect((await ask(view, "share:join", {})).ok).toBe(true);
    await request(socket, "session:join", { sessionId });
    const sent = await request(socket, "turn:send", { sessionId, text: PROMPT });
    expect(sent.ok).toBe(true);
    await waitFor(() => seen.some((e) => e.type === "turn:ended"), 30_000, "the viewer to see the turn end");
    expect(seen.some((e) => e.type === "subagent_started")).toBe(true);
  }, 40_000);
});

describe("a share socket is read-only", () => {
  it("refuses every command but the two reads, and starts nothing", async () => {
    const { jar, sessionId } = await ownerWithChat();
    const { sessionId: otherChat } = await ownerWithChat();
    const { token } = await createLink(jar, sessionId);
    const view = await viewer(token);
    const attempts: [string, unknown][] = [
      ["turn:send", { sessionId, text: "do something" }],
      ["turn:cancel", { sessionId, turnId: "t1" }],
      ["subagent:steer", { sessionId, runId: "r1", message: "go" }],
      ["subagent:kill", { sessionId, runId: "r1" }],
      ["subagent:retry", { sessionId, runId: "r1" }],
      ["tool:decide", { sessionId, callId: "c1", decision: "approve" }],
      ["session:rename", { sessionId, title: "mine now" }],
      ["session:delete", { sessionId }],
      ["session:list", {}],
      ["session:join", { sessionId: otherChat }],
    ];
    for (const [name, input] of attempts) {
      expect(await ask(view, name, input), name).toEqual({ ok: false, code: "unauthorized", message: SHARE_READ_ONLY_MESSAGE });
    }
    expect(await harness.models.Turn.countDocuments({ sessionId })).toBe(0);
    expect(await harness.models.Session.countDocuments({ _id: sessionId })).toBe(1);
  });
});

describe("revoking and expiry", () => {
  it("tells an open viewer at once, cuts it off, and answers not_found to every later request", async () => {
    const { jar, sessionId } = await ownerWithChat();
    const { token, link } = await createLink(jar, sessionId);
    const view = await viewer(token);
    expect((await ask(view, "share:join", {})).ok).toBe(true);
    const told = new Promise((resolve) => view.once("share:revoked", resolve));
    const cut = new Promise((resolve) => view.once("disconnect", resolve));
    const revoked = await jar.post(SHARE_ROUTES.revoke(sessionId, link.linkId));
    expect(revoked.status).toBe(200);
    expect(await told).toEqual({ reason: "revoked" });
    await cut;
    await expect(viewer(token)).rejects.toThrow(SHARE_HANDSHAKE.notFound);
    const read = await fetch(`${harness.baseUrl}${SHARE_ROUTES.viewerApi(token)}/tool-calls/x`);
    expect(read.status).toBe(404);
    expect(await read.json()).toEqual({ error: { code: "not_found", message: SHARE_NOT_FOUND } });
    expect((await jar.get<{ links: ShareLinkView[] }>(SHARE_ROUTES.links(sessionId))).body.links).toEqual([]);
    // Revoking twice finds nothing to revoke.
    expect((await jar.post(SHARE_ROUTES.revoke(sessionId, link.linkId))).status).toBe(404);
  });

  it("an expired link behaves as revoked, also for a viewer who had it open", async () => {
    const { jar, sessionId } = await ownerWithChat();
    const { token, link } = await createLink(jar, sessionId, { expiresIn: "1d" });
    // The link runs out 400 ms from now.
    await harness.models.ShareLink.updateOne({ linkId: link.linkId }, { $set: { expiresAt: new Date(Date.now() + 400) } });
    const view = await viewer(token);
    const told = new Promise((resolve) => view.once("share:revoked", resolve));
    expect(await told).toEqual({ reason: "expired" });
    await expect(viewer(token)).rejects.toThrow(SHARE_HANDSHAKE.notFound);
    expect((await jar.get<{ links: ShareLinkView[] }>(SHARE_ROUTES.links(sessionId))).body.links).toEqual([]);
  });

  it("deleting the chat ends its links", async () => {
    const { jar, socket, sessionId } = await ownerWithChat();
    const { token } = await createLink(jar, sessionId);
    const view = await viewer(token);
    const told = new Promise((resolve) => view.once("share:revoked", resolve));
    expect((await request(socket, "session:delete", { sessionId })).ok).toBe(true);
    expect(await told).toEqual({ reason: "deleted" });
    await expect(viewer(token)).rejects.toThrow(SHARE_HANDSHAKE.notFound);
    expect(await harness.models.ShareLink.countDocuments({ sessionId })).toBe(0);
  });

  it("bad and forged tokens get the same not_found as a revoked one", async () => {
    for (const token of ["", "short", "A".repeat(43), "../../etc/passwd", "%00".repeat(10)]) {
      await expect(viewer(token), token).rejects.toThrow(SHARE_HANDSHAKE.notFound);
    }
    const res = await fetch(`${harness.baseUrl}/api/shared/${"B".repeat(43)}/model-calls?turn=t`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: SHARE_NOT_FOUND } });
  });
});

describe("share management by a stranger", () => {
  it("is answered exactly like a chat that does not exist", async () => {
    const owner = await ownerWithChat();
    const { link } = await createLink(owner.jar, owner.sessionId);
    const stranger = await ownerWithChat();
    const missing = await stranger.jar.get(SHARE_ROUTES.links("no-such-chat"));
    expect(missing.status).toBe(404);
    for (const answer of [
      await stranger.jar.get(SHARE_ROUTES.links(owner.sessionId)),
      await stranger.jar.post(SHARE_ROUTES.links(owner.sessionId), {}),
      await stranger.jar.post(SHARE_ROUTES.revoke(owner.sessionId, link.linkId)),
    ]) {
      expect(answer).toEqual(missing);
    }
    // The stranger revoking the owner's link through their own chat finds nothing either.
    expect((await stranger.jar.post(SHARE_ROUTES.revoke(stranger.sessionId, link.linkId))).status).toBe(404);
    expect((await owner.jar.get<{ links: ShareLinkView[] }>(SHARE_ROUTES.links(owner.sessionId))).body.links).toHaveLength(1);
  });

  it("refuses a bad body with a clear error and creates nothing", async () => {
    const { jar, sessionId } = await ownerWithChat();
    const res = await jar.post<{ error: { code: string; message: string } }>(SHARE_ROUTES.links(sessionId), { expiresIn: "forever" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^Invalid share link: expiresIn/);
    expect(await harness.models.ShareLink.countDocuments({ sessionId })).toBe(0);
  });
});

describe("with APP_PASSWORD set", () => {
  let locked: Harness;
  beforeAll(async () => {
    locked = await startHarness("share-links-password", {
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      password: "open sesame",
    });
  });
  afterAll(async () => {
    await locked?.close();
  });

  async function loggedIn(): Promise<CookieJar> {
    const jar = new CookieJar(locked.baseUrl);
    expect((await jar.post("/api/login", { password: "open sesame" })).status).toBe(200);
    await jar.fetch("/api/health");
    return jar;
  }
  const viewerOn = (token: string, cookie = "") =>
    new Promise<ShareClient>((resolve, reject) => {
      const socket: ShareClient = connect(`${locked.baseUrl}${SHARE_NAMESPACE}`, {
        auth: { token },
        transports: ["websocket"],
        extraHeaders: cookie ? { cookie } : {},
        reconnection: false,
        forceNew: true,
      });
      clients.push(socket);
      socket.once("connect", () => resolve(socket));
      socket.once("connect_error", reject);
    });

  it("a link needs the login unless the owner made it public", async () => {
    const owner = await loggedIn();
    const socket = await locked.client(owner.header);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    const privateLink = (await owner.post<ShareCreated>(SHARE_ROUTES.links(sessionId), {})).body.path.slice(3);
    const publicLink = (await owner.post<ShareCreated>(SHARE_ROUTES.links(sessionId), { public: true })).body.path.slice(3);

    // Nobody logged in: the private link asks for the login (page and socket), the public one opens.
    await expect(viewerOn(privateLink)).rejects.toThrow(SHARE_HANDSHAKE.signIn);
    const page = await fetch(`${locked.baseUrl}/s/${privateLink}`, { redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent(`/s/${privateLink}`)}`);
    expect((await fetch(`${locked.baseUrl}${SHARE_ROUTES.viewerApi(privateLink)}/tool-calls/x`)).status).toBe(401);
    const anonymous = await viewerOn(publicLink);
    expect((await ask(anonymous, "share:join", {})).ok).toBe(true);

    // Another browser with the login opens the private link.
    const colleague = await loggedIn();
    const view = await viewerOn(privateLink, colleague.header);
    expect((await ask(view, "share:join", {})).ok).toBe(true);
    // The password gate still guards the owner's routes.
    expect((await fetch(`${locked.baseUrl}${SHARE_ROUTES.links(sessionId)}`)).status).toBe(401);

    // Logging out closes the private link's open socket; the public one's viewer had no login to lose.
    const cut = new Promise((resolve) => view.once("disconnect", resolve));
    expect((await colleague.post("/api/logout")).status).toBe(200);
    expect(await cut).toBe("io server disconnect");
    await expect(viewerOn(privateLink, colleague.header)).rejects.toThrow(SHARE_HANDSHAKE.signIn);
    expect(anonymous.connected).toBe(true);
  });
});

describe("with accounts (AUTH_MODE=open)", () => {
  let accounts: Harness;
  beforeAll(async () => {
    accounts = await startHarness("share-links-accounts", {
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      authMode: "open",
      accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
    });
  });
  afterAll(async () => {
    await accounts?.close();
  });

  let n = 0;
  async function signedUp(): Promise<CookieJar> {
    const jar = new CookieJar(accounts.baseUrl);
    const res = await jar.post(ACCOUNT_ROUTES.signUp, { email: `share.${++n}@example.com`, password: "correct horse battery" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return jar;
  }
  /** The first sign-up is the admin. */
  let admin: CookieJar;
  beforeAll(async () => {
    admin = await signedUp();
  });
  const viewerOn = (token: string, cookie = "") =>
    new Promise<ShareClient>((resolve, reject) => {
      const socket: ShareClient = connect(`${accounts.baseUrl}${SHARE_NAMESPACE}`, {
        auth: { token },
        transports: ["websocket"],
        extraHeaders: cookie ? { cookie } : {},
        reconnection: false,
        forceNew: true,
      });
      clients.push(socket);
      socket.once("connect", () => resolve(socket));
      socket.once("connect_error", reject);
    });

  it("any signed-in account views a link, the signed-out only a public one, and another account cannot manage it", async () => {
    const owner = await signedUp();
    const socket = await accounts.client(owner.header);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    const privateLink = (await owner.post<ShareCreated>(SHARE_ROUTES.links(sessionId), {})).body;
    const publicLink = (await owner.post<ShareCreated>(SHARE_ROUTES.links(sessionId), { public: true })).body.path.slice(3);
    const token = privateLink.path.slice(3);

    await expect(viewerOn(token)).rejects.toThrow(SHARE_HANDSHAKE.signIn);
    const page = await fetch(`${accounts.baseUrl}/s/${token}`, { redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent(`/s/${token}`)}`);
    expect((await ask(await viewerOn(publicLink), "share:join", {})).ok).toBe(true);

    const colleague = await signedUp();
    expect((await ask(await viewerOn(token, colleague.header), "share:join", {})).ok).toBe(true);
    // Viewing is not owning: the colleague's management requests find no such chat.
    const missing = await colleague.get(SHARE_ROUTES.links("no-such-chat"));
    expect(await colleague.get(SHARE_ROUTES.links(sessionId))).toEqual(missing);
    expect(await colleague.post(SHARE_ROUTES.revoke(sessionId, privateLink.link.linkId))).toMatchObject({ status: 404 });
    // Signed out: the open share socket closes, and the link asks for a sign-in again.
    const open = await viewerOn(token, colleague.header);
    const cut = new Promise((resolve) => open.once("disconnect", resolve));
    await colleague.post(ACCOUNT_ROUTES.signOut);
    expect(await cut).toBe("io server disconnect");
    await expect(viewerOn(token, colleague.header)).rejects.toThrow(SHARE_HANDSHAKE.signIn);
  });

  it("a disabled owner's links stop: a new socket, the reads, and the next read of a socket opened before", async () => {
    const owner = await signedUp();
    const socket = await accounts.client(owner.header);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    const token = (await owner.post<ShareCreated>(SHARE_ROUTES.links(sessionId), { public: true })).body.path.slice(3);
    const open = await viewerOn(token);
    expect((await ask(open, "share:join", {})).ok).toBe(true);

    const account = await accounts.models.Account.findOne({ email: `share.${n}@example.com` }).lean();
    expect((await admin.post(ACCOUNT_ROUTES.adminDisable(account!._id), { disabled: true })).status).toBe(200);
    await expect(viewerOn(token)).rejects.toThrow(SHARE_HANDSHAKE.notFound);
    expect(await ask(open, "share:join", {})).toEqual({ ok: false, code: "not_found", message: SHARE_NOT_FOUND });
    const read = await fetch(`${accounts.baseUrl}${SHARE_ROUTES.viewerApi(token)}/tool-calls/x`);
    expect(read.status).toBe(404);
    expect(await read.json()).toEqual({ error: { code: "not_found", message: SHARE_NOT_FOUND } });

    // Enabled again, the link works again: disabling revoked nothing.
    expect((await admin.post(ACCOUNT_ROUTES.adminDisable(account!._id), { disabled: false })).status).toBe(200);
    expect((await ask(await viewerOn(token), "share:join", {})).ok).toBe(true);
  });
});

describe("what a viewer is sent", () => {
  let approving: Harness;
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeAll(async () => {
    ws = await tempWorkspace({ "notes.md": "The tied is high.\n" });
    const model = scriptedModel((req) =>
      req.messages.at(-1)?.role === "tool"
        ? { text: "Fixed." }
        : {
            text: "Fixing the typo.",
            toolCalls: [{ id: "e1", name: "file_edit", args: { path: "notes.md", old_string: "tied", new_string: "tide" } }],
          },
    );
    approving = await startHarness("share-links-ids", {
      runner: runtimeWith(model, { tools: createWorkspaceTools(), workspaceDir: ws.dir }),
    });
  });
  afterAll(async () => {
    await approving?.close();
    await ws?.cleanup();
  });

  const viewerOn = (token: string) =>
    new Promise<ShareClient>((resolve, reject) => {
      const socket: ShareClient = connect(`${approving.baseUrl}${SHARE_NAMESPACE}`, {
        auth: { token },
        transports: ["websocket"],
        reconnection: false,
        forceNew: true,
      });
      clients.push(socket);
      socket.once("connect", () => resolve(socket));
      socket.once("connect_error", reject);
    });

  it("never the owner's account id: not live, not in the snapshot, not in older pages", async () => {
    const { cookie, socket, sessionId } = await openSession(approving);
    const jar = new CookieJar(approving.baseUrl);
    const [name, value] = cookie.split("=") as [string, string];
    jar.set(name, value);
    const token = (await jar.post<ShareCreated>(SHARE_ROUTES.links(sessionId), { public: true })).body.path.slice("/s/".length);

    const live = await viewerOn(token);
    const seen: SessionEvent[] = [];
    live.on("agent:event", (e) => seen.push(e));
    expect((await ask(live, "share:join", {})).ok).toBe(true);
    const owner = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    const pending = () => dataOf(owner, "approval").filter((a) => a.approval.state === "pending").length;
    for (const [i, text] of ["Fix the typo in notes.md", "And once more"].entries()) {
      expect((await request(socket, "turn:send", { sessionId, text })).ok).toBe(true);
      await waitFor(() => pending() > i, 10_000, "a pending approval");
      const decision = { sessionId, callId: "e1", runId: null, decision: "deny", reason: "No" } as const;
      expect((await request(socket, "tool:decide", decision)).ok).toBe(true);
      await waitFor(() => owner.filter((e) => e.type === "turn:ended").length > i, 10_000, "the turn to end");
    }
    await waitFor(() => seen.filter((e) => e.type === "turn:ended").length === 2, 10_000, "the viewer to see both turns end");

    // The owner's view names who decided; the viewer's says only that it was denied.
    const ownerId = dataOf(owner, "approval").find((a) => a.approval.state === "denied")!.approval.decidedBy!;
    expect(ownerId).toMatch(/.+/);
    expect(dataOf(seen, "approval").map((a) => a.approval.state)).toEqual(["pending", "denied", "pending", "denied"]);
    expect(JSON.stringify(seen)).not.toContain(ownerId);

    await (await approving.app.registry.peek(sessionId))?.drain();
    const later = await viewerOn(token);
    const joined = await ask<{ join: { mode: string; turns: ChatTurn[] } }>(later, "share:join", {});
    if (!joined.ok) throw new Error(joined.message);
    expect(joined.data.join.turns.flatMap((t) => t.steps[0]!.toolCalls.map((c) => c.approval?.state))).toEqual(["denied", "denied"]);
    expect(JSON.stringify(joined)).not.toContain(ownerId);
    const older = await ask<TurnPage>(later, "share:older", { before: joined.data.join.turns[1]!.turnId, limit: 5 });
    if (!older.ok) throw new Error(older.message);
    expect(older.data.turns).toHaveLength(1);
    expect(JSON.stringify(older)).not.toContain(ownerId);
  }, 40_000);
});
