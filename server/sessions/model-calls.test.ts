import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { ModelCallRecord, ModelCallSummary, SessionEvent } from "@/lib/contracts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * The audit record of every model request, end to end: the OpenAI adapter over real HTTP
 * to a scripted model server, the server storing each request's messages once per
 * session, and the HTTP API giving back, to the chat's owner only, exactly what the model
 * server received.
 */

type WireMessage = {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string } }[];
};
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);

function handler(r: ScriptedRequest) {
  const messages = messagesOf(r);
  const last = messages.at(-1)!;
  if (isMaster(r)) {
    if (last.role === "tool")
      return scriptedReply({ text: ["The helper found: ", "42."], usage: { promptTokens: 120, completionTokens: 6 } });
    return scriptedReply({
      text: ["Asking a helper. "],
      toolCalls: [{ id: "m_1", name: "subagent", argumentChunks: [JSON.stringify({ agent: "explore", task: "find the answer" })] }],
      usage: { promptTokens: 100, completionTokens: 20 },
    });
  }
  const steps = messages.filter((m) => m.role === "assistant").length;
  if (steps < 2)
    return scriptedReply({
      text: [`Looking (step ${steps}). `],
      toolCalls: [{ id: `l_${steps}`, name: "list_files", argumentChunks: ["{}"] }],
    });
  return scriptedReply({ text: ["The answer is 42."] });
}

let harness: Harness;
let server: ScriptedOpenAIServer;

beforeAll(async () => {
  server = await startScriptedOpenAIServer(handler);
  const model = createOpenAIModel({ baseURL: server.url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });
  harness = await startHarness("model-calls", { runner: runtimeWith(model) });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
});

type ApiBody = { calls?: ModelCallSummary[]; call?: ModelCallRecord; error?: { code: string; message: string } };

async function getJson(path: string, cookie: string): Promise<{ status: number; body: ApiBody }> {
  const res = await fetch(`${harness.baseUrl}${path}`, { headers: { cookie } });
  return { status: res.status, body: (await res.json()) as ApiBody };
}

describe("model-call records through the server", () => {
  it("stores every request of the turn and gives back, to the owner, exactly the messages the model server received", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    const sent = await request(socket, "turn:send", { sessionId, text: "What is the answer?" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => events.some((e: SessionEvent) => e.type === "turn:ended"), 20_000, "the turn to end");
    const turnId = sent.data.turnId;

    // Records are written when each request ends, behind the turn's events: poll briefly.
    let calls: ModelCallSummary[] = [];
    await vi.waitFor(
      async () => {
        const list = await getJson(`/api/sessions/${sessionId}/model-calls?turn=${turnId}`, cookie);
        expect(list.status).toBe(200);
        calls = list.body.calls ?? [];
        expect(calls).toHaveLength(server.requests.length);
      },
      { timeout: 20_000, interval: 50 },
    );
    const master = calls.filter((c) => c.runId === null);
    expect(master.map((c) => [c.index, c.finishReason, c.usage])).toEqual([
      [0, "tool_calls", { inputTokens: 100, outputTokens: 20 }],
      [1, "stop", { inputTokens: 120, outputTokens: 6 }],
    ]);
    const child = calls.filter((c) => c.runId !== null);
    expect(child.map((c) => c.index)).toEqual([0, 1, 2]);

    // Each stored request equals the request on the wire, message by message.
    const wire = server.requests;
    for (const call of calls) {
      const whole = await getJson(`/api/sessions/${sessionId}/model-calls/${call.callId}`, cookie);
      expect(whole.status).toBe(200);
      const record = whole.body.call!;
      const match = wire.find(
        (r) =>
          JSON.stringify(messagesOf(r).map((m) => [m.role, m.content ?? ""])) ===
          JSON.stringify(record.request.messages.map((m) => [m.role, m.content])),
      );
      expect(match, `call ${call.runId ?? "master"}#${call.index} matches a request on the wire`).toBeDefined();
      expect(messagesOf(match!).map((m) => m.tool_call_id ?? null)).toEqual(record.request.messages.map((m) => m.toolCallId ?? null));
      expect((match!.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name).sort()).toEqual(
        record.request.tools.map((t) => t.name).sort(),
      );
    }
    const last = (await getJson(`/api/sessions/${sessionId}/model-calls/${master[1]!.callId}`, cookie)).body.call!;
    expect(last.response.text).toBe("The helper found: 42.");
    expect(last.request.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "m_1" });

    // Stored once: the session holds fewer message blobs than the requests sent messages.
    const sentMessages = wire.reduce((n, r) => n + messagesOf(r).length, 0);
    const blobs = await harness.models.ModelBlob.countDocuments({ sessionId });
    expect(blobs).toBeLessThan(sentMessages);
    // The long ones (the tool list) are kept compressed, and read back whole above.
    expect(await harness.models.ModelBlob.countDocuments({ sessionId, z: { $exists: true } })).toBeGreaterThan(0);

    // A stranger gets the same not_found as for a chat that does not exist.
    const stranger = await harness.newCookie();
    const theirs = await getJson(`/api/sessions/${sessionId}/model-calls?turn=${turnId}`, stranger);
    const none = await getJson(`/api/sessions/nosuchsession/model-calls?turn=${turnId}`, stranger);
    expect(theirs).toEqual(none);
    expect(theirs.status).toBe(404);
    expect((await getJson(`/api/sessions/${sessionId}/model-calls/${master[0]!.callId}`, stranger)).status).toBe(404);
    expect((await getJson(`/api/sessions/${sessionId}/model-calls`, cookie)).status).toBe(400);

    // Deleting the chat deletes its records.
    expect((await request(socket, "session:delete", { sessionId })).ok).toBe(true);
    expect(await harness.models.ModelCall.countDocuments({ sessionId })).toBe(0);
    expect(await harness.models.ModelBlob.countDocuments({ sessionId })).toBe(0);
  });
});
