import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { SessionEvent } from "@/lib/contracts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { openTestDatabase, testDatabaseUri, type TestDatabase } from "@/test/support/server/database";
import { QuotaLedger } from "./quota-ledger";

/**
 * A person's daily quota through everything real: the OpenAI adapter over HTTP to a
 * scripted model server that reports usage, the server, and MongoDB, where the counts are
 * kept; a second ledger on its own connection stands for another process.
 */

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const lastUser = (r: ScriptedRequest) => String(messagesOf(r).findLast((m) => m.role === "user")?.content ?? "");

function handler(r: ScriptedRequest) {
  const last = messagesOf(r).at(-1)!;
  if (isMaster(r)) {
    if (lastUser(r).startsWith("Say hello"))
      return scriptedReply({ text: ["Hello."], usage: { promptTokens: 500, completionTokens: 100 } });
    if (last.role === "tool") return scriptedReply({ text: ["Done."], usage: { promptTokens: 10, completionTokens: 0 } });
    return scriptedReply({
      toolCalls: [{ id: "m_loop", name: "subagent", argumentChunks: [JSON.stringify({ agent: "explore", task: "TASK_LOOP: read on" })] }],
      usage: { promptTokens: 100, completionTokens: 0 },
    });
  }
  const step = messagesOf(r).filter((m) => m.role === "assistant").length;
  return scriptedReply({
    toolCalls: [{ id: `read_${step}`, name: "list_files", argumentChunks: ["{}"] }],
    usage: { promptTokens: 300, completionTokens: 0 },
  });
}

const QUOTA = { day: { tokens: 1_000 } };
let harness: Harness;
let server: ScriptedOpenAIServer;
/** The same database on a connection of its own: another process's view. */
let other: TestDatabase;

beforeAll(async () => {
  const uri = testDatabaseUri("quota");
  server = await startScriptedOpenAIServer(handler);
  const model = createOpenAIModel({ baseURL: server.url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });
  other = await openTestDatabase("quota-other", { uri });
  harness = await startHarness("quota", {
    mongoUri: uri,
    runner: runtimeWith(model),
    quotas: new QuotaLedger(other.models.QuotaUsage, QUOTA),
  });
});
afterAll(async () => {
  await harness?.close();
  await other?.connection.close();
  await server?.close();
});

async function send(cookie: string, sessionId: string, text: string) {
  const socket = await harness.client(cookie);
  const events: SessionEvent[] = recordEvents(socket);
  await request(socket, "session:join", { sessionId });
  const sent = await request(socket, "turn:send", { sessionId, text });
  if (sent.ok) await waitFor(() => events.some((e) => e.type === "turn:ended"), 30_000, "the turn to end");
  socket.disconnect();
  return { sent, events };
}

/** Polls `read` until it answers something: the counts land after the events that caused them. */
async function eventually<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("a person's daily quota", () => {
  it("is counted in MongoDB, stops a running turn that reaches it at its next step, then refuses the next turn saying when it resets", async () => {
    const { cookie, sessionId } = await openSession(harness);

    const first = await send(cookie, sessionId, "Say hello");
    expect(first.events.find((e) => e.type === "turn:ended")).toMatchObject({ status: "completed" });
    const counter = await eventually(async () => {
      const [row] = await harness.models.QuotaUsage.find({ period: "day" }).lean();
      return row?.tokens === 600 ? row : undefined;
    }, "the first turn's 600 tokens to be counted");
    const person = counter.person;

    // 600 + 100 (master) + 300 (the subagent's first response) reaches 1,000: the subagent asks nothing more.
    const before = server.requests.length;
    const second = await send(cookie, sessionId, "Survey the workspace");
    expect(second.events.find((e) => e.type === "turn:ended")).toMatchObject({ status: "failed", endReason: "budget_exceeded" });
    expect(server.requests.slice(before).filter((r) => !isMaster(r))).toHaveLength(1);
    const stopped = second.events.find((e) => e.type === "subagent_error");
    expect(stopped).toMatchObject({ endReason: "budget_exceeded" });
    expect(stopped && "error" in stopped ? stopped.error : "").toMatch(
      /^Stopped: you reached your daily quota: 1,000 of 1,000 tokens; it resets at \d{4}-\d{2}-\d{2} 00:00 UTC \(in .+\)\.$/,
    );
    const counts = await eventually(async () => {
      const rows = await harness.models.QuotaUsage.find({ person }).lean();
      return rows.length === 2 && rows.every((r) => r.tokens === 1_000) ? rows : undefined;
    }, "both counters to reach 1,000");
    expect(counts.map((c) => c.period).sort()).toEqual(["day", "month"]);

    // Refused before it starts, here and by any other process reading the same counters.
    const third = await send(cookie, sessionId, "Say hello again");
    expect(third.sent).toMatchObject({ ok: false, code: "limit_reached" });
    expect(third.sent.ok ? "" : third.sent.message).toMatch(
      /^You have used your daily quota: 1,000 of 1,000 tokens; it resets at .+ UTC \(in .+\)\.$/,
    );
    await expect(new QuotaLedger(harness.models.QuotaUsage, QUOTA).open(person)).rejects.toMatchObject({ code: "limit_reached" });
    await expect(new QuotaLedger(harness.models.QuotaUsage, { day: { tokens: 5_000 } }).open(person)).resolves.toBeDefined();
  });
});
