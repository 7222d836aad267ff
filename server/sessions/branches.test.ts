import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { ChatTurn, JoinResult, SessionEvent } from "@/lib/contracts";
import { sessionFileSchema } from "@/lib/export/session-file";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
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

/**
 * Branches through everything real (the OpenAI adapter over HTTP, the server, MongoDB, a
 * restart): an edited prompt and a regenerated answer start a turn beside the old one,
 * which stays whole with its subagent; the chat shows one branch, and the branch last
 * viewed after a reload; the model reads the branch it continues and nothing of another
 * (read from the model server's request log); a running turn stops before its branch is
 * left; a fork copies the turns up to one into a new chat.
 */

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const wire = (r: ScriptedRequest) => JSON.stringify(messagesOf(r));

function handler(r: ScriptedRequest) {
  const messages = messagesOf(r);
  const last = messages.at(-1)!;
  if (!isMaster(r)) return scriptedReply({ text: ["BRANCH_ONE_SUBAGENT_FINDING: the tide tables are stale."] });
  if (last.role === "tool") return scriptedReply({ text: ["The helper reported on plan A."] });
  const prompt = String(last.content);
  if (prompt.startsWith("Slow")) return { type: "hang" as const };
  if (prompt.startsWith("Plan A"))
    return scriptedReply({
      text: ["Asking a helper. "],
      toolCalls: [{ id: "m_a", name: "subagent", argumentChunks: [JSON.stringify({ agent: "explore", task: "check plan A" })] }],
    });
  return scriptedReply({ text: [`Answer to: ${prompt}`] });
}

let harness: Harness;
let server: ScriptedOpenAIServer;

beforeAll(async () => {
  server = await startScriptedOpenAIServer(handler);
  const model = createOpenAIModel({ baseURL: server.url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });
  harness = await startHarness("branches", { runner: runtimeWith(model) });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
});

type Snapshot = Extract<JoinResult, { mode: "snapshot" }>;

async function snapshot(socket: TestClient, sessionId: string): Promise<Snapshot> {
  const joined = await request(socket, "session:join", { sessionId });
  if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("no snapshot");
  return joined.data;
}

/** Runs a command that starts a turn and waits for that turn to end. */
async function ended(
  socket: TestClient,
  start: () => Promise<{ ok: boolean; data?: { turnId: string }; message?: string }>,
): Promise<string> {
  const events: SessionEvent[] = recordEvents(socket);
  const started = await start();
  if (!started.ok || !started.data) throw new Error(started.message);
  const turnId = started.data.turnId;
  await waitFor(() => events.some((e) => e.type === "turn:ended" && e.turnId === turnId), 20_000, "the turn to end");
  return turnId;
}

const prompts = (turns: readonly ChatTurn[]) => turns.map((t) => t.prompt);

describe("branches", () => {
  it("keeps the old branch whole, reads only the branch it continues, and reopens on the branch last viewed", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    await snapshot(socket, sessionId);
    const planA = await ended(socket, () => request(socket, "turn:send", { sessionId, text: "Plan A: spawn a helper" }));
    const followA = await ended(socket, () => request(socket, "turn:send", { sessionId, text: "Follow up on A" }));

    // Edit the first prompt: a new first turn, beside plan A.
    const planB = await ended(socket, () => request(socket, "turn:edit", { sessionId, turnId: planA, text: "Plan B: no helpers" }));
    let view = await snapshot(socket, sessionId);
    expect(prompts(view.turns)).toEqual(["Plan B: no helpers"]);
    expect(view.turns[0]!.parentTurnId).toBeNull();
    expect(view.siblings).toEqual({ [planB]: [planA, planB] });

    // A follow-up on branch 2: the model reads branch 2 only.
    const before = server.requests.length;
    await ended(socket, () => request(socket, "turn:send", { sessionId, text: "More on B" }));
    const followB = server.requests.slice(before).filter(isMaster);
    expect(followB).toHaveLength(1);
    const sent = wire(followB[0]!);
    expect(sent).toContain("Plan B: no helpers");
    expect(sent).toContain("Answer to: Plan B: no helpers");
    for (const other of ["Plan A", "Follow up on A", "BRANCH_ONE_SUBAGENT_FINDING", "The helper reported on plan A", "check plan A"])
      expect(sent).not.toContain(other);

    // Back to branch 1: its newest leaf, the subagent's panel whole.
    const switched = await request(socket, "session:branch", { sessionId, turnId: planA });
    if (!switched.ok || switched.data.mode !== "snapshot") throw new Error("no snapshot");
    expect(switched.data.turns.map((t) => t.turnId)).toEqual([planA, followA]);
    expect(switched.data.siblings).toEqual({ [planA]: [planA, planB] });
    const helper = switched.data.turns[0]!.steps[0]!.toolCalls[0]!.subagent!;
    expect(helper).toMatchObject({
      name: "explore",
      status: "success",
      response: "BRANCH_ONE_SUBAGENT_FINDING: the tide tables are stale.",
    });
    socket.disconnect();

    // A fresh process opens the chat on the branch last viewed.
    harness = await harness.restart();
    const again = await harness.client(cookie);
    view = await snapshot(again, sessionId);
    expect(view.turns.map((t) => t.turnId)).toEqual([planA, followA]);

    // Regenerate the follow-up: same prompt, beside it, on the same parent.
    const regenerated = await ended(again, () => request(again, "turn:regenerate", { sessionId, turnId: followA }));
    view = await snapshot(again, sessionId);
    expect(view.turns.map((t) => t.turnId)).toEqual([planA, regenerated]);
    expect(view.turns[1]!.prompt).toBe("Follow up on A");
    expect(view.siblings).toEqual({ [planA]: [planA, planB], [regenerated]: [followA, regenerated] });
    const regeneratedRequest = server.requests.filter(isMaster).at(-1)!;
    expect(wire(regeneratedRequest)).toContain("The helper reported on plan A");
    expect(wire(regeneratedRequest)).not.toContain("Plan B");

    // The export holds the branch in view.
    const exported = sessionFileSchema.parse(
      await (await fetch(`${harness.baseUrl}/api/sessions/${sessionId}/export?format=json`, { headers: { cookie } })).json(),
    );
    expect(exported.turns.map((t) => t.turn.prompt)).toEqual(["Plan A: spawn a helper", "Follow up on A"]);
    expect(exported.turns.every((t) => t.turn.parentTurnId === undefined)).toBe(true);

    // Fork at plan A: a new chat holding that turn whole, with its model requests.
    const forked = await request(again, "session:fork", { sessionId, turnId: planA });
    if (!forked.ok) throw new Error(forked.message);
    expect(forked.data.title).toMatch(/^Fork of /);
    const copy = await snapshot(again, forked.data.sessionId);
    expect(prompts(copy.turns)).toEqual(["Plan A: spawn a helper"]);
    expect(copy.turns[0]!.steps[0]!.toolCalls[0]!.subagent).toMatchObject({ name: "explore", response: helper.response });
    expect(copy.siblings).toBeUndefined();
    const calls = (await (
      await fetch(`${harness.baseUrl}/api/sessions/${forked.data.sessionId}/model-calls?turn=${copy.turns[0]!.turnId}`, {
        headers: { cookie },
      })
    ).json()) as { calls: unknown[] };
    expect(calls.calls.length).toBeGreaterThanOrEqual(3);
    again.disconnect();
  });

  it("stops a running turn before its branch is left", async () => {
    const { socket, sessionId } = await openSession(harness);
    await snapshot(socket, sessionId);
    const first = await ended(socket, () => request(socket, "turn:send", { sessionId, text: "First" }));
    const events: SessionEvent[] = recordEvents(socket);
    const slow = await request(socket, "turn:edit", { sessionId, turnId: first, text: "Slow and hanging" });
    if (!slow.ok) throw new Error(slow.message);
    await waitFor(() => events.some((e) => e.type === "turn:started" && e.turnId === slow.data.turnId), 10_000, "the slow turn to start");

    const switched = await request(socket, "session:branch", { sessionId, turnId: first });
    if (!switched.ok || switched.data.mode !== "snapshot") throw new Error("no snapshot");
    const end = events.find((e) => e.type === "turn:ended" && e.turnId === slow.data.turnId);
    expect(end && end.type === "turn:ended" && end.status).toBe("cancelled");
    expect(switched.data.turns.map((t) => t.turnId)).toEqual([first]);
    expect(switched.data.siblings).toEqual({ [first]: [first, slow.data.turnId] });
    socket.disconnect();
  });

  it("searches the branch in view: an edited prompt's words leave search with their branch, and come back with it", async () => {
    const { socket, sessionId } = await openSession(harness);
    await snapshot(socket, sessionId);
    await ended(socket, () => request(socket, "turn:send", { sessionId, text: "Hello there" }));
    const kestrels = await ended(socket, () => request(socket, "turn:send", { sessionId, text: "Count the kestrels" }));
    const herons = await ended(socket, () => request(socket, "turn:edit", { sessionId, turnId: kestrels, text: "Count the herons" }));
    const found = async (word: string) => {
      await (await harness.app.registry.peek(sessionId))?.drain();
      const searched = await request(socket, "session:search", { query: word });
      if (!searched.ok) throw new Error(searched.message);
      return searched.data.hits.filter((h) => h.session.sessionId === sessionId).map((h) => h.turnId);
    };
    expect(await found("herons")).toEqual([herons]);
    expect(await found("kestrels")).toEqual([]);

    const switched = await request(socket, "session:branch", { sessionId, turnId: kestrels });
    if (!switched.ok) throw new Error(switched.message);
    expect(await found("kestrels")).toEqual([kestrels]);
    expect(await found("herons")).toEqual([]);
    // What both branches share stays findable throughout.
    expect((await found("hello")).length).toBe(1);
    socket.disconnect();
  });

  it("refuses a turn of another chat, and another person's chat", async () => {
    const mine = await openSession(harness);
    await snapshot(mine.socket, mine.sessionId);
    const turnId = await ended(mine.socket, () => request(mine.socket, "turn:send", { sessionId: mine.sessionId, text: "Mine" }));
    const other = await openSession(harness, mine.cookie);
    const wrongChat = await request(other.socket, "turn:edit", { sessionId: other.sessionId, turnId, text: "x" });
    expect(!wrongChat.ok && wrongChat.message).toMatch(/not in this chat/);
    const stranger = await openSession(harness);
    const foreign = await request(stranger.socket, "session:fork", { sessionId: mine.sessionId, turnId });
    expect(!foreign.ok && foreign.code).toBe("not_found");
    for (const s of [mine.socket, other.socket, stranger.socket]) s.disconnect();
  });
});
