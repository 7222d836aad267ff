import { afterEach, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type AgentSummary, type ChatTurn, type SessionEvent } from "@/lib/contracts";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { ModelRequest } from "@/lib/model/types";
import { lastUser, scriptedModel, systemOf, type ScriptedModel } from "@/test/support/agent/scripted-model";
import {
  openSession,
  recordEvents,
  request,
  runtimeWith,
  startHarness,
  waitFor,
  type Harness,
  type TestClient,
} from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { createLoginThrottle } from "@/server/accounts/login-throttle";

/**
 * Subagent definitions made in the app, through the real server on the test database: the
 * master of the next turn is offered a definition as soon as it is saved, runs record the
 * version they ran, and nobody but its owner sees a private one.
 */

/** The master delegates to the agent its prompt names ("use <name>"), then answers; a subagent answers at once. */
function delegatingModel(): ScriptedModel {
  return scriptedModel((request) => {
    if (!systemOf(request).startsWith(MASTER_PROMPT_MARKER)) return { text: "the subagent's answer" };
    const wanted = /use (\S+)/.exec(lastUser(request.messages))?.[1];
    // Delegates once per turn: right after the prompt, before any result of this turn.
    if (wanted && request.messages.at(-1)?.role === "user")
      return { toolCalls: [{ id: "call-1", name: "subagent", args: { agent: wanted, task: "look" } }] };
    return { text: "done" };
  });
}

/** The subagent tool's description in the master's request: the agents it is offered. */
function offered(request: ModelRequest | undefined): string {
  return request?.tools?.find((t) => t.name === "subagent")?.description ?? "";
}

const masterRequests = (model: ScriptedModel) => model.requests.filter((r) => systemOf(r).startsWith(MASTER_PROMPT_MARKER));

const reviewer = (description = "Reviews a diff for bugs") => ({
  name: "reviewer",
  description,
  systemPrompt: "You review code.",
  allowedTools: ["file_read"],
});

async function sendAndWait(socket: TestClient, sessionId: string, text: string): Promise<SessionEvent[]> {
  // The room's events reach a socket that joined the chat.
  await request(socket, "session:join", { sessionId });
  const events = recordEvents(socket);
  const sent = await request(socket, "turn:send", { sessionId, text });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended" && e.turnId === sent.data.turnId), 20_000, "the turn's end");
  socket.off("agent:event");
  // The turn's last writes touch the chat's document; a toggle of the chat's agents right
  // after must not race them, as FerretDB 1.x can lose one of two concurrent updates of one
  // document (MongoDB applies each atomically).
  await (await harness!.app.registry.peek(sessionId))?.drain();
  return events.filter((e) => "turnId" in e && e.turnId === sent.data.turnId);
}

async function create(socket: TestClient, definition: object, shared?: boolean): Promise<AgentSummary> {
  const created = await request(socket, "agent:create", { definition, ...(shared !== undefined ? { shared } : {}) });
  if (!created.ok) throw new Error(created.message);
  return created.data;
}

async function storedTurns(socket: TestClient, sessionId: string): Promise<ChatTurn[]> {
  const joined = await request(socket, "session:join", { sessionId });
  if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("expected a snapshot");
  return joined.data.turns;
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("subagent definitions made in the app", () => {
  it("a definition created over the socket is offered to the next turn's master, with no restart", async () => {
    const model = delegatingModel();
    harness = await startHarness("agents-offered", { runner: runtimeWith(model) });
    const { socket, sessionId } = await openSession(harness);
    await sendAndWait(socket, sessionId, "hello");
    expect(offered(masterRequests(model).at(-1))).not.toContain("reviewer");

    await create(socket, reviewer());
    await sendAndWait(socket, sessionId, "hello again");
    expect(offered(masterRequests(model).at(-1))).toContain("- reviewer: Reviews a diff for bugs");
  });

  it("a run records the version it ran; after an edit the next run says v2 and the earlier one still v1 after a restart", async () => {
    const model = delegatingModel();
    harness = await startHarness("agents-versions", { runner: runtimeWith(model) });
    const { cookie, socket, sessionId } = await openSession(harness);
    const made = await create(socket, reviewer());

    const first = await sendAndWait(socket, sessionId, "use reviewer");
    const started = first.find((e) => e.type === "subagent_started");
    expect(started).toMatchObject({ name: "reviewer", definition: { id: made.id, version: 1 } });

    const edited = await request(socket, "agent:update", { id: made.id!, definition: reviewer("Reviews diffs, strictly"), baseVersion: 1 });
    expect(edited).toMatchObject({ ok: true, data: { version: 2 } });
    const second = await sendAndWait(socket, sessionId, "use reviewer");
    expect(second.find((e) => e.type === "subagent_started")).toMatchObject({ definition: { id: made.id, version: 2 } });
    // The edited description is what the master read.
    expect(offered(masterRequests(model).at(-1))).toContain("Reviews diffs, strictly");

    harness = await harness.restart();
    const turns = await storedTurns(await harness.client(cookie), sessionId);
    const versions = turns.map((t) => t.steps[0]?.toolCalls[0]?.subagent?.definition?.version);
    expect(versions).toEqual([1, 2]);

    const detail = await request(await harness.client(cookie), "agent:get", { id: made.id! });
    if (!detail.ok) throw new Error(detail.message);
    expect(detail.data.versions.map((v) => [v.version, v.definition.description])).toEqual([
      [2, "Reviews diffs, strictly"],
      [1, "Reviews a diff for bugs"],
    ]);
  });

  it("another person gets not_found for a private definition over the socket and over HTTP, and their master is not offered it", async () => {
    const model = delegatingModel();
    harness = await startHarness("agents-private", { runner: runtimeWith(model) });
    const owner = await openSession(harness);
    const made = await create(owner.socket, reviewer());

    const stranger = await openSession(harness);
    for (const [name, input] of [
      ["agent:get", { id: made.id }],
      ["agent:update", { id: made.id, definition: reviewer("mine now") }],
      ["agent:duplicate", { key: made.id }],
      ["agent:delete", { id: made.id }],
    ] as const)
      expect(await request(stranger.socket, name, input)).toMatchObject({ ok: false, code: "not_found" });
    const http = await fetch(`${harness.baseUrl}/api/agents/${made.id}`, { headers: { cookie: stranger.cookie } });
    expect(http.status).toBe(404);
    expect(await http.json()).toMatchObject({ error: { code: "not_found" } });
    const listed = await request(stranger.socket, "agent:list", {});
    expect(listed.ok && [...listed.data.mine, ...listed.data.shared].map((a) => a.id)).toEqual([]);

    await sendAndWait(stranger.socket, stranger.sessionId, "hello");
    expect(offered(masterRequests(model).at(-1))).not.toContain("reviewer");
    // The owner reads it over HTTP too.
    const own = await fetch(`${harness.baseUrl}/api/agents/${made.id}`, { headers: { cookie: owner.cookie } });
    expect(await own.json()).toMatchObject({ id: made.id, version: 1, definition: { name: "reviewer" } });
  });

  it("over HTTP, the same commands: a refused field under its path, a create, a second version, a stranger's 404, a delete", async () => {
    harness = await startHarness("agents-http", { runner: runtimeWith(delegatingModel()) });
    const owner = await harness.newCookie();
    const stranger = await harness.newCookie();
    const call = async (cookie: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${harness!.baseUrl}${path}`, {
        method,
        headers: { cookie, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    const refused = await call(owner, "POST", "/api/agents", { definition: { ...reviewer(), maxSteps: 500 } });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: "bad_request", issues: [{ path: "maxSteps" }] } } });
    const created = await call(owner, "POST", "/api/agents", { definition: reviewer() });
    expect(created).toMatchObject({ status: 200, body: { version: 1, scope: "mine" } });
    const id = created.body.id as string;
    expect(await call(owner, "PUT", `/api/agents/${id}`, { definition: reviewer("Second"), baseVersion: 1 })).toMatchObject({
      status: 200,
      body: { version: 2 },
    });
    expect(await call(owner, "PUT", `/api/agents/${id}`, { definition: reviewer("Third"), baseVersion: 1 })).toMatchObject({
      status: 409,
      body: { error: { code: "conflict" } },
    });
    expect((await call(stranger, "DELETE", `/api/agents/${id}`)).status).toBe(404);
    expect((await call(stranger, "POST", `/api/agents/${id}/duplicate`)).status).toBe(404);
    const copy = await call(owner, "POST", `/api/agents/operator%3Aexplore/duplicate`);
    expect(copy).toMatchObject({ status: 200, body: { definition: { name: "explore-copy" } } });
    expect(await call(owner, "DELETE", `/api/agents/${id}`)).toMatchObject({ status: 200, body: { id } });
    const list = await call(owner, "GET", "/api/agents");
    expect((list.body.mine as AgentSummary[]).map((a) => a.definition.name)).toEqual(["explore-copy"]);
  });

  it("a field's error comes back under its path, every one at once", async () => {
    harness = await startHarness("agents-issues", { runner: runtimeWith(delegatingModel()) });
    const { socket } = await openSession(harness);
    const answer = await request(socket, "agent:create", {
      definition: { name: "Bad Name", description: "", systemPrompt: "x", maxSteps: 0 },
    });
    expect(answer).toMatchObject({ ok: false, code: "bad_request" });
    const paths = answer.ok ? [] : (answer.issues ?? []).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "description", "maxSteps"]));
  });

  it("a person cannot give a definition a model of its own: the server's keys never go to an address a person chose", async () => {
    harness = await startHarness("agents-own-model", { runner: runtimeWith(delegatingModel()) });
    const { socket } = await openSession(harness);
    const answer = await request(socket, "agent:create", {
      definition: { ...reviewer(), model: { name: "m", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "OPENAI_API_KEY" } },
    });
    expect(answer).toMatchObject({ ok: false, code: "bad_request", issues: [{ path: "model" }] });
    expect(await harness.models.AgentDefinition.countDocuments({})).toBe(0);
  });

  it("a chat that turned a definition off does not offer it; turned on again, it does", async () => {
    const model = delegatingModel();
    harness = await startHarness("agents-chat-off", { runner: runtimeWith(model) });
    const { socket, sessionId } = await openSession(harness);
    const made = await create(socket, reviewer());

    expect(await request(socket, "chat:agents", { sessionId, key: made.key, enabled: false })).toMatchObject({
      ok: true,
      data: { off: [made.key] },
    });
    expect(await request(socket, "chat:agents", { sessionId, key: "operator:explore", enabled: false })).toMatchObject({ ok: true });
    await sendAndWait(socket, sessionId, "hello");
    const description = offered(masterRequests(model).at(-1));
    expect(description).not.toContain("reviewer");
    expect(description).not.toContain("- explore:");
    expect(description).toContain("- general:");

    expect(await request(socket, "chat:agents", { sessionId, key: made.key, enabled: true })).toMatchObject({
      ok: true,
      data: { off: ["operator:explore"] },
    });
    await sendAndWait(socket, sessionId, "hello");
    expect(offered(masterRequests(model).at(-1))).toContain("- reviewer:");
  });

  it("a deleted definition is no longer offered, and its runs' panels still read their version", async () => {
    const model = delegatingModel();
    harness = await startHarness("agents-delete", { runner: runtimeWith(model) });
    const { socket, sessionId } = await openSession(harness);
    const made = await create(socket, reviewer());
    await sendAndWait(socket, sessionId, "use reviewer");
    expect(await request(socket, "agent:delete", { id: made.id })).toMatchObject({ ok: true });

    await sendAndWait(socket, sessionId, "hello");
    expect(offered(masterRequests(model).at(-1))).not.toContain("reviewer");
    expect(await request(socket, "agent:get", { id: made.id })).toMatchObject({ ok: true, data: { deleted: true, version: 1 } });
  });
});

describe("shared definitions", () => {
  const PASSWORD = "correct horse battery";

  async function signUp(h: Harness, email: string): Promise<CookieJar> {
    const jar = new CookieJar(h.baseUrl);
    const answer = await jar.post(ACCOUNT_ROUTES.signUp, { email, password: PASSWORD });
    if (answer.status !== 200) throw new Error(`sign-up failed: ${JSON.stringify(answer.body)}`);
    return jar;
  }

  it("an admin's shared definition is offered to another person's turns; only an admin makes or changes one", async () => {
    const model = delegatingModel();
    harness = await startHarness("agents-shared", {
      runner: runtimeWith(model),
      authMode: "open",
      accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
    });
    // The first account is the admin.
    const admin = await signUp(harness, "admin@example.com");
    const member = await signUp(harness, "member@example.com");
    const adminSocket = await harness.client(admin.header);
    const shared = await create(adminSocket, reviewer("Shared reviewer"), true);
    expect(shared.scope).toBe("shared");

    const memberSession = await openSession(harness, member.header);
    expect(await request(memberSession.socket, "agent:create", { definition: reviewer(), shared: true })).toMatchObject({
      ok: false,
      code: "unauthorized",
    });
    expect(await request(memberSession.socket, "agent:update", { id: shared.id, definition: reviewer("taken over") })).toMatchObject({
      ok: false,
      code: "unauthorized",
    });
    const events = await sendAndWait(memberSession.socket, memberSession.sessionId, "use reviewer");
    expect(offered(masterRequests(model).at(-1))).toContain("- reviewer: Shared reviewer");
    expect(events.find((e) => e.type === "subagent_started")).toMatchObject({ definition: { id: shared.id, version: 1 } });
  });
});
