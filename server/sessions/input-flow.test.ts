import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent, ToolCall } from "@/lib/contracts";
import { GHOST_APPROVAL_NOTE } from "@/server/data/store";
import { askTool, SIZE_FORM } from "@/test/support/agent/ask-tool";
import { tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * A tool's question through the real server, sockets and database: every tab of the owner
 * sees it and its answer, whichever tab answered; the answer reaches the tool and its
 * model; it is stored with the call and comes back on reload; and a restart while it
 * waits ends it, saying so.
 */

let harness: Harness;
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
const model = scriptedModel((req) => {
  const results = toolResults(req.messages);
  if (results.length > 0) return { text: `Result: ${results[0]!.content}` };
  return { text: "Let me ask.", toolCalls: [{ id: "q1", name: "pick_size", args: {} }] };
});

beforeAll(async () => {
  ws = await tempWorkspace();
  harness = await startHarness("input", { runner: runtimeWith(model, { tools: [askTool()], workspaceDir: ws.dir }) });
});
afterAll(async () => {
  await harness?.close();
  await ws?.cleanup();
});

const inputsIn = (events: SessionEvent[]) => dataOf(events, "input");
const masterCall = (turns: { steps: { toolCalls: ToolCall[] }[] }[]) => turns[0]!.steps[0]!.toolCalls[0]!;

describe("a tool's question through the server", () => {
  it("a second tab answers; both tabs see the answer, the model reads it, and the reload keeps it", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const secondTab = await harness.client(cookie);
    const first = recordEvents(socket);
    const second = recordEvents(secondTab);
    for (const tab of [socket, secondTab]) expect((await request(tab, "session:join", { sessionId })).ok).toBe(true);
    await request(socket, "turn:send", { sessionId, text: "Order me a shirt" });
    await waitFor(() => inputsIn(second).length === 1, 10_000, "the question in the second tab");
    expect(inputsIn(first)[0]).toMatchObject({
      callId: "q1",
      index: 0,
      input: { state: "pending", message: "Which size should I order?", form: SIZE_FORM },
    });

    const answered = await request(secondTab, "tool:answer", {
      sessionId,
      callId: "q1",
      runId: null,
      action: "accept",
      content: { size: "l" },
    });
    expect(answered).toEqual({ ok: true, data: { callId: "q1" } });
    const ended = (events: SessionEvent[]) => events.some((e) => e.type === "turn:ended");
    await waitFor(() => ended(first) && ended(second), 10_000, "the turn end in both tabs");
    for (const events of [first, second]) expect(inputsIn(events).map((e) => e.input.state)).toEqual(["pending", "accepted"]);
    const answeredBy = inputsIn(first)[1]!.input.answeredBy;
    expect(answeredBy).toMatch(/.+/);
    expect(toolResults(model.requests.at(-1)!.messages)[0]!.content).toBe("The person chose l.");

    await (await harness.app.registry.peek(sessionId))?.drain();
    const row = await harness.models.ToolCall.findOne({ sessionId, callId: "q1" }).lean();
    expect(row?.inputs).toEqual([expect.objectContaining({ state: "accepted", content: { size: "l" }, answeredBy })]);
    const reload = await harness.client(cookie);
    const joined = await request(reload, "session:join", { sessionId });
    if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("expected a snapshot");
    expect(masterCall(joined.data.turns)).toMatchObject({
      status: "success",
      response: "The person chose l.",
      inputs: [{ state: "accepted", content: { size: "l" }, answeredBy, form: SIZE_FORM }],
    });
    expect(await harness.store.loadHistory(sessionId)).toStrictEqual(joined.data.turns);
  });

  it("a restart while a question waits: the ghost sweep ends it unanswered and says why", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const events = recordEvents(socket);
    expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
    await request(socket, "turn:send", { sessionId, text: "Order me a shirt" });
    await waitFor(() => inputsIn(events).length === 1, 10_000, "the question");
    await (await harness.app.registry.peek(sessionId))?.drain();

    // What MongoDB holds at this moment is what a process that died here leaves behind.
    const { Turn, ToolCall } = harness.models;
    const left = { turns: await Turn.find({ sessionId }).lean(), calls: await ToolCall.find({ sessionId }).lean() };
    expect((left.calls[0]!.inputs as { state: string }[])[0]!.state).toBe("pending");
    harness = await harness.restart();
    await Turn.deleteMany({ sessionId });
    await ToolCall.deleteMany({ sessionId });
    await Turn.insertMany(left.turns);
    await ToolCall.insertMany(left.calls);

    await harness.store.ghostSweep();
    const reload = await harness.client(cookie);
    const joined = await request(reload, "session:join", { sessionId });
    if (!joined.ok || joined.data.mode !== "snapshot") throw new Error("expected a snapshot");
    expect(masterCall(joined.data.turns)).toMatchObject({
      status: "cancelled",
      inputs: [{ state: "cancelled", note: GHOST_APPROVAL_NOTE }],
    });
    expect(await request(reload, "tool:answer", { sessionId, callId: "q1", action: "decline" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
  });
});
