import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JoinResult } from "@/lib/contracts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedError,
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * The chat slice end to end below the browser: the real server on port 0, two
 * socket.io clients, the real database server, the real agent runtime and the real
 * OpenAI-compatible adapter talking HTTP to a scripted local model server.
 */

let model: ScriptedOpenAIServer;
let harness: Harness;
/** What the scripted model answers, chosen by the last user message. */
function reply(req: ScriptedRequest) {
  const messages = req.body?.messages ?? [];
  const last = [...messages].reverse().find((m: { role: string }) => m.role === "user")?.content ?? "";
  if (last.includes("please fail")) return scriptedError(500, "upstream exploded");
  if (last.includes("slow")) {
    return { type: "stream" as const, steps: [{ delta: { content: "Thinking slowly" } }, { delayMs: 30_000 }, { finishReason: "stop" }] };
  }
  return scriptedReply({ text: ["Hello", " from", " the", " model."], usage: { promptTokens: 12, completionTokens: 4 } });
}

beforeAll(async () => {
  model = await startScriptedOpenAIServer((req) => reply(req));
  const chatModel = createOpenAIModel({ baseURL: model.url, apiKey: "test", model: "scripted", timeoutMs: 60_000, maxRetries: 0 });
  harness = await startHarness("chatflow", { runner: runtimeWith(chatModel) });
});
afterAll(async () => {
  await harness?.close();
  await model?.close();
});

describe("chat over Socket.IO", () => {
  it("streams a reply to every client watching the session and stores it", async () => {
    const cookie = await harness.newCookie();
    const { socket: a, sessionId } = await openSession(harness, cookie);
    const b = await harness.client(cookie);
    const eventsA = recordEvents(a);
    const eventsB = recordEvents(b);
    expect((await request(a, "session:join", { sessionId: sessionId })).ok).toBe(true);
    expect((await request(b, "session:join", { sessionId: sessionId })).ok).toBe(true);

    const sent = await request(a, "turn:send", { sessionId: sessionId, text: "Say hello" });
    expect(sent.ok).toBe(true);
    await waitFor(() => eventsB.some((e) => e.type === "turn:ended"), 10_000, "turn end on client B");

    for (const events of [eventsA, eventsB]) {
      const tokens = dataOf(events, "token", "master").map((d) => d.text);
      expect(tokens.join("")).toBe("Hello from the model.");
      const seqs = events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
    const ended = eventsA.find((e) => e.type === "turn:ended");
    expect(ended?.type === "turn:ended" && ended.status).toBe("completed");

    // A fresh load (another tab, later) sees the same conversation from MongoDB.
    await harness.app.registry.peek(sessionId).then((s) => s?.drain());
    const c = await harness.client(cookie);
    const joined = await request(c, "session:join", { sessionId: sessionId });
    expect(joined.ok).toBe(true);
    const snapshot = (joined as { data: JoinResult }).data;
    expect(snapshot.mode).toBe("snapshot");
    if (snapshot.mode !== "snapshot") return;
    expect(snapshot.turns).toHaveLength(1);
    expect(snapshot.turns[0]).toMatchObject({ prompt: "Say hello", status: "completed" });
    expect(snapshot.turns[0]!.steps.map((s) => s.text)).toEqual(["Hello from the model."]);
    expect(snapshot.title).toBe("Say hello");
    const stored = await harness.models.Turn.findById(snapshot.turns[0]!.turnId).lean();
    expect(stored?.steps.map((s) => s.text)).toEqual(["Hello from the model."]);
  });

  it("names the model failure in the chat and keeps what was stored", async () => {
    const cookie = await harness.newCookie();
    const { socket, sessionId } = await openSession(harness, cookie);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId: sessionId });
    await request(socket, "turn:send", { sessionId: sessionId, text: "Say hello" });
    await waitFor(() => events.some((e) => e.type === "turn:ended"));
    await request(socket, "turn:send", { sessionId: sessionId, text: "please fail" });
    await waitFor(() => events.filter((e) => e.type === "turn:ended").length === 2);
    const failed = events.filter((e) => e.type === "turn:ended")[1];
    expect(failed?.type === "turn:ended" && failed.status).toBe("failed");
    expect(failed?.type === "turn:ended" && failed.error).toMatch(/model|provider|500|server/i);

    await harness.app.registry.peek(sessionId).then((s) => s?.drain());
    const turns = await harness.models.Turn.find({ sessionId: sessionId }).sort({ createdAt: 1 }).lean();
    expect(turns.map((t) => t.status)).toEqual(["completed", "failed"]);
    expect(turns[0]?.steps.map((s) => s.text)).toEqual(["Hello from the model."]);
  });

  it("cancels a running turn with Stop", async () => {
    const cookie = await harness.newCookie();
    const { socket, sessionId } = await openSession(harness, cookie);
    const events = recordEvents(socket);
    await request(socket, "session:join", { sessionId: sessionId });
    const sent = await request(socket, "turn:send", { sessionId: sessionId, text: "be slow" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => dataOf(events, "token", "master").length > 0, 10_000, "first token");
    const busy = await request(socket, "turn:send", { sessionId: sessionId, text: "another" });
    expect(busy).toMatchObject({ ok: false, code: "busy" });

    const cancelled = await request(socket, "turn:cancel", { sessionId: sessionId, turnId: sent.data.turnId });
    expect(cancelled.ok).toBe(true);
    await waitFor(() => events.some((e) => e.type === "turn:ended"), 10_000, "turn end");
    const ended = events.find((e) => e.type === "turn:ended");
    expect(ended?.type === "turn:ended" && ended.status).toBe("cancelled");
    await harness.app.registry.peek(sessionId).then((s) => s?.drain());
    expect((await harness.models.Turn.findById(sent.data.turnId).lean())?.status).toBe("cancelled");
  });

  it("replays missed events to a client that rejoins with its last sequence number", async () => {
    const cookie = await harness.newCookie();
    const { socket, sessionId } = await openSession(harness, cookie);
    const live = recordEvents(socket);
    await request(socket, "session:join", { sessionId: sessionId });
    await request(socket, "turn:send", { sessionId: sessionId, text: "Say hello" });
    await waitFor(() => live.some((e) => e.type === "turn:ended"));

    const cut = live[2]!.seq;
    const late = await harness.client(cookie);
    const replayed = recordEvents(late);
    let complete = -1;
    late.on("replay:complete", (info) => (complete = info.seq));
    const joined = await request(late, "session:join", { sessionId: sessionId, lastSeq: cut });
    expect(joined).toMatchObject({ ok: true, data: { mode: "replay" } });
    await waitFor(() => complete >= 0, 5_000, "replay:complete");
    expect(replayed.map((e) => e.seq)).toEqual(live.filter((e) => e.seq > cut).map((e) => e.seq));
    expect(complete).toBe(live.at(-1)!.seq);
  });
});

describe("bad commands get a clear error and change nothing", () => {
  it.each([
    ["wrong type", "turn:send", { sessionId: 42, text: "hi" }, /sessionId/],
    ["missing field", "turn:send", { sessionId: "abc" }, /text/],
    ["extra field", "turn:send", { sessionId: "abc", text: "hi", admin: true }, /admin|unrecognized/i],
    ["empty text", "turn:send", { sessionId: "abc", text: "   " }, /empty/],
    ["oversized text", "turn:send", { sessionId: "abc", text: "x".repeat(100_001) }, /100000/],
    ["not an object", "session:join", "nope", /expected object/i],
    ["bad id characters", "session:join", { sessionId: "../../etc" }, /id/],
  ])("%s", async (_label, name, input, message) => {
    const socket = await harness.client(await harness.newCookie());
    const ack = await request(socket, name as "turn:send", input);
    expect(ack.ok).toBe(false);
    if (ack.ok) return;
    expect(ack.code).toBe("bad_request");
    expect(ack.message).toMatch(message);
  });

  it("refuses someone else's session exactly like a missing one", async () => {
    const { sessionId } = await openSession(harness);
    const stranger = await harness.client(await harness.newCookie());
    const theirs = await request(stranger, "session:join", { sessionId: sessionId });
    const missing = await request(stranger, "session:join", { sessionId: "doesNotExist1" });
    expect(theirs).toEqual(missing);
    expect(theirs).toMatchObject({ ok: false, code: "not_found" });
    const send = await request(stranger, "turn:send", { sessionId: sessionId, text: "hi" });
    expect(send).toMatchObject({ ok: false, code: "not_found" });
    const rename = await request(stranger, "session:rename", { sessionId: sessionId, title: "mine now" });
    expect(rename).toMatchObject({ ok: false, code: "not_found" });
  });

  it("refuses a socket without a valid identity cookie", async () => {
    await expect(harness.client("dlg_uid=forged.signature")).rejects.toThrow(/unauthorized/);
  });
});
