import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, NOTIFICATION_ROUTES, type NotificationPayload, type SessionEvent } from "@/lib/contracts";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { tempWorkspace } from "@/test/support/agent/harness";
import { createWorkspaceTools } from "@/lib/tools";
import { recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import {
  browserSubscription,
  decryptPush,
  startPushService,
  verifyVapid,
  type BrowserKeys,
  type TestPushService,
} from "@/test/support/push/push-service";

/**
 * Browser notifications through the real server, with a push service of the test's own on
 * 127.0.0.1 standing in for the browser's: the VAPID keys made once and kept, the routes
 * behind the sign-in refusing what is not a subscription, and a turn's end and a waiting
 * approval reaching the owner's subscriptions as signed, encrypted pushes the test reads
 * back as the browser would, as their setting says, with a gone subscription forgotten.
 */

let harness: Harness;
let push: TestPushService;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
const PASSWORD = "correct horse battery";

// "fix": a call that waits for approval; anything else: a plain answer.
const model = scriptedModel((req) => {
  if (toolResults(req.messages).length > 0) return { text: "Done." };
  const prompt = JSON.stringify(req.messages.at(-1));
  if (prompt.includes("fix")) {
    return {
      text: "The tide, not the tied.",
      toolCalls: [{ id: "e1", name: "file_edit", args: { path: "notes.md", old_string: "tied", new_string: "tide" } }],
    };
  }
  return { text: "Hello." };
});

async function signUp(email: string): Promise<{ jar: CookieJar; id: string }> {
  const jar = new CookieJar(harness.baseUrl);
  const res = await jar.post(ACCOUNT_ROUTES.signUp, { email, password: PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const state = await jar.get<{ account: { id: string } }>(ACCOUNT_ROUTES.state);
  return { jar, id: state.body.account.id };
}

async function put(jar: CookieJar, path: string, body: unknown) {
  const res = await jar.fetch(path, { method: "PUT", body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  push = await startPushService();
  ws = await tempWorkspace({ "notes.md": "The tied is high.\n" });
  harness = await startHarness("notifications", {
    runner: runtimeWith(model, { tools: createWorkspaceTools(), workspaceDir: ws.dir }),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
    notify: { vapid: { subject: "mailto:ops@example.com" }, allowHosts: ["127.0.0.1"], ttlSeconds: 60 },
  });
});
afterAll(async () => {
  await harness?.close();
  await push?.close();
  await ws?.cleanup();
});

/** Runs a turn in a new chat of `jar`'s person from a socket that does not watch the chat. */
async function turnIn(jar: CookieJar, text: string, onEvent?: (event: SessionEvent) => void) {
  const socket = await harness.client(jar.header);
  const created = await request(socket, "session:create", { title: `Chat for ${text}` });
  if (!created.ok) throw new Error(created.message);
  const { sessionId } = created.data;
  const events = recordEvents(socket, onEvent);
  const sent = await request(socket, "turn:send", { sessionId, text });
  if (!sent.ok) throw new Error(sent.message);
  return { socket, sessionId, events, turnId: sent.data.turnId };
}

/** The chat's turn is stored as ended (the test's socket does not watch the chat). */
async function turnEnded(sessionId: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await harness.models.Turn.exists({ sessionId, status: { $ne: "running" } })) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the turn did not end");
}

function pushesTo(name: string) {
  return push.received.filter((p) => p.path === `/push/${name}`);
}

function read(name: string, browser: BrowserKeys, index = -1): NotificationPayload {
  return JSON.parse(decryptPush(pushesTo(name).at(index)!.body, browser)) as NotificationPayload;
}

describe("notifications", () => {
  it("keep one VAPID key pair, made once, across a restart", async () => {
    const ann = await signUp("keys@example.com");
    const first = await ann.jar.get<{ publicKey: string }>(NOTIFICATION_ROUTES.key);
    expect(first.status).toBe(200);
    expect(first.body.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    harness = await harness.restart();
    const again = await (await signUp("keys-after@example.com")).jar.get<{ publicKey: string }>(NOTIFICATION_ROUTES.key);
    expect(again.body.publicKey).toBe(first.body.publicKey);
    expect(await harness.models.VapidKeys.countDocuments({})).toBe(1);
  });

  it("are behind the sign-in and take only a well-formed https subscription", async () => {
    const stranger = new CookieJar(harness.baseUrl);
    for (const path of [NOTIFICATION_ROUTES.key, NOTIFICATION_ROUTES.settings]) expect((await stranger.get(path)).status).toBe(401);
    expect((await stranger.post(NOTIFICATION_ROUTES.subscribe, browserSubscription().json("https://push.example.com/x"))).status).toBe(401);

    // The service worker's scripts are not behind it: a browser checks them for updates signed in or not.
    for (const path of ["/sw.js", "/sw-notifications.js"]) {
      const res = await fetch(`${harness.baseUrl}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(404); // no page handler in these tests: past the gate, nothing serves it
    }

    const bob = await signUp("bob@example.com");
    const keys = browserSubscription();
    const refused: [string, unknown][] = [
      ["plain http to a public host", keys.json("http://push.example.com/x")],
      ["not http at all", keys.json("javascript:alert(1)")],
      ["a user name in the URL", keys.json("https://user:pw@push.example.com/x")],
      ["an endpoint past 2 KB", keys.json(`https://push.example.com/${"a".repeat(2_100)}`)],
      ["no keys", { endpoint: "https://push.example.com/x" }],
      ["keys that are not base64url", { endpoint: "https://push.example.com/x", keys: { p256dh: "<script>", auth: "a b" } }],
      ["a key too long", { endpoint: "https://push.example.com/x", keys: { p256dh: "A".repeat(500), auth: "AAAA" } }],
      ["an array", [keys.json("https://push.example.com/x")]],
    ];
    for (const [what, body] of refused) {
      const res = await bob.jar.post<{ error: { code: string; message: string } }>(NOTIFICATION_ROUTES.subscribe, body);
      expect(res.status, what).toBe(400);
      expect(res.body.error.code, what).toBe("bad_request");
    }
    const notJson = await bob.jar.fetch(NOTIFICATION_ROUTES.subscribe, {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    const huge = await bob.jar.post(NOTIFICATION_ROUTES.subscribe, { ...keys.json("https://push.example.com/x"), pad: "x".repeat(10_000) });
    expect(huge.status).toBe(413);
    const crossSite = await bob.jar.post(NOTIFICATION_ROUTES.subscribe, keys.json("https://push.example.com/x"), {
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(401);
    expect(await harness.models.PushSubscription.countDocuments({ personId: bob.id })).toBe(0);

    expect((await put(bob.jar, NOTIFICATION_ROUTES.settings, { level: "loud" })).status).toBe(400);
    expect((await put(bob.jar, NOTIFICATION_ROUTES.settings, { level: "off", extra: 1 })).status).toBe(400);
    expect((await bob.jar.get(NOTIFICATION_ROUTES.settings)).body).toEqual({ level: "all" });

    const ok = await bob.jar.post(NOTIFICATION_ROUTES.subscribe, keys.json("https://push.example.com/x"));
    expect(ok).toEqual({ status: 200, body: { subscribed: true } });
    expect(await bob.jar.post(NOTIFICATION_ROUTES.unsubscribe, { endpoint: "https://push.example.com/x" })).toEqual({
      status: 200,
      body: { removed: true },
    });
    expect(await harness.models.PushSubscription.countDocuments({ personId: bob.id })).toBe(0);
  });

  it("push a finished turn and a waiting approval to the owner, signed and encrypted; `approvals` sends only approvals", async () => {
    const ann = await signUp("ann@example.com");
    const browser = browserSubscription();
    expect((await ann.jar.post(NOTIFICATION_ROUTES.subscribe, browser.json(push.endpoint("ann")))).status).toBe(200);
    const { publicKey } = (await ann.jar.get<{ publicKey: string }>(NOTIFICATION_ROUTES.key)).body;

    const plain = await turnIn(ann.jar, "hello");
    await waitFor(() => pushesTo("ann").length === 1, 10_000, "the finished turn's push");
    const received = pushesTo("ann")[0]!;
    expect(received.headers["content-encoding"]).toBe("aes128gcm");
    expect(Number(received.headers.ttl)).toBe(60);
    expect(received.headers.urgency).toBe("normal");
    const claims = verifyVapid(String(received.headers.authorization), publicKey);
    expect(claims).toMatchObject({ aud: push.origin, sub: "mailto:ops@example.com" });
    const { turnId } = plain;
    expect(read("ann", browser)).toEqual({
      title: "Delegate: turn finished in Chat for hello",
      body: "The answer is ready.",
      tag: `${plain.sessionId}:${turnId}:finished`,
      url: `/c/${plain.sessionId}#turn-${turnId}`,
    });

    expect((await put(ann.jar, NOTIFICATION_ROUTES.settings, { level: "approvals" })).body).toEqual({ level: "approvals" });
    const fix = await turnIn(ann.jar, "fix the notes");
    await waitFor(() => pushesTo("ann").length === 2, 10_000, "the approval's push");
    expect(pushesTo("ann")[1]!.headers.urgency).toBe("high");
    const approval = read("ann", browser);
    expect(approval.title).toBe("Approval needed: file_edit in Chat for fix the notes");
    expect(approval.body).toBe("The tide, not the tied.");
    expect(approval.url).toMatch(new RegExp(`^/c/${fix.sessionId}#turn-`));
    const decided = await request(fix.socket, "tool:decide", { sessionId: fix.sessionId, callId: "e1", runId: null, decision: "deny" });
    expect(decided.ok).toBe(true);
    await turnEnded(fix.sessionId);
    await harness.app.notifications!.idle();
    // Its end is not an approval: nothing more was sent.
    expect(pushesTo("ann")).toHaveLength(2);
  });

  it("go to the chat's owner and collaborators, never to a viewer", async () => {
    const [dee, eve, fay] = await Promise.all(["dee", "eve", "fay"].map((name) => signUp(`${name}@example.com`)));
    for (const [name, person] of [
      ["dee", dee],
      ["eve", eve],
      ["fay", fay],
    ] as const) {
      expect((await person!.jar.post(NOTIFICATION_ROUTES.subscribe, browserSubscription().json(push.endpoint(name)))).status).toBe(200);
    }
    const socket = await harness.client(dee!.jar.header);
    const created = await request(socket, "session:create", { title: "Team chat" });
    if (!created.ok) throw new Error(created.message);
    const { sessionId } = created.data;
    expect((await request(socket, "member:add", { sessionId, email: "eve@example.com", role: "collaborator" })).ok).toBe(true);
    expect((await request(socket, "member:add", { sessionId, email: "fay@example.com", role: "viewer" })).ok).toBe(true);

    expect((await request(socket, "turn:send", { sessionId, text: "hello" })).ok).toBe(true);
    await waitFor(() => pushesTo("dee").length === 1 && pushesTo("eve").length === 1, 10_000, "the owner's and the collaborator's pushes");
    await turnEnded(sessionId);
    await harness.app.notifications!.idle();
    expect(pushesTo("fay")).toHaveLength(0);
  });

  it("send nothing when the setting is off or the person watches the chat; a 410 forgets the subscription", async () => {
    const cy = await signUp("cy@example.com");
    const browser = browserSubscription();
    await cy.jar.post(NOTIFICATION_ROUTES.subscribe, browser.json(push.endpoint("cy")));

    // Watching: the page notifies by itself.
    const socket = await harness.client(cy.jar.header);
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(created.message);
    const events = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId: created.data.sessionId })).ok).toBe(true);
    expect((await request(socket, "turn:send", { sessionId: created.data.sessionId, text: "hello" })).ok).toBe(true);
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 10_000, "the watched turn's end");
    await harness.app.notifications!.idle();

    await put(cy.jar, NOTIFICATION_ROUTES.settings, { level: "off" });
    const off = await turnIn(cy.jar, "hello");
    await turnEnded(off.sessionId);
    await harness.app.notifications!.idle();
    expect(pushesTo("cy")).toHaveLength(0);

    await put(cy.jar, NOTIFICATION_ROUTES.settings, { level: "all" });
    push.answer("cy", 410);
    await turnIn(cy.jar, "hello");
    await waitFor(() => pushesTo("cy").length === 1, 10_000, "the push the service refuses");
    await harness.app.notifications!.idle();
    expect(await harness.models.PushSubscription.countDocuments({ endpoint: push.endpoint("cy") })).toBe(0);
  });
});
